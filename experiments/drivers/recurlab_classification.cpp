// Text classification benchmark (seed 000 B.1, design.md §6): `make exp-classification`.
// Thin driver: command line -> checked config -> run folder and log -> units of work ->
// report (recurlab_analyze).
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "experiments/classification/classification_config.h"
#include "experiments/classification/classification_experiment.h"
#include "experiments/config/experiment_command_line.h"
#include "experiments/harness/run_log_folder.h"
#include "experiments/runtime/machine_info.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
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
    auto cl = parseExperimentCommandLine(
        argc, argv, "classification",
        "recurlab_classification: sentence classification on MR, CR, SUBJ, MPQA, TREC, SST-2 "
        "and SST-5 (seed 000 B.1).\nThe default config is a quick run (one fold, one seed, few "
        "epochs); configs/classification/full.json\nis the paper's protocol (10 folds, 20-trial "
        "random search, 5 seeds). Kill it and run the same\ncommand (same --run-id) to resume; "
        "--shard i/n splits the units across processes.",
        defaultConfig());
    if (cl.help) {
      std::cout << cl.help_text << "\nModels (config key models.<name>.encoder):\n";
      for (const auto& name : recurlab::models::encoderNames())
        std::cout << "  " << name << ": " << recurlab::models::encoderDescription(name) << "\n";
      return 0;
    }
    singleThreadedOpenBlas();
    const int threads = recurlab::applyThreadCount(cl.threads);
    const auto config = ClassificationConfig::fromJson(cl.config);
    ClassificationExperiment experiment(config, cl.data_dir, cl.shard);
    experiment.checkData();
    std::cout << "config " << cl.config_file << ": " << config.datasets.size() << " datasets, "
              << config.models.size() << " models, " << experiment.units().size()
              << " units of work (" << experiment.shardUnits().size() << " in this shard), "
              << threads << " threads" << std::endl;

    std::string folder;
    ClassificationRunReport report;
    {
      auto opened = openRunLog(cl, cl.config.dump(2), config.seed,
                               recurlab::collectMachineInfo(),
                               [&](const Hdf5RunLog& log) { return experiment.unfinishedGroups(log); });
      folder = opened.folder;
      report = experiment.run(opened.log, folder);
      opened.log.setAttribute("/", "end_time", utcTimestamp());
      opened.log.flush();
    }  // the log is closed before the analysis reads it
    if (report.waiting > 0) {
      std::cout << report.waiting << " units wait for other shards' search trials: run this "
                << "shard again when they are done\n";
      return 0;
    }
    if (cl.shard.active()) {
      // The report merges every log of the folder, whichever one it is given.
      std::cout << "shard " << cl.shard.index << "/" << cl.shard.count << " done; once every "
                << "shard is done: recurlab_analyze " << folder << "/" << runLogName(cl.shard)
                << "\n";
      return 0;
    }
    const int rc = runAnalysisTool(folder);
    if (rc == 0) std::cout << "report: " << folder << "/report.md\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "recurlab_classification: error: " << e.what() << "\n";
    return 2;
  }
}
