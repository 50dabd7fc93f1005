// Language modelling (Lei et al. 2018 App. B.4; Peng et al. 2018 App. E.2): `make exp-lm`.
// Thin driver: command line -> checked config -> run folder -> the harness runner over one
// unit per model -> report (recurlab_analyze), whose table is printed at the end.

#include <fstream>
#include <iostream>

#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/data_parallel_launch.h"
#include "experiments/harness/local_jobs.h"
#include "experiments/harness/run_folder.h"
#include "experiments/harness/runner.h"
#include "experiments/lm/lm_config.h"
#include "experiments/lm/lm_task.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
#include "models/registry.h"

namespace {

// The report's first table (results), printed for the terminal.
void printResultTable(const std::string& report) {
  std::ifstream in(report);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("| model", 0) == 0) inside = true;
    if (inside && line.rfind("|", 0) != 0) break;
    if (inside) std::cout << line << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  using namespace recurlab::experiments;
  try {
    CommandLineSpec spec;
    spec.experiment = "lm";
    spec.description =
        "recurlab_lm: language modelling by truncated BPTT on PTB char (bits per character), PTB "
        "word (perplexity),\nenwik8 (bits per byte) or any text corpus, every model sized to one "
        "parameter budget (Lei et al. 2018,\nApp. B.4; Peng et al. 2018, App. E.2). The default "
        "config is a quick PTB-char run (SRU vs QRNN vs LSTM);\nconfigs/lm/ holds ptb-char, "
        "ptb-word and enwik8. Kill it and run the same command (same --run-id)\nto resume, "
        "inside an epoch from its last checkpoint.";
    spec.default_config = defaultConfigFile("configs/lm/quick.json");
    auto cl = parseExperimentCommandLine(argc, argv, spec);
    if (cl.help) {
      std::cout << cl.help_text << "\nModels (config key models.<name>.encoder; causal ones only):\n";
      std::cout << recurlab::models::encoderListing();
      return 0;
    }
    recurlab::singleThreadedOpenBlas();
    const int threads = recurlab::applyThreadCount(cl.threads);
    const auto config = LmConfig::fromJson(cl.config);
    LmTask task(config, cl.data_dir);
    const auto& corpus = task.corpus();
    std::cout << "config " << cl.config_file << ": corpus " << config.corpus.name << " ("
              << corpus.train.size() << " / " << corpus.valid.size() << " / " << corpus.test.size()
              << " symbols, vocabulary " << corpus.size() << "), " << config.models.size()
              << " models, budget " << config.budget << " parameters, " << threads << " threads"
              << std::endl;
    refuseDataParallel(cl, "language modelling");
    if (wantsLocalJobs(cl)) return runLocalJobs(argc, argv, cl);

    RunFolder folder(cl.run_folder, cl.shard, cl.command_line, cl.config, config.seed,
                     recurlab::collectMachineInfo(), [&](const Hdf5RunLog& log) {
                       return unfinishedUnitGroups(task, cl.shard, log);
                     });
    RunnerOptions runner;
    runner.seed = static_cast<uint64_t>(config.seed);
    const auto report = runTask(task, folder, runner);
    folder.finish();
    if (const auto rc = exitBeforeReport(report, cl.shard, folder.path())) return *rc;
    const int rc = folder.runAnalysis();
    if (rc == 0) {
      printResultTable(folder.file("report.md"));
      std::cout << "report: " << folder.file("report.md") << "\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_lm: error: " << e.what() << "\n";
    return 2;
  }
}
