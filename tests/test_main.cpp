// GoogleTest entry point: fixes OpenBLAS's core choice first, like every recurlab binary;
// `--toy-task ...` runs the toy task driver instead (a child of the SIGKILL tests).
#include <gtest/gtest.h>

#include <string>

#include "experiments/runtime/openblas_core.h"
#include "experiments/runtime/thread_count.h"
#include "tests/experiments/harness/toy_task.h"

int main(int argc, char** argv) {
  recurlab::ensureFastOpenBlas(argc, argv);
  // The SIGKILL tests run the toy task as a child process of this binary.
  if (argc > 1 && std::string(argv[1]) == "--toy-task")
    return recurlab::experiments::toyTaskMain(argc - 1, argv + 1);
  recurlab::applyThreadCount(0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
