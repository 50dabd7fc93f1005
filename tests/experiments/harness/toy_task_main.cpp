// recurlab_toy_task: the toy task of toy_task.h as a program, for the SIGKILL tests (built with
// the tests, not installed as an experiment).
#include "experiments/runtime/heap_policy.h"
#include "experiments/runtime/openblas_core.h"
#include "tests/experiments/harness/toy_task.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  return recurlab::experiments::toyTaskMain(argc, argv);
}
