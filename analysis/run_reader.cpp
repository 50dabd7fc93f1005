#include "analysis/run_reader.h"

#include <algorithm>
#include <filesystem>
#include <vector>
#include <sstream>
#include <stdexcept>

#include "common/log/unlocked_log_reads.h"

namespace recurlab::analysis {

namespace fs = std::filesystem;

experiments::Hdf5RunLog openRunLog(const std::string& path) {
  const experiments::UnlockedLogReads unlocked;
  return experiments::Hdf5RunLog(path, experiments::Hdf5RunLog::Mode::ReadOnly);
}

bool isLogGroup(const experiments::Hdf5RunLog& log, const std::string& path) {
  try {
    log.children(path);  // throws for a table or a missing object
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

namespace {
std::pair<std::string, std::string> resolve(const std::string& p) {
  if (fs::is_directory(p)) {
    fs::path log = fs::path(p) / "log.h5";
    if (!fs::exists(log)) {
      // A run split with --shard has only log.shard-i-of-n.h5 files; any one of them carries
      // the run's root attributes, and the reports merge every log of the folder.
      std::vector<fs::path> shards;
      for (const auto& e : fs::directory_iterator(p)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("log.shard-", 0) == 0 && e.path().extension() == ".h5")
          shards.push_back(e.path());
      }
      if (shards.empty())
        throw std::runtime_error("run folder " + p + " holds no log.h5 (nor log.shard-*.h5)");
      std::sort(shards.begin(), shards.end());
      log = shards.front();
    }
    return {p, log.string()};
  }
  if (!fs::exists(p)) throw std::runtime_error("no run folder or log file " + p);
  std::string dir = fs::path(p).parent_path().string();
  return {dir.empty() ? "." : dir, p};
}
}  // namespace

RunReader::RunReader(const std::string& run_dir_or_log)
    : log_([&] {
        auto [dir, log] = resolve(run_dir_or_log);
        run_dir_ = dir;
        log_path_ = log;
        return openRunLog(log);
      }()) {}

std::string RunReader::runId() const {
  fs::path p = fs::path(run_dir_);
  if (p.filename().empty()) p = p.parent_path();
  return fs::absolute(p).lexically_normal().filename().string();
}

std::string RunReader::experiment() const { return log_.stringAttribute("/", "experiment"); }

std::string RunReader::rootText(const std::string& name) const {
  const auto v = log_.attribute("/", name);
  if (!v) return "";
  if (const auto* s = std::get_if<std::string>(&*v)) return *s;
  std::ostringstream out;
  if (const auto* d = std::get_if<double>(&*v)) out << *d;
  else out << std::get<int64_t>(*v);
  return out.str();
}

nlohmann::json RunReader::config() const {
  const std::string text = rootText("config");
  if (text.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

std::vector<std::string> RunReader::logFiles() const {
  if (fs::path(log_path_).parent_path() != fs::path(run_dir_) && !fs::is_directory(run_dir_))
    return {log_path_};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(run_dir_)) {
    const std::string name = e.path().filename().string();
    if (name == "log.h5" || (name.rfind("log.shard-", 0) == 0 && e.path().extension() == ".h5"))
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back(log_path_);
  return files;
}

void RunReader::forEachLog(const std::function<void(const experiments::Hdf5RunLog&)>& fn) const {
  for (const auto& f : logFiles()) {
    if (fs::exists(f) && fs::exists(log_path_) && fs::equivalent(f, log_path_)) {
      fn(log_);
    } else {
      const experiments::Hdf5RunLog other = openRunLog(f);
      fn(other);
    }
  }
}

std::set<std::string> RunReader::plannedUnitGroups() const {
  std::set<std::string> groups;
  forEachLog([&](const experiments::Hdf5RunLog& log) {
    if (!log.attribute("/", "units_planned")) return;
    const auto planned = nlohmann::json::parse(log.stringAttribute("/", "units_planned"), nullptr, false);
    if (!planned.is_array()) return;
    for (const auto& g : planned)
      if (g.is_string()) groups.insert(g.get<std::string>());
  });
  return groups;
}

size_t groupsUnder(const std::set<std::string>& groups, const std::string& prefix) {
  // The set is sorted: the groups under a prefix are one run from its lower bound.
  size_t n = 0;
  for (auto it = groups.lower_bound(prefix);
       it != groups.end() && it->compare(0, prefix.size(), prefix) == 0; ++it)
    ++n;
  return n;
}

}  // namespace recurlab::analysis
