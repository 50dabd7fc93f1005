#include "tests/support/in_process_run.h"

#include <nlohmann/json.hpp>

#include <sstream>

#include "common/runtime/machine_info.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/harness/task.h"

namespace recurlab::testing {

void trainInProcess(experiments::Task& task, const std::string& experiment,
                    const std::string& out_dir, int64_t seed,
                    const std::function<void(const experiments::Hdf5RunLog&)>& read,
                    const std::string& precision) {
  using namespace recurlab::experiments;
  task.checkData();
  RunFolderOptions folder_options(experiment);
  folder_options.out_dir = out_dir;
  Shard shard;
  RunFolder run(folder_options, shard, "test", nlohmann::json{{"seed", seed}}, seed, MachineInfo{},
                [&](const Hdf5RunLog& log) { return unfinishedUnitGroups(task, shard, log); });
  task.prepare(run.path());
  std::ostringstream quiet;
  RunnerOptions options;
  options.seed = static_cast<uint64_t>(seed);
  options.progress = &quiet;
  options.execution.precision = precision;
  runTask(task, run, options);
  if (read) read(run.log());
  run.finish();
}

}  // namespace recurlab::testing
