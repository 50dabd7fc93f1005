// recurlab_toy_task: the toy task of toy_task.h as a program, for the SIGKILL tests (built with
// the tests, not installed as an experiment). A new task needs no more than this: a config, a
// Task (toy_task.cpp) and a spec for the one driver.
#include "experiments/harness/experiment_driver.h"
#include "tests/experiments/harness/toy_task.h"

int main(int argc, char** argv) {
  using namespace recurlab::experiments;
  DriverSpec spec{"toy", "recurlab_toy_task: toy sequence regression", ""};
  spec.measure_machine = false;
  spec.progress = false;
  return runExperiment(argc, argv, spec, [](const ExperimentCommandLine& cl) {
    return makeToyTask(cl.config);
  });
}
