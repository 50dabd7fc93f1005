#pragma once
// The one launcher of a driver's child processes: the workers of --jobs (local_jobs.h) and the
// ranks of --nproc-per-node (data_parallel_launch.h), which re-run the driver's own program
// (/proc/self/exe) with other arguments and environment, and recurlab_analyze after a run
// (run_folder.h). A child dies with its parent (PR_SET_PDEATHSIG), so killing the driver
// never leaves orphans writing on.
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

// Starts `program` with argv[0] = argv0 and `args`; `environment` is set in the child only.
// Throws std::runtime_error when fork fails.
pid_t spawnProcess(const std::string& program, const std::string& argv0,
                   const std::vector<std::string>& args,
                   const std::vector<std::pair<std::string, std::string>>& environment);

// A worker: this program again (/proc/self/exe); argv0 is argv[0] as the user typed it.
pid_t spawnWorker(const std::string& argv0, const std::vector<std::string>& args,
                  const std::vector<std::pair<std::string, std::string>>& environment);

// Waits for every pid, in order.
std::vector<WorkerExit> waitWorkers(const std::vector<pid_t>& pids);

}  // namespace recurlab::experiments
