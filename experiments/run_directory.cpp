#include "experiments/run_directory.h"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "recurlab_git_commit.h"  // generated at build time

namespace recurlab::experiments {

namespace fs = std::filesystem;
namespace po = boost::program_options;

void addRunDirectoryOptions(po::options_description& cli, RunDirectoryOptions& options) {
  cli.add_options()
      ("run-id", po::value<std::string>(&options.run_id),
       "name of the run folder under <results-root>/<experiment>/ (default: UTC timestamp); "
       "an existing one is resumed")
      ("out", po::value<std::string>(&options.out_dir),
       "run folder to write into, overriding --results-root and --run-id")
      ("results-root", po::value<std::string>(&options.results_root)->default_value("results"),
       "root of all results folders");
}

std::string defaultRunId() { return utcTimestamp("%Y%m%d-%H%M%S"); }

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
  log.setAttribute("/", "gemm_gflops", machine.gemm_gflops);
  log.setAttribute("/", "hostname", machine.hostname);
  log.setAttribute("/", "seed", seed);
}

namespace {

// Picks the folder and whether log.h5 there is resumed.
std::pair<std::string, bool> chooseFolder(const RunDirectoryOptions& o) {
  if (o.experiment.empty()) throw std::invalid_argument("RunDirectory: experiment name is empty");
  if (!o.out_dir.empty()) return {o.out_dir, fs::exists(fs::path(o.out_dir) / "log.h5")};
  const fs::path base = fs::path(o.results_root) / o.experiment;
  if (!o.run_id.empty()) {
    if (o.run_id.find('/') != std::string::npos)
      throw std::invalid_argument("--run-id '" + o.run_id + "' must not contain '/'");
    const fs::path dir = base / o.run_id;
    return {dir.string(), fs::exists(dir / "log.h5")};
  }
  const std::string id = defaultRunId();
  fs::path dir = base / id;
  for (int k = 2; fs::exists(dir); ++k) dir = base / (id + "-" + std::to_string(k));
  return {dir.string(), false};
}

}  // namespace

RunDirectory::RunDirectory(const RunDirectoryOptions& options, int argc, char** argv,
                           const nlohmann::json& config, int64_t seed, const MachineInfo& machine)
    : log_([&] {
        auto [dir, resume] = chooseFolder(options);
        path_ = dir;
        resumed_ = resume;
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
          throw std::runtime_error("RunDirectory: cannot create " + dir + ": " + ec.message());
        return Hdf5RunLog((fs::path(dir) / "log.h5").string(),
                          resume ? Hdf5RunLog::Mode::Append : Hdf5RunLog::Mode::Create);
      }()) {
  Hdf5RunLog& log = *log_;
  if (resumed_) {
    const auto old = log.attribute("/", "experiment");
    if (old && std::get<std::string>(*old) != options.experiment)
      throw std::runtime_error("RunDirectory: " + log.path() + " belongs to experiment '" +
                               std::get<std::string>(*old) + "', not '" + options.experiment +
                               "'");
    const auto count = log.attribute("/", "resumed");
    log.setAttribute("/", "resumed",
                      count ? std::get<int64_t>(*count) + 1 : static_cast<int64_t>(1));
  }
  writeRunAttributes(log, options.experiment, joinCommandLine(argc, argv), config.dump(2),
                     seed, machine);
  if (!log.attribute("/", "start_time")) log.setAttribute("/", "start_time", utcTimestamp());
  std::cout << "run folder: " << path_ << (resumed_ ? " (resumed)" : "") << std::endl;
}

std::string RunDirectory::file(const std::string& name) const {
  return (fs::path(path_) / name).string();
}

void RunDirectory::writeSummary(const nlohmann::json& summary) const {
  const std::string p = file("summary.json");
  std::ofstream out(p);
  if (!out) throw std::runtime_error("RunDirectory: cannot write " + p);
  out << summary.dump(2) << "\n";
}

Hdf5RunLog& RunDirectory::log() {
  if (!log_) throw std::logic_error("RunDirectory: " + path_ + "/log.h5 is closed (finish() ran)");
  return *log_;
}

void RunDirectory::finish() {
  if (!log_) return;
  log_->setAttribute("/", "end_time", utcTimestamp());
  log_.reset();
}

int RunDirectory::runAnalysis() const {
  const std::string tool = (fs::path(executableDirectory()) / "recurlab_analyze").string();
  if (!fs::exists(tool)) {
    std::cerr << "recurlab: " << tool << " not found; build it and run `recurlab_analyze "
              << path_ << "` for the report and figures\n";
    return -1;
  }
  std::cout.flush();
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::vector<char*> args{const_cast<char*>(tool.c_str()), const_cast<char*>(path_.c_str()),
                            nullptr};
    execv(tool.c_str(), args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  if (rc != 0) std::cerr << "recurlab: recurlab_analyze " << path_ << " failed (" << rc << ")\n";
  return rc;
}

}  // namespace recurlab::experiments
