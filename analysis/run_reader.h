#pragma once
// Read access to one run: its folder, its log.h5 (read-only) and the root attributes that
// every run log has (experiments/harness/run_folder.h writes them).
#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/log/hdf5_run_log.h"

namespace recurlab::analysis {

// A run log opened read-only without HDF5's file lock, so that a log a running experiment
// holds open (and locks) can be read: the writer flushes the file after every write, so a
// reader sees every row appended so far. Every log analysis reads is opened this way.
experiments::Hdf5RunLog openRunLog(const std::string& path);

// Whether path names a group of the log (false for a table or a missing object): the walks over
// a log's groups ask this before descending.
bool isLogGroup(const experiments::Hdf5RunLog& log, const std::string& path);

class RunReader {
 public:
  // A run folder (holding log.h5) or the log file itself. Throws naming the path when
  // neither exists.
  explicit RunReader(const std::string& run_dir_or_log);

  const std::string& runDirectory() const { return run_dir_; }
  const std::string& logPath() const { return log_path_; }
  std::string runId() const;  // the folder's name
  const experiments::Hdf5RunLog& log() const { return log_; }

  std::string experiment() const;  // root attribute "experiment"; throws if missing
  // A root attribute as text ("" if absent): numbers are formatted, strings as they are.
  std::string rootText(const std::string& name) const;
  // The root "config" attribute parsed; an empty object when absent or not JSON.
  nlohmann::json config() const;

  // Every log of the run: log.h5 and the shard logs (log.shard-i-of-n.h5, written by --shard
  // and --jobs workers), sorted; just logPath() when the reader was given a log file.
  std::vector<std::string> logFiles() const;
  // Calls fn on each of logFiles() opened read-only (the reader's own log is reused): reports
  // merge the units of every shard this way.
  void forEachLog(const std::function<void(const experiments::Hdf5RunLog&)>& fn) const;
  // The unit groups the run planned (root attribute units_planned; every shard's log lists all
  // of them), over every log. Empty for logs written before the attribute existed.
  std::set<std::string> plannedUnitGroups() const;

 private:
  std::string run_dir_, log_path_;
  experiments::Hdf5RunLog log_;
};

// How many of `groups` (e.g. plannedUnitGroups()) lie under `prefix` ("/<dataset>/<model>/folds/"):
// the units a report cell waits for.
size_t groupsUnder(const std::set<std::string>& groups, const std::string& prefix);

}  // namespace recurlab::analysis
