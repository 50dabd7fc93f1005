#pragma once
// Child processes of a driver that re-run its own program (/proc/self/exe) with other
// arguments and environment: the workers of --jobs (local_jobs.h) and the ranks of
// --nproc-per-node (data_parallel_launch.h). A worker dies with its parent
// (PR_SET_PDEATHSIG), so killing the driver never leaves orphans writing on.
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace recurlab::experiments {

struct WorkerExit {
  bool signaled = false;  // killed by a signal
  int code = 0;           // exit status, or the signal's number
  std::string describe() const;  // "exited with status 2", "was killed by signal 9"
};

// `args` without the options named in `with_value` (dropped with their value, in both
// "--opt v" and "--opt=v" forms) and the flags in `flags`.
std::vector<std::string> dropOptions(const std::vector<std::string>& args,
                                     const std::vector<std::string>& with_value,
                                     const std::vector<std::string>& flags);

// argv0 is argv[0] as the user typed it; `environment` is set in the child only.
pid_t spawnWorker(const std::string& argv0, const std::vector<std::string>& args,
                  const std::vector<std::pair<std::string, std::string>>& environment);

// Waits for every pid, in order.
std::vector<WorkerExit> waitWorkers(const std::vector<pid_t>& pids);

}  // namespace recurlab::experiments
