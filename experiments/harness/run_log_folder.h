#pragma once
// The run folder of a resumable, shardable experiment: results/<experiment>/<run-id>/ with
// log.h5, or one log.shard-i-of-n.h5 per shard (each process writes only its own file; the
// analysis merges every log of the folder). Units of work are groups in the log that count
// as finished only once their final attribute is written; a unit cut off mid-way is removed
// on resume and run again from scratch.
#include <functional>
#include <string>
#include <vector>

#include "experiments/config/experiment_command_line.h"
#include "experiments/log/hdf5_run_log.h"
#include "experiments/run_directory.h"

namespace recurlab::experiments {

// "log.h5" or "log.shard-<i>-of-<n>.h5".
std::string runLogName(const Shard& shard);

// The folder for these options (an explicit --out/--run-id is reused and resumed; the default
// timestamped id is fresh).
std::string chooseRunFolder(const RunDirectoryOptions& options);

// Every run log in the folder (log.h5 and log.shard-*.h5), sorted.
std::vector<std::string> runLogFiles(const std::string& folder);

// Deletes groups (with everything under them) from an HDF5 file that no one has open.
void removeLogGroups(const std::string& file, const std::vector<std::string>& groups);

struct OpenedRunLog {
  std::string folder;
  bool resumed = false;
  Hdf5RunLog log;
};

// Creates the folder; on resume, removes the groups `unfinished` lists (it reads the log
// read-only); opens the shard's log in Append mode and writes the root attributes
// (writeRunAttributes; start_time kept on resume, `resumed` counted, `shard` = "i/n").
OpenedRunLog openRunLog(const ExperimentCommandLine& cl, const std::string& config_json,
                        int64_t seed, const MachineInfo& machine,
                        const std::function<std::vector<std::string>(const Hdf5RunLog&)>& unfinished);

// Runs `recurlab_analyze <folder>` (beside this executable): report.md, summary.json and
// figures from the folder's logs. Returns its exit status, -1 when the tool is missing.
int runAnalysisTool(const std::string& folder);

}  // namespace recurlab::experiments
