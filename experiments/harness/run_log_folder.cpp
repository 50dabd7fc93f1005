#include "experiments/harness/run_log_folder.h"

#include <hdf5.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace recurlab::experiments {
namespace fs = std::filesystem;

std::string runLogName(const Shard& shard) {
  if (!shard.active()) return "log.h5";
  return "log.shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) + ".h5";
}

std::string chooseRunFolder(const RunDirectoryOptions& o) {
  if (!o.out_dir.empty()) return o.out_dir;
  const fs::path base = fs::path(o.results_root) / o.experiment;
  if (!o.run_id.empty()) {
    if (o.run_id.find('/') != std::string::npos)
      throw std::invalid_argument("--run-id '" + o.run_id + "' must not contain '/'");
    return (base / o.run_id).string();
  }
  const std::string id = defaultRunId();
  fs::path dir = base / id;
  for (int k = 2; fs::exists(dir); ++k) dir = base / (id + "-" + std::to_string(k));
  return dir.string();
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

void removeLogGroups(const std::string& file, const std::vector<std::string>& groups) {
  if (groups.empty()) return;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error(file + ": cannot open it to remove unfinished units");
  for (const auto& g : groups)
    if (H5Lexists(f, g.c_str(), H5P_DEFAULT) > 0 && H5Ldelete(f, g.c_str(), H5P_DEFAULT) < 0) {
      H5Fclose(f);
      throw std::runtime_error(file + ": cannot remove the unfinished unit " + g);
    }
  H5Fclose(f);
}

OpenedRunLog openRunLog(
    const ExperimentCommandLine& cl, const std::string& config_json, int64_t seed,
    const MachineInfo& machine,
    const std::function<std::vector<std::string>(const Hdf5RunLog&)>& unfinished) {
  const std::string folder = chooseRunFolder(cl.run_directory);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create the run folder " + folder + ": " + ec.message());
  const std::string path = (fs::path(folder) / runLogName(cl.shard)).string();
  const bool resumed = fs::exists(path);
  if (resumed) {
    std::vector<std::string> partial;
    {
      Hdf5RunLog old(path, Hdf5RunLog::Mode::ReadOnly);
      const auto experiment = old.attribute("/", "experiment");
      if (experiment && std::get<std::string>(*experiment) != cl.run_directory.experiment)
        throw std::runtime_error(path + " belongs to experiment '" +
                                 std::get<std::string>(*experiment) + "', not '" +
                                 cl.run_directory.experiment + "'");
      partial = unfinished(old);
    }
    for (const auto& g : partial)
      std::cerr << "resume: " << g << " was cut off mid-way; it runs again from scratch\n";
    removeLogGroups(path, partial);
  }
  OpenedRunLog opened{folder, resumed, Hdf5RunLog(path, Hdf5RunLog::Mode::Append)};
  auto& log = opened.log;
  if (resumed) {
    const auto count = log.attribute("/", "resumed");
    log.setAttribute("/", "resumed", count ? std::get<int64_t>(*count) + 1 : int64_t{1});
  }
  writeRunAttributes(log, cl.run_directory.experiment, cl.command_line, config_json, seed, machine);
  log.setAttribute("/", "shard",
                   std::to_string(cl.shard.index) + "/" + std::to_string(cl.shard.count));
  if (!log.attribute("/", "start_time")) log.setAttribute("/", "start_time", utcTimestamp());
  log.flush();
  std::cout << "run folder: " << folder << " (" << runLogName(cl.shard)
            << (resumed ? ", resumed" : "") << ")" << std::endl;
  return opened;
}

}  // namespace recurlab::experiments

namespace recurlab::experiments {

int runAnalysisTool(const std::string& folder) {
  const std::string tool = (fs::path(executableDirectory()) / "recurlab_analyze").string();
  if (!fs::exists(tool)) {
    std::cerr << "note: " << tool << " not found; build it and run `recurlab_analyze " << folder
              << "` for report.md, summary.json and the figures\n";
    return -1;
  }
  auto quote = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::cout.flush();
  const int status = std::system((quote(tool) + " " + quote(folder)).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace recurlab::experiments
