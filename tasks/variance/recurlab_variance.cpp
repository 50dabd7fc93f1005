// recurlab_variance (`make exp-variance`): variance at initialization (docs/figures.md).
#include "experiments/harness/experiment_driver.h"
#include "tasks/variance/variance_task.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"variance",
      "recurlab_variance: variance propagation at initialization through a deep SRU (Lei et al. 2018,\n"
      "App. A and Fig. 6) and a gated-conv stack (Gehring et al. 2017, App. A). --data-dir: the folder with\n"
      "classification/rt-polarity.all (default: data, then ../shared/data); --embeddings adds the\n"
      "'pretrained' input."};
  spec.extra = [](boost::program_options::options_description& cli) {
    cli.add_options()("quick", "small sizes for a smoke run (keys not set otherwise)");
  };
  spec.execution = false;  // statistics at initialization: float32 on the CPU, no training
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return std::make_unique<VarianceTask>(cl);
  });
}
