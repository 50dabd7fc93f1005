#include "common/runtime/openblas_core.h"
#include "common/runtime/torch_build.h"
#include "tests/support/required.h"

#include <gtest/gtest.h>

namespace recurlab {
namespace {

TEST(OpenBlasCore, FixedCoreIsNotTheGenericFallbackOnAvxMachines) {
  // The test binary's main() ran ensureFastOpenBlas(), like every recurlab binary.
  // Debian's LibTorch calls whatever libblas is installed ("generic"), which must be OpenBLAS;
  // PyTorch's wheels (the LibTorch of GPU machines) bring MKL: nothing to fix there.
  const std::string blas = torchBlasLibrary();
  RECURLAB_SKIP_NOT_THIS_BUILD(blas == "generic" || blas == "open"
                                   ? ""
                                   : "LibTorch " + torchVersion() + " is built with BLAS '" +
                                         blas + "', not OpenBLAS");
  const std::string core = openBlasCoreName();
  ASSERT_NE(core, "unavailable") << "LibTorch is not using OpenBLAS (libopenblas0-pthread)";
  RECURLAB_SKIP_NOT_THIS_BUILD(preferredOpenBlasCore().empty() ? "CPU has neither AVX2 nor AVX-512" : "");
  EXPECT_FALSE(isGenericOpenBlasCore(core)) << "OpenBLAS still runs its generic core " << core;
}

TEST(OpenBlasCore, ThreadsSetAreThreadsRead) {
  RECURLAB_SKIP_NOT_THIS_BUILD(openBlasThreads() == 0 ? "the BLAS is not OpenBLAS" : "");
  const int before = openBlasThreads();
  setOpenBlasThreads(2);
  EXPECT_EQ(openBlasThreads(), 2);
  setOpenBlasThreads(1);
  EXPECT_EQ(openBlasThreads(), 1);
  setOpenBlasThreads(before);
}

TEST(TorchBuild, NamesItsBlasAndVersion) {
  EXPECT_FALSE(torchBlasLibrary().empty());
  EXPECT_EQ(torchVersion().find('.') != std::string::npos, true) << torchVersion();
}

TEST(OpenBlasCore, ClassifiesCoreNames) {
  EXPECT_TRUE(isGenericOpenBlasCore("Prescott"));
  EXPECT_TRUE(isGenericOpenBlasCore("Core2"));
  EXPECT_FALSE(isGenericOpenBlasCore("SkylakeX"));
  EXPECT_FALSE(isGenericOpenBlasCore("Haswell"));
}

}  // namespace
}  // namespace recurlab
