#include "experiments/harness/run_folder.h"


#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <variant>

#include "common/log/log_file_check.h"
#include "experiments/training/checkpoint_store.h"
#include "experiments/harness/noun_count.h"
#include "experiments/harness/worker_processes.h"
#include "recurlab_git_commit.h"  // generated at build time

namespace recurlab::experiments {

namespace fs = std::filesystem;
namespace po = boost::program_options;

void addRunFolderOptions(po::options_description& cli, RunFolderOptions& options) {
  cli.add_options()
      ("run-id", po::value<std::string>(&options.run_id),
       "name of the run folder under <results-root>/<experiment>/ (default: UTC timestamp); "
       "an existing one is resumed when its config (description aside) and seed "
       "are the same")
      ("out", po::value<std::string>(&options.out_dir),
       "run folder to write into, overriding --results-root and --run-id")
      ("results-root", po::value<std::string>(&options.results_root)->default_value("results"),
       "root of all results folders")
      ("force-new", po::bool_switch(&options.force_new),
       "never resume: when the folder exists, write into the next free <folder>-2, -3, ...");
}

std::string defaultRunId() { return utcTimestamp("%Y%m%d-%H%M%S"); }

std::string runLogName(const Shard& shard) {
  if (!shard.active()) return "log.h5";
  return "log.shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) + ".h5";
}

std::vector<std::string> runLogFiles(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "log.h5" || (name.rfind("log.shard-", 0) == 0 && e.path().extension() == ".h5"))
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

void differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& key,
                 std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    std::vector<std::string> keys;
    for (auto it = a.begin(); it != a.end(); ++it) keys.push_back(it.key());
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) keys.push_back(it.key());
    for (const auto& k : keys) {
      const std::string sub = key.empty() ? k : key + "." + k;
      if (!a.contains(k))
        out.push_back(sub + ": (absent) -> " + b.at(k).dump());
      else if (!b.contains(k))
        out.push_back(sub + ": " + a.at(k).dump() + " -> (absent)");
      else
        differences(a.at(k), b.at(k), sub, out);
    }
    return;
  }
  if (a != b) out.push_back((key.empty() ? "(whole config)" : key) + ": " + a.dump() + " -> " + b.dump());
}

std::string withSuffix(const fs::path& dir) {
  fs::path d = dir;
  for (int k = 2; fs::exists(d); ++k) d = dir.string() + "-" + std::to_string(k);
  return d.string();
}

// The folder for these options and whether it may already hold logs to resume.
std::string chooseFolder(const RunFolderOptions& o) {
  if (o.experiment.empty()) throw std::invalid_argument("RunFolder: experiment name is empty");
  fs::path dir;
  if (!o.out_dir.empty()) {
    dir = o.out_dir;
  } else {
    const fs::path base = fs::path(o.results_root) / o.experiment;
    if (o.run_id.empty()) return withSuffix(base / defaultRunId());
    if (o.run_id.find('/') != std::string::npos)
      throw std::invalid_argument("--run-id '" + o.run_id + "' must not contain '/'");
    dir = base / o.run_id;
  }
  return o.force_new ? withSuffix(dir) : dir.string();
}

// Every log already in the folder must hold this experiment, config and seed; one that cannot
// be read stops the run with a message naming it (`own_file`: this shard's own log).
void checkSameRun(const std::string& folder, const std::string& experiment,
                  const nlohmann::json& config, int64_t seed, const std::string& own_file) {
  for (const auto& f : runLogFiles(folder)) {
    std::optional<Hdf5RunLog> old;
    try {
      old.emplace(f, Hdf5RunLog::Mode::ReadOnly);
    } catch (const std::exception&) {
      const LogFileDiagnosis d = diagnoseLogFile(f);
      const bool own = !own_file.empty() && fs::path(f).filename() == fs::path(own_file).filename();
      const std::string problem =
          logFileProblem(f, d, own ? "cannot resume: this run's log" : "the log of another worker");
      if (!problem.empty()) throw std::runtime_error(problem);
      continue;  // another shard is writing it right now; it was checked when it started
    }
    const auto e = old->attribute("/", "experiment");
    if (e && std::get<std::string>(*e) != experiment)
      throw std::runtime_error(f + " belongs to experiment '" + std::get<std::string>(*e) +
                               "', not '" + experiment + "'");
    std::vector<std::string> diff;
    if (const auto c = old->attribute("/", "config")) {
      nlohmann::json before;
      try {
        before = nlohmann::json::parse(std::get<std::string>(*c));
      } catch (const std::exception&) {
        before = std::get<std::string>(*c);
      }
      diff = trainingConfigDifferences(before, config);
    }
    if (const auto s = old->attribute("/", "seed"); s && std::get<int64_t>(*s) != seed)
      diff.push_back("seed: " + std::to_string(std::get<int64_t>(*s)) + " -> " + std::to_string(seed));
    if (!diff.empty()) {
      std::string text;
      for (const auto& d : diff) text += "\n  " + d;
      throw std::runtime_error("run folder " + folder + " holds a run with another config (" + f +
                               "); resuming it would mix two runs. Differing keys (logged -> now):" +
                               text + "\nUse another --run-id, or --force-new for a fresh folder "
                               "beside it.");
    }
  }
}

}  // namespace

std::vector<std::string> configDifferences(const nlohmann::json& before, const nlohmann::json& now) {
  std::vector<std::string> out;
  differences(before, now, "", out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> trainingConfigDifferences(nlohmann::json before, nlohmann::json now) {
  for (auto* c : {&before, &now})
    if (c->is_object()) c->erase("description");
  return configDifferences(before, now);
}

std::string joinCommandLine(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.empty() || a.find_first_of(" \t\"'\\$`") != std::string::npos) {
      std::string q = "'";
      for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      a = q + "'";
    }
    out += (i ? " " : "") + a;
  }
  return out;
}

std::string executableDirectory() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

void writeRunAttributes(Hdf5RunLog& log, const std::string& experiment,
                        const std::string& command_line, const std::string& config_json,
                        int64_t seed, const MachineInfo& machine) {
  log.setAttribute("/", "experiment", experiment);
  log.setAttribute("/", "command_line", command_line);
  log.setAttribute("/", "config", config_json);
  log.setAttribute("/", "git_commit", std::string(RECURLAB_GIT_COMMIT));
  log.setAttribute("/", "libtorch_version", machine.libtorch_version);
  log.setAttribute("/", "device", machine.device);
  log.setAttribute("/", "threads", static_cast<int64_t>(machine.threads));
  log.setAttribute("/", "blas_core", machine.blas_core);
  log.setAttribute("/", "blas_threads", static_cast<int64_t>(machine.blas_threads));
  log.setAttribute("/", "thread_waits", machine.thread_waits);
  log.setAttribute("/", "heap_policy", machine.heap_policy);
  log.setAttribute("/", "gemm_gflops", machine.gemm_gflops);
  log.setAttribute("/", "hostname", machine.hostname);
  log.setAttribute("/", "seed", seed);
}

namespace {

// What resuming does with a unit that a kill cut off mid-way. With its last checkpoint it goes
// on from there; without one (deleted, or the folder copied without them) it trains again from
// its first epoch, and the epochs the log held of it are dropped: said, so that a curve that
// starts over is not taken for a fault.
std::string cutOffUnitNotice(const Hdf5RunLog& log, const std::string& run_folder,
                             const std::string& group) {
  const CheckpointStore checkpoints(unitCheckpointDir(run_folder, group));
  if (checkpoints.has("last"))
    return "resume: " + group + " was cut off mid-way; it goes on from its last checkpoint " +
           checkpoints.path("last");
  const std::string epochs = group + "/epochs";
  const size_t logged = log.exists(epochs) ? log.readTable(epochs).rows.size() : 0;
  std::string notice = "resume: " + group + " was cut off mid-way and has no checkpoint (" +
                       checkpoints.path("last") + " is missing): it trains again from the start";
  if (logged > 0) notice += ", replacing the " + nounCount(logged, "epoch") + " the log held";
  return notice;
}

// A run resumed on another kind of machine: the CPU repeats a seed bit for bit only with the
// same OpenBLAS kernels (its `blas_core`), so the units trained here will not be what the first
// machine would have computed. Said once; each unit records the machine it ran on.
std::optional<std::string> otherMachineNotice(const Hdf5RunLog& log, const MachineInfo& machine) {
  std::string before, now;
  for (const auto& [name, here] : {std::pair<std::string, std::string>{"device", machine.device},
                                   {"blas_core", machine.blas_core}}) {
    const auto written = log.attribute("/", name);
    if (!written || !std::holds_alternative<std::string>(*written)) continue;
    const auto& there = std::get<std::string>(*written);
    if (there == here || there.empty() || here.empty()) continue;
    before += (before.empty() ? "" : ", ") + name + " " + there;
    now += (now.empty() ? "" : ", ") + here;
  }
  if (before.empty()) return std::nullopt;
  return "resume: this run was last written on another kind of machine (" + before +
         "; here " + now + "): what trains here will not repeat bit for bit what it would have "
         "computed there (each unit's blas_core and device attributes say where it ran)";
}

}  // namespace

RunFolder::RunFolder(const RunFolderOptions& options, const Shard& shard,
                     const std::string& command_line, const nlohmann::json& config, int64_t seed,
                     const MachineInfo& machine,
                     const std::function<std::vector<std::string>(const Hdf5RunLog&)>& unfinished)
    : path_(chooseFolder(options)), shard_(shard) {
  std::error_code ec;
  fs::create_directories(path_, ec);
  if (ec) throw std::runtime_error("cannot create the run folder " + path_ + ": " + ec.message());
  const std::string file = (fs::path(path_) / runLogName(shard)).string();
  checkSameRun(path_, options.experiment, config, seed, file);
  resumed_ = fs::exists(file);
  // Opening for writing first takes the log's lock, so a second copy of this run stops here
  // with a clear message before it reports or removes anything.
  log_.emplace(file, Hdf5RunLog::Mode::Append);
  if (resumed_ && unfinished) {
    for (const auto& g : unfinished(*log_)) {
      std::cerr << cutOffUnitNotice(*log_, path_, g) << "\n";
      log_->remove(g);  // each removal replaces the file whole: a kill leaves it there or gone
    }
  }
  auto& log = *log_;
  if (resumed_) {
    const auto count = log.attribute("/", "resumed");
    log.setAttribute("/", "resumed", count ? std::get<int64_t>(*count) + 1 : int64_t{1});
    if (const auto notice = otherMachineNotice(log, machine)) std::cerr << *notice << "\n";
  }
  writeRunAttributes(log, options.experiment, command_line, config.dump(2), seed, machine);
  log.setAttribute("/", "shard", std::to_string(shard.index) + "/" + std::to_string(shard.count));
  if (!log.attribute("/", "start_time")) log.setAttribute("/", "start_time", utcTimestamp());
  log.sync();
  std::cout << "run folder: " << path_ << " (" << runLogName(shard)
            << (resumed_ ? ", resumed" : "") << ")" << std::endl;
}

std::string RunFolder::file(const std::string& name) const {
  return (fs::path(path_) / name).string();
}

Hdf5RunLog& RunFolder::log() {
  if (!log_) throw std::logic_error("RunFolder: the log of " + path_ + " is closed (finish() ran)");
  return *log_;
}

void RunFolder::writeSummary(const nlohmann::json& summary) const {
  const std::string p = file("summary.json");
  std::ofstream out(p);
  if (!out) throw std::runtime_error("RunFolder: cannot write " + p);
  out << summary.dump(2) << "\n";
}

void RunFolder::finish() {
  if (!log_) return;
  log_->setAttribute("/", "end_time", utcTimestamp());
  log_->sync();
  log_.reset();
}

int RunFolder::runAnalysis() const { return runAnalysisOf(path_); }

std::string runFolderPath(const RunFolderOptions& options) { return chooseFolder(options); }

void checkResumableFolder(const std::string& folder, const std::string& experiment,
                          const nlohmann::json& config, int64_t seed) {
  checkSameRun(folder, experiment, config, seed, "");
}

int runAnalysisOf(const std::string& folder, bool terminal_summary) {
  const std::string tool = (fs::path(executableDirectory()) / "recurlab_analyze").string();
  if (!fs::exists(tool)) {
    std::cerr << "note: " << tool << " not found; build it and run `recurlab_analyze " << folder
              << "` for report.md, summary.json and the figures\n";
    return -1;
  }
  std::vector<std::string> args;
  if (terminal_summary) args.push_back("--summary");
  args.push_back(folder);
  int rc = -1;
  try {
    const WorkerExit exit = waitWorkers({spawnProcess(tool, tool, args, {})}).front();
    rc = exit.signaled ? 128 : exit.code;
  } catch (const std::runtime_error&) {
    return -1;
  }
  if (rc != 0) std::cerr << "recurlab_analyze " << folder << " failed (" << rc << ")\n";
  return rc;
}

}  // namespace recurlab::experiments
