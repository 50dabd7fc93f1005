// recurlab_speed (make exp-speed): forward+backward time per layer, side by side (issues 3 and 6).
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/speed/speed_experiment.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  return recurlab::experiments::runSpeedExperiment(argc, argv);
}
