// recurlab_variance (make exp-variance): variance propagation at initialization (issue 3).
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "experiments/variance/variance_experiment.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  return recurlab::experiments::runVarianceExperiment(argc, argv);
}
