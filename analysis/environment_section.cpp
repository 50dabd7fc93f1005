// The sections every report starts with: where and how the run ran, and its config.
#include <functional>
#include <map>

#include "analysis/report_registry.h"

namespace recurlab::analysis {

namespace {

// How many finished units of every log of the run ran on each BLAS core (each unit records the
// machine it started on; "(not recorded)" for units logged before that): a run resumed on
// another kind of machine holds units of several, and the CPU repeats a seed bit for bit only on
// one. Empty when no unit recorded its core.
std::map<std::string, int64_t> unitBlasCores(const RunReader& run) {
  std::map<std::string, int64_t> counts;
  bool recorded = false;
  run.forEachLog([&](const experiments::Hdf5RunLog& log) {
    std::function<void(const std::string&)> walk = [&](const std::string& group) {
      if (!isLogGroup(log, group)) return;  // a table
      for (const auto& name : log.children(group)) {
        const std::string path = (group == "/" ? "" : group) + "/" + name;
        if (!log.attribute(path, "status")) {
          walk(path);
          continue;
        }
        const auto core = log.attribute(path, "blas_core");
        const auto* text = core ? std::get_if<std::string>(&*core) : nullptr;
        recorded = recorded || text != nullptr;
        ++counts[text ? *text : std::string("(not recorded)")];
      }
    };
    walk("/");
  });
  if (!recorded) counts.clear();
  return counts;
}

}  // namespace

void writeEnvironmentSection(const RunReader& run, Report& report) {
  auto text = [&](const std::string& name) {
    const std::string v = run.rootText(name);
    return v.empty() ? std::string("(not recorded)") : v;
  };
  report.heading(2, "Environment");
  auto env = ReportTable::withHeaders({"", ""});
  env.addRow({"git commit", text("git_commit")});
  env.addRow({"LibTorch", text("libtorch_version")});
  env.addRow({"device", text("device")});
  env.addRow({"threads", text("threads")});
  env.addRow({"BLAS core", text("blas_core")});
  const auto unit_cores = unitBlasCores(run);
  if (!unit_cores.empty()) {
    std::string cell;
    for (const auto& [core, n] : unit_cores)
      cell += (cell.empty() ? "" : "; ") + core + ": " + std::to_string(n) +
              (n == 1 ? " unit" : " units");
    env.addRow({"BLAS core of the units", cell});
  }
  // The bench sets OpenBLAS's threads per measurement, not once for the process.
  const auto& log = run.log();
  const bool per_case = log.exists("/bench") && log.attribute("/bench", "blas_threads");
  env.addRow({"BLAS threads", per_case ? "per measurement: " + log.stringAttribute("/bench", "blas_threads")
                                       : text("blas_threads")});
  env.addRow({"idle threads", text("thread_waits")});
  env.addRow({"heap (glibc malloc)", text("heap_policy")});
  const auto gemm = log.attribute("/", "gemm_gflops");
  env.addRow({"GEMM GFLOP/s (float 1024³)",
              gemm && std::holds_alternative<double>(*gemm)
                  ? formatNumber(std::get<double>(*gemm), 4)
                  : text("gemm_gflops")});
  env.addRow({"host", text("hostname")});
  env.addRow({"seed", text("seed")});
  env.addRow({"start", text("start_time")});
  const std::string end = run.rootText("end_time");
  env.addRow({"end", end.empty() ? "(no end_time: the run did not finish)" : end});
  const std::string resumed = run.rootText("resumed");
  if (!resumed.empty()) env.addRow({"resumed", resumed + " time(s)"});
  env.addRow({"log", "`" + run.logPath() + "`"});
  report.table(env, "environment", "Where and how the run ran.");
  // Every process that opens the log rewrites the root's machine attributes, so after a resume
  // they describe the last one, not necessarily the machine a finished unit trained on.
  if (!resumed.empty())
    report.paragraph(std::string("Resumed: the machine rows above (git commit to host) are those of "
                                 "the last process that opened the log") +
                     (unit_cores.empty()
                          ? "."
                          : "; each unit records its own (group attributes device, blas_core, "
                            "hostname), counted in the row \"BLAS core of the units\"."));
  report.paragraph("Command line:");
  report.code(text("command_line"), "sh");
  report.heading(2, "Config");
  report.code(run.config().dump(2), "json");

  auto& s = report.summary();
  s["experiment"] = run.experiment();
  s["run"] = run.runId();
  for (const char* key : {"git_commit", "libtorch_version", "device", "blas_core", "heap_policy",
                          "start_time", "end_time"})
    s[key] = run.rootText(key);
  for (const char* key : {"threads", "blas_threads"})
    if (const auto t = log.attribute("/", key); t && std::holds_alternative<int64_t>(*t))
      s[key] = std::get<int64_t>(*t);
  if (const std::string waits = run.rootText("thread_waits"); !waits.empty())
    s["thread_waits"] = waits;
  if (gemm && std::holds_alternative<double>(*gemm)) s["gemm_gflops"] = std::get<double>(*gemm);
  if (!unit_cores.empty()) s["unit_blas_cores"] = unit_cores;
}

}  // namespace recurlab::analysis
