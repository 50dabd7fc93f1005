// recurlab_classification (`make exp-classification`): Lei et al. (2018), §4.1 and App. B.1.
#include "tasks/classification/classification_task.h"
#include "tasks/classification/classify_command.h"
#include "experiments/harness/experiment_driver.h"
#include "models/registry.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"classification",
      "recurlab_classification: sentence classification on MR, CR, SUBJ, MPQA, TREC, SST-2 and SST-5 (Lei et\n"
      "al. 2018, §4.1 and App. B.1). The default config is a quick run (one fold, one seed, few epochs);\n"
      "configs/classification/full.json is the paper's protocol (10 folds, 20-trial random search, 5\n"
      "seeds). Kill it and run the same command (same --run-id) to resume, inside a unit from its last\n"
      "checkpoint; --shard i/n splits the units across processes (docs/classification.md).",
      "configs/classification/quick.json", recurlab::models::encoderListing};
  spec.commands = {classifyCommand()};
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return std::make_unique<ClassificationTask>(ClassificationConfig::fromJson(cl.config), cl.data_dir);
  });
}
