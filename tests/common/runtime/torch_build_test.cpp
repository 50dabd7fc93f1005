// What torch_build.h asks of each LibTorch: here the TF32 switch for CUDA float32 arithmetic,
// which works as a setting without a GPU: a scope sets it and puts back what it found, nested
// scopes included.
#include <gtest/gtest.h>

#include "common/runtime/torch_build.h"

namespace recurlab {
namespace {

TEST(CudaTf32Scope, AllowsTf32ForItsScopeAndRestoresTheSettingItFound) {
  const bool before = cudaMatmulTf32Allowed();
  {
    CudaTf32Scope tf32(true);
    EXPECT_TRUE(cudaMatmulTf32Allowed());
    {
      CudaTf32Scope ieee(false);
      EXPECT_FALSE(cudaMatmulTf32Allowed());
    }
    EXPECT_TRUE(cudaMatmulTf32Allowed());
  }
  EXPECT_EQ(cudaMatmulTf32Allowed(), before);
  {
    CudaTf32Scope ieee(false);
    EXPECT_FALSE(cudaMatmulTf32Allowed());
  }
  EXPECT_EQ(cudaMatmulTf32Allowed(), before);
}

}  // namespace
}  // namespace recurlab
