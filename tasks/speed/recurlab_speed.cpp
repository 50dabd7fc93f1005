// recurlab_speed (`make exp-speed`): forward+backward time per layer, side by side (docs/gpu.md).
#include "experiments/harness/experiment_driver.h"
#include "tasks/speed/speed_task.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  SpeedOptions options;
  DriverSpec spec{"speed",
      "recurlab_speed: forward+backward time per layer, every model side by side in one run (round-robin,\n"
      "warm-up excluded, median and spread over repetitions); one unit per shape, resumed after a kill."};
  spec.extra = [&](boost::program_options::options_description& cli) { addSpeedOptions(cli, options); };
  spec.embeddings = false;
  spec.execution = false;  // its own --device (speed_task.h); float32 timings
  return runExperiment(argc, argv, spec, [&](const ExperimentCommandLine& cl) {
    return std::make_unique<SpeedTask>(options, cl);
  });
}
