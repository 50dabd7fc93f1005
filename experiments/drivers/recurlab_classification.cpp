// Text classification benchmark (Lei et al. 2018 §4.1, App. B.1; design.md §6):
// `make exp-classification`. Thin driver: command line -> checked config -> run folder ->
// the harness runner over the classification task's units -> report (recurlab_analyze).
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "experiments/classification/classification_config.h"
#include "experiments/classification/classification_task.h"
#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/data_parallel_launch.h"
#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
#include "experiments/training/data_parallel.h"
#include "models/registry.h"

namespace {

std::string defaultConfig() {
  const std::string relative = "configs/classification/quick.json";
  if (std::filesystem::exists(relative)) return relative;
  return std::string(RECURLAB_SOURCE_DIR) + "/" + relative;
}

// OpenBLAS's own thread pool inside LibTorch's intra-op threads oversubscribes the cores:
// measured on CR with a 2-core machine under load, epochs ran 3x (CNN) to 17x (LSTM) slower
// than with OpenBLAS single-threaded. The classifiers' GEMMs are small (batch 32), so OpenBLAS
// runs on one thread unless OPENBLAS_NUM_THREADS says otherwise.
void singleThreadedOpenBlas() {
  if (std::getenv("OPENBLAS_NUM_THREADS")) return;
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    set(1);
}

}  // namespace

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  using namespace recurlab::experiments;
  try {
    CommandLineSpec spec;
    spec.experiment = "classification";
    spec.description =
        "recurlab_classification: sentence classification on MR, CR, SUBJ, MPQA, TREC, SST-2 "
        "and SST-5 (Lei et al. 2018, §4.1 and App. B.1).\nThe default config is a quick run "
        "(one fold, one seed, few epochs); configs/classification/full.json\nis the paper's "
        "protocol (10 folds, 20-trial random search, 5 seeds). Kill it and run the same\n"
        "command (same --run-id) to resume, inside a unit from its last checkpoint; --shard i/n "
        "splits the units across processes.";
    spec.default_config = defaultConfig();
    auto cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\nModels (config key models.<name>.encoder):\n";
      for (const auto& name : recurlab::models::encoderNames())
        std::cout << "  " << name << ": " << recurlab::models::encoderDescription(name) << "\n";
      return 0;
    }
    singleThreadedOpenBlas();
    const int threads = recurlab::applyThreadCount(cl.threads);
    const auto config = ClassificationConfig::fromJson(cl.config);
    ClassificationTask task(config, cl.data_dir);
    task.checkData();
    int64_t in_shard = 0;
    for (size_t i = 0; i < task.units().size(); ++i) in_shard += cl.shard.owns(i) ? 1 : 0;
    std::cout << "config " << cl.config_file << ": " << config.datasets.size() << " datasets, "
              << config.models.size() << " models, " << task.units().size()
              << " units of work (" << in_shard << " in this shard), " << threads
              << " threads" << std::endl;

    if (wantsDataParallelLaunch(cl)) return launchDataParallel(argc, argv, cl);
    if (wantsLocalJobs(cl)) return runLocalJobs(argc, argv, cl);
    DataParallelGroup ranks(DataParallelOptions::fromEnvironment());

    RunFolder folder(rankRunFolder(cl.run_folder, ranks.rank(), ranks.worldSize()), cl.shard, cl.command_line, cl.config, config.seed,
                     recurlab::collectMachineInfo(), [&](const Hdf5RunLog& log) {
                       return unfinishedUnitGroups(task, cl.shard, log);
                     });
    RunnerOptions runner;
    runner.seed = static_cast<uint64_t>(config.seed);
    runner.data_parallel = &ranks;
    const auto report = runTask(task, folder, runner);
    folder.finish();  // the log is closed before the analysis reads it
    if (report.waiting > 0) {
      if (isLocalJobWorker()) return kExitUnitsWaiting;
      std::cout << report.waiting << " units wait for other shards' search trials: run this "
                << "shard again when they are done\n";
      return 0;
    }
    if (ranks.rank() > 0) return 0;  // rank 0 writes the report
    if (cl.shard.active()) {
      if (isLocalJobWorker()) return 0;  // the parent writes the report
      // The report merges every log of the folder, whichever one it is given.
      std::cout << "shard " << cl.shard.index << "/" << cl.shard.count << " done; once every "
                << "shard is done: recurlab_analyze " << folder.path() << "\n";
      return 0;
    }
    const int rc = folder.runAnalysis();
    if (rc == 0) std::cout << "report: " << folder.file("report.md") << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_classification: error: " << e.what() << "\n";
    return 2;
  }
}
