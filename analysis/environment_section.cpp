// The sections every report starts with: where and how the run ran, and its config.
#include "analysis/report_registry.h"

namespace recurlab::analysis {

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
}

}  // namespace recurlab::analysis
