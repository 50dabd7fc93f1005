// Gated linear attention on a GPU. The op has no CUDA kernel of its own: there it runs LibTorch
// ops, in chunks of kGlaGpuChunkLength by default or step by step, which the CPU suite covers
// on the CPU only. In double against the naive reference on the CPU (1e-11, as on the CPU); in
// float, TF32 off, each element within the rounding bound of
// tests/kernels/gated_linear_attention_bounds.h, on the CPU suite's shape and on a longer,
// wider one; bfloat16 q, k, v with a float32 gate and state (autocast's mix) computed in
// float32. Skipped with a message without a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/runtime/torch_build.h"
#include "kernels/gated_linear_attention.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/kernels/gated_linear_attention_bounds.h"

namespace recurlab::kernels {
namespace {

using recurlab::testing::KernelRun;
namespace gla = recurlab::testing::gla;
using torch::Tensor;

const torch::Device kCuda(torch::kCUDA, 0);

// By device (what the layer runs on a GPU), step by step, and explicit chunks: of 1, of 10 (not
// a divisor of 37), the whole sequence, and longer than it.
std::vector<int64_t> cudaChunkLengths(int64_t L) {
  return {kGlaChunkLengthByDevice, kGlaStepByStep, 1, 10, L, 64};
}

std::string chunkName(int64_t chunk) {
  if (chunk == kGlaChunkLengthByDevice) return "by device";
  if (chunk == kGlaStepByStep) return "step by step";
  return "chunk " + std::to_string(chunk);
}

TEST(GatedLinearAttentionCudaTest, DoubleMatchesTheReferenceForEveryChunkLength) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1;
  for (const gla::Case& c : gla::everyOption(37, 3, 2, 5, 3)) {
    const gla::Data data = gla::makeData(c, seed++);
    const KernelRun want = gla::runReference(data);
    for (int64_t chunk : cudaChunkLengths(c.L))
      recurlab::testing::expectRunsClose(gla::runOp(data, kCuda, torch::kDouble, {chunk}), want,
                                         1e-11, c.name() + " " + chunkName(chunk));
  }
}

TEST(GatedLinearAttentionCudaTest, FloatIsWithinRoundingBoundsOfTheDoubleReference) {
  RECURLAB_REQUIRE_CUDA();
  const CudaTf32Scope exact_float32(false);  // the bound is float32's
  std::vector<gla::Case> cases = gla::everyOption(37, 3, 2, 8, 5);
  cases.push_back({160, 2, 2, 16, 16, true, true});  // ten chunks by device, wider heads
  uint64_t seed = 100;
  for (const gla::Case& c : cases) {
    const gla::Data data = gla::makeData(c, seed++);
    const KernelRun exact = gla::runReference(data);
    const KernelRun magnitude = gla::runMagnitudes(data);
    for (int64_t chunk : cudaChunkLengths(c.L)) {
      const int64_t bounded_as = chunk == kGlaChunkLengthByDevice ? kGlaGpuChunkLength : chunk;
      gla::expectWithinBounds(gla::runOp(data, kCuda, torch::kFloat, {chunk}), exact, magnitude,
                              gla::outputRoundings(c, data, bounded_as),
                              c.name() + " " + chunkName(chunk));
    }
  }
}

// Under autocast q, k, v arrive in bfloat16 and the gate and a carried state in float32: o comes
// back in bfloat16, the float32 result rounded once (relative 2^-8), and the state in float32,
// the float32 run's.
TEST(GatedLinearAttentionCudaTest, BFloat16InputsWithAFloat32GateAndStateComputeInFloat32) {
  RECURLAB_REQUIRE_CUDA();
  const CudaTf32Scope exact_float32(false);
  const gla::Data data = gla::makeData({40, 2, 2, 8, 4, true, true}, 41);
  const auto& in = data.inputs;
  const auto bf16 = [](const Tensor& t) { return t.to(kCuda, torch::kBFloat16); };
  const auto f32 = [](const Tensor& t) { return t.to(kCuda, torch::kFloat); };
  const Tensor pad = in[5].to(kCuda);
  for (int64_t chunk : {kGlaChunkLengthByDevice, kGlaStepByStep}) {
    const std::vector<Tensor> mixed = gatedLinearAttention(
        bf16(in[0]), bf16(in[1]), bf16(in[2]), f32(in[3]), f32(in[4]), pad, {chunk});
    const std::vector<Tensor> exact =
        gatedLinearAttention(f32(bf16(in[0])), f32(bf16(in[1])), f32(bf16(in[2])), f32(in[3]),
                             f32(in[4]), pad, {chunk});
    const std::string label = chunkName(chunk);
    EXPECT_EQ(mixed[0].scalar_type(), torch::kBFloat16) << label;
    EXPECT_EQ(mixed[1].scalar_type(), torch::kFloat) << label;
    EXPECT_TRUE(recurlab::testing::allClose(mixed[0], exact[0], 1e-30, std::ldexp(1.0, -8),
                                            label + " o"));
    EXPECT_TRUE(recurlab::testing::allClose(mixed[1], exact[1], 1e-6, 1e-6, label + " state"));
  }
}

}  // namespace
}  // namespace recurlab::kernels
