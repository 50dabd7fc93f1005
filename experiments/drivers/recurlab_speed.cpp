// recurlab_speed (make exp-speed): forward+backward time per layer, side by side (issues 3 and 6).
#include "experiments/runtime/openblas_core.h"
#include "experiments/speed/speed_experiment.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  return recurlab::experiments::runSpeedExperiment(argc, argv);
}
