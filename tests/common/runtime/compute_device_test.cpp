// --device resolution: cpu and auto on a machine without CUDA, malformed values named, and a CUDA
// request on a CPU-only LibTorch refused at once in one line that names the LibTorch found and
// how to build with a CUDA one.
#include "common/runtime/compute_device.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <stdexcept>
#include <string>

#include "common/runtime/torch_build.h"
#include "tests/support/required.h"

namespace recurlab {
namespace {

std::string errorOf(const std::string& requested) {
  try {
    resolveComputeDevice(requested, "--device");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ComputeDevice, CpuAndAutoResolve) {
  EXPECT_EQ(resolveComputeDevice("cpu", "--device"), "cpu");
  const bool gpu = torchBuiltWithCuda() && torch::cuda::device_count() > 0;
  EXPECT_EQ(resolveComputeDevice("auto", "--device"), gpu ? "cuda:0" : "cpu");
  EXPECT_FALSE(isCudaDevice("cpu"));
  EXPECT_TRUE(isCudaDevice("cuda:1"));
}

TEST(ComputeDevice, MalformedValuesAreNamed) {
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "CPU", ""}) {
    const auto e = errorOf(bad);
    EXPECT_NE(e.find(std::string("--device ") + bad + ": expected cpu, cuda, cuda:N"),
              std::string::npos) << e;
  }
}

TEST(ComputeDevice, ACudaRequestOnACpuOnlyLibTorchIsOneLineNamingIt) {
  RECURLAB_SKIP_NOT_THIS_BUILD(torchBuiltWithCuda() ? "this LibTorch has CUDA" : "");
  for (const char* cuda : {"cuda", "cuda:0", "cuda:3"}) {
    const auto e = errorOf(cuda);
    EXPECT_NE(e.find("LibTorch " + torchVersion() + ", CPU-only"), std::string::npos) << e;
    EXPECT_NE(e.find("docs/gpu.md"), std::string::npos) << e;
    EXPECT_NE(e.find("CMAKE_PREFIX_PATH"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace recurlab
