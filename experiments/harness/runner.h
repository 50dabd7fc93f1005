#pragma once
// The one runner of every task (experiments/harness/task.h): runs this shard's units that no
// log of the run folder holds finished (whatever shard layout wrote them, so changing --shard
// never runs or counts a unit twice), samples each unit's config from its seed, selects the
// best finished trial of a search for the final units, writes each unit's attributes and its
// status last (then fsyncs the log), prints progress lines with ETAs, and records a search
// whose trials all diverged instead of aborting on it.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/harness/run_folder.h"
#include "experiments/harness/task.h"

namespace recurlab::experiments {

struct RunnerOptions {
  uint64_t seed = 1;             // the root seed; every unit's seeds derive from it
  bool checkpoints = true;       // give units a checkpoint folder (Trainer resumes from it)
  std::ostream* progress = nullptr;  // nullptr = std::cerr
  DataParallelGroup* data_parallel = nullptr;  // handed to every unit (UnitContext)
  ExecutionOptions execution;    // likewise: device, precision, determinism
};

struct RunnerReport {
  int64_t ran = 0;               // units trained by this call
  int64_t already_finished = 0;  // found finished in some log of the folder and skipped
  int64_t waiting = 0;           // final units whose search is not finished (other shards)
  int64_t diverged = 0;
  int64_t skipped = 0;           // final units of a search whose every trial diverged
};

// The group of a unit recorded as skipped (every trial of its search diverged).
std::string skippedUnitGroup(const Unit& unit);

// Whether `log` holds the unit finished (status written) or recorded as skipped.
bool unitFinished(const Hdf5RunLog& log, const Unit& unit);

// Groups of the shard's units that `log` holds without a status: cut off mid-way. For
// RunFolder's `unfinished` argument.
std::vector<std::string> unfinishedUnitGroups(const Task& task, const Shard& shard,
                                              const Hdf5RunLog& log);

RunnerReport runTask(Task& task, RunFolder& folder, const RunnerOptions& options);

}  // namespace recurlab::experiments
