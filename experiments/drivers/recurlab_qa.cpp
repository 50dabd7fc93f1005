// Question answering on SQuAD v1.1 with the DrQA document reader (Lei et al. 2018 §4.3 and
// App. B.2): `make exp-qa`. Thin driver: command line -> checked config -> data and protocol ->
// run folder (eval-data.json, predictions-<model>.json) -> the harness runner over one unit per
// model -> report (recurlab_analyze).
#include <iostream>

#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/data_parallel_launch.h"
#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/qa/qa_config.h"
#include "experiments/qa/qa_task.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
#include "models/registry.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  using namespace recurlab::experiments;
  using namespace recurlab::experiments::qa;
  try {
    CommandLineSpec spec;
    spec.experiment = "qa";
    spec.description =
        "recurlab_qa: SQuAD v1.1 question answering with the DrQA document reader (Chen et al. "
        "2017),\nparagraph and question encoders from the registry: SRU vs bi-LSTM as Lei et "
        "al. 2018, §4.3 and App. B.2.\nWith data/squad/train-v1.1.json the official protocol "
        "(train on train, score all of dev) runs;\nwithout it an offline protocol: a fixed, "
        "seeded, article-disjoint split of the dev file,\nNOT comparable with published "
        "numbers. Scores are the official v1.1 evaluator's EM and F1.\nconfigs/qa/quick.json "
        "(default) is a short offline run; configs/qa/squad.json the full protocol.\nKill it "
        "and run the same command (same --run-id) to resume from the last epoch checkpoint.";
    spec.default_config = defaultConfigFile("configs/qa/quick.json");
    auto cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\nEncoders (config key models.<name>.encoder):\n";
      std::cout << recurlab::models::encoderListing();
      return 0;
    }
    recurlab::singleThreadedOpenBlas();
    const int threads = recurlab::applyThreadCount(cl.threads);
    const auto config = QaConfig::fromJson(cl.config);
    QaTask task(config, cl.data_dir);
    task.loadData();
    const auto& split = task.split();
    std::cout << "config " << cl.config_file << ": protocol " << split.protocol
              << (split.protocol == "offline" ? " (article-disjoint split of dev-v1.1.json; not "
                                                "comparable with published numbers)" : "")
              << ", " << split.train.size() << " training and " << split.dev.size()
              << " dev questions, " << config.models.size() << " models, " << threads
              << " threads" << std::endl;

    refuseDataParallel(cl, "question answering");
    if (wantsLocalJobs(cl)) return runLocalJobs(argc, argv, cl);

    RunFolder folder(cl.run_folder, cl.shard, cl.command_line, cl.config, config.seed,
                     recurlab::collectMachineInfo(), [&](const Hdf5RunLog& log) {
                       return unfinishedUnitGroups(task, cl.shard, log);
                     });
    task.setRunDirectory(folder.path());
    task.writeEvalData(folder.path());
    folder.log().setAttribute("/", "protocol", split.protocol);
    RunnerOptions runner;
    runner.seed = static_cast<uint64_t>(config.seed);
    const auto report = runTask(task, folder, runner);
    folder.finish();
    if (const auto rc = exitBeforeReport(report, cl.shard, folder.path())) return *rc;
    const int rc = folder.runAnalysis();
    if (rc == 0) std::cout << "report: " << folder.file("report.md") << "\n";
    std::cout << "official evaluator: recurlab_squad_eval " << folder.file("eval-data.json") << " "
              << folder.file("predictions-<model>.json") << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_qa: error: " << e.what() << "\n";
    return 2;
  }
}
