// recurlab_synthetic (`make exp-synthetic`): the synthetic capability suite (docs/synthetic.md).
#include "experiments/harness/experiment_driver.h"
#include "models/registry.h"
#include "tasks/synthetic/evaluate_command.h"
#include "tasks/synthetic/synthetic_task.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"synthetic",
      "recurlab_synthetic: what each sequence mixer can recall and track: multi-query associative recall\n"
      "(Arora et al. 2023), selective copying (Gu and Dao 2023), induction heads (Olsson et al. 2022),\n"
      "parity, cycle navigation, modular arithmetic with brackets and majority (Deletang et al. 2023),\n"
      "data drawn from the seed, every registered encoder at several widths over a learning-rate grid\n"
      "and seeds. The default config is a quick CPU run; configs/synthetic/full.json is the full suite.\n"
      "Kill it and run the same command (same --run-id) to resume (docs/synthetic.md). With\n"
      "keep_model, `recurlab_synthetic evaluate --model DIR` scores a kept model at any length.",
      "configs/synthetic/quick.json", recurlab::models::encoderListing};
  spec.embeddings = false;  // tokens of the task's own vocabulary
  spec.commands = {evaluateCommand()};
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return std::make_unique<SyntheticTask>(SyntheticConfig::fromJson(cl.config));
  });
}
