#pragma once
// A task's units trained in this process into a fresh run folder, as a driver trains them
// (data checked, folder prepared, every unit run), without progress output: for the tests of
// what a run leaves behind (its log, its kept models).
#include <cstdint>
#include <functional>
#include <string>

namespace recurlab::experiments {
class Hdf5RunLog;
class Task;
}  // namespace recurlab::experiments

namespace recurlab::testing {

// Trains every unit of `task` into the run folder `out_dir` of `experiment` with root seed
// `seed` at `precision`, and hands the run's log to `read` before the folder is finished.
void trainInProcess(experiments::Task& task, const std::string& experiment,
                    const std::string& out_dir, int64_t seed,
                    const std::function<void(const experiments::Hdf5RunLog&)>& read = {},
                    const std::string& precision = "fp32");

}  // namespace recurlab::testing
