#include "experiments/runtime/openblas_core.h"

#include <gtest/gtest.h>

namespace recurlab {
namespace {

TEST(OpenBlasCore, FixedCoreIsNotTheGenericFallbackOnAvxMachines) {
  // The test binary's main() ran ensureFastOpenBlas(), like every recurlab binary.
  const std::string core = openBlasCoreName();
  ASSERT_NE(core, "unavailable") << "LibTorch is not using OpenBLAS (libopenblas0-pthread)";
  if (preferredOpenBlasCore().empty()) GTEST_SKIP() << "CPU has neither AVX2 nor AVX-512";
  EXPECT_FALSE(isGenericOpenBlasCore(core)) << "OpenBLAS still runs its generic core " << core;
}

TEST(OpenBlasCore, ClassifiesCoreNames) {
  EXPECT_TRUE(isGenericOpenBlasCore("Prescott"));
  EXPECT_TRUE(isGenericOpenBlasCore("Core2"));
  EXPECT_FALSE(isGenericOpenBlasCore("SkylakeX"));
  EXPECT_FALSE(isGenericOpenBlasCore("Haswell"));
}

}  // namespace
}  // namespace recurlab
