// Text classification benchmark (Lei et al. 2018 §4.1, App. B.1; design.md §6):
// `make exp-classification`. Thin driver: command line -> checked config -> run folder ->
// the harness runner over the classification task's units -> report (recurlab_analyze).
#include <iostream>

#include "experiments/classification/classification_config.h"
#include "experiments/classification/classification_task.h"
#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/data_parallel_launch.h"
#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
#include "experiments/training/data_parallel.h"
#include "models/registry.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
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
    spec.default_config = defaultConfigFile("configs/classification/quick.json");
    auto cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\nModels (config key models.<name>.encoder):\n";
      std::cout << recurlab::models::encoderListing();
      return 0;
    }
    recurlab::singleThreadedOpenBlas();
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
    if (const auto rc = exitBeforeReport(report, cl.shard, folder.path())) return *rc;
    if (ranks.rank() > 0) return 0;  // rank 0 writes the report
    const int rc = folder.runAnalysis();
    if (rc == 0) std::cout << "report: " << folder.file("report.md") << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_classification: error: " << e.what() << "\n";
    return 2;
  }
}
