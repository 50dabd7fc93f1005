// A fatal signal prints the signal and the stack, then ends the process as the signal would.
#include "common/runtime/crash_report.h"

#include <gtest/gtest.h>

#include <csignal>

namespace recurlab {
namespace {

[[gnu::noipa]] void dereference(volatile int* p) { *p = 1; }

TEST(CrashReportDeathTest, SegfaultPrintsTheStackAndStillDiesOfTheSignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        reportFatalSignals();
        dereference(nullptr);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "recurlab: fatal signal 11 \\(Segmentation fault\\) in process [0-9]+, address 0x0; "
      "stack \\(addr2line -f -C -e MODULE OFFSET\\):\n  #0 .*recurlab_tests\\+0x[0-9a-f]+");
}

TEST(CrashReportDeathTest, AbortIsReportedWithoutAnAddress) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        reportFatalSignals();
        std::raise(SIGABRT);
      },
      ::testing::KilledBySignal(SIGABRT), "recurlab: fatal signal 6 \\(Aborted\\) in process [0-9]+; stack");
}

}  // namespace
}  // namespace recurlab
