// recurlab_qa (`make exp-qa`): SQuAD v1.1, Lei et al. (2018), §4.3 and App. B.2 (docs/qa.md).
#include "experiments/harness/experiment_driver.h"
#include "tasks/qa/predict_command.h"
#include "tasks/qa/qa_task.h"
#include "models/registry.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"qa",
      "recurlab_qa: SQuAD v1.1 question answering with the DrQA document reader (Chen et al. 2017), SRU vs\n"
      "bi-LSTM encoders (Lei et al. 2018, §4.3 and App. B.2), scored by the official v1.1 evaluator's EM\n"
      "and F1. With data/squad/train-v1.1.json the official protocol runs; without it an offline one (a\n"
      "seeded, article-disjoint split of the dev file, NOT comparable with published numbers).\n"
      "configs/qa/quick.json (default) is a short offline run, configs/qa/squad.json the full protocol.",
      "configs/qa/quick.json", recurlab::models::encoderListing};
  spec.commands = {qa::qaPredictCommand()};
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return std::make_unique<qa::QaTask>(qa::QaConfig::fromJson(cl.config), cl.data_dir);
  });
}
