#pragma once
// The one way a test skips. A test that needs something from outside the code (a dataset, a
// library, a tool) skips without it on a user's machine, and fails instead where
// RECURLAB_REQUIRE_ALL_TESTS=1 (set by .ci/run): CI cannot go green on tests that never ran.
// Two kinds of skip stay skips there:
// - the CUDA-device tests (tests/kernels/cuda/cuda_test_support.h: no GPU on CI's machines);
// - RECURLAB_SKIP_NOT_THIS_BUILD: a test of a LibTorch build option this LibTorch does not have
//   (OpenBLAS under PyTorch's MKL wheel, a CPU-only behaviour under a CUDA LibTorch).
// Every skip prints "recurlab skip: <reason>" on stdout, the line scripts/ctest-skips.sh puts in
// the summary after ctest's list of tests that did not run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace recurlab::testing {

// RECURLAB_REQUIRE_ALL_TESTS is set to 1: a missing dataset, library or tool fails its test.
inline bool allTestsRequired() {
  const char* value = std::getenv("RECURLAB_REQUIRE_ALL_TESTS");
  return value != nullptr && std::string(value) == "1";
}

// The line scripts/ctest-skips.sh reads: `kind` (missing, not this build, no CUDA device) and
// the reason.
inline void announceSkip(const std::string& kind, const std::string& reason) {
  std::cout << "recurlab skip: " << kind << ": " << reason << std::endl;
}

}  // namespace recurlab::testing

// Skips the test when `why_missing` (an expression giving a std::string: empty when what the test
// needs is there, else what is missing and how to get it) is not empty; under
// RECURLAB_REQUIRE_ALL_TESTS=1 fails it instead. Returns from the calling (void) function.
#define RECURLAB_REQUIRE_OR_SKIP(why_missing)                                                   \
  do {                                                                                          \
    const std::string recurlab_missing = (why_missing);                                         \
    if (!recurlab_missing.empty()) {                                                            \
      if (::recurlab::testing::allTestsRequired())                                              \
        GTEST_FAIL() << "RECURLAB_REQUIRE_ALL_TESTS=1, and this test cannot run: "              \
                     << recurlab_missing;                                                       \
      ::recurlab::testing::announceSkip("missing", recurlab_missing);                           \
      GTEST_SKIP() << recurlab_missing;                                                         \
    }                                                                                           \
  } while (0)

// Skips the test (under RECURLAB_REQUIRE_ALL_TESTS too) when `why_not_this_build` is not empty:
// the test is of a build option this LibTorch lacks (see the header's comment).
#define RECURLAB_SKIP_NOT_THIS_BUILD(why_not_this_build)                                        \
  do {                                                                                          \
    const std::string recurlab_not_here = (why_not_this_build);                                 \
    if (!recurlab_not_here.empty()) {                                                           \
      ::recurlab::testing::announceSkip("not this build", recurlab_not_here);                   \
      GTEST_SKIP() << recurlab_not_here;                                                        \
    }                                                                                           \
  } while (0)
