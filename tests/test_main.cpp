// GoogleTest entry point: fixes OpenBLAS's core choice first, like every recurlab binary.
#include <gtest/gtest.h>

#include "common/runtime/crash_report.h"
#include "common/runtime/heap_policy.h"
#include "common/runtime/openblas_core.h"
#include "common/runtime/thread_count.h"

int main(int argc, char** argv) {
  recurlab::reportFatalSignals();
  recurlab::ensureFastOpenBlas(argc, argv);
  recurlab::retainFreedHeapMemory();
  recurlab::applyThreadCount(0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
