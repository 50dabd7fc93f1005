// The n-gram recurrence CUDA kernel against its CPU twin (kernels/cpu/ngram_recurrence):
// outputs and gradients for n = 1..4 and every option, float, double, half and bfloat16, long
// and odd-sized inputs. Skipped with a message without CUDA kernels or a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/ngram_recurrence.h"
#include "tests/kernels/cuda/cuda_test_support.h"


namespace recurlab::kernels {
namespace {

using recurlab::testing::KernelRun;
using recurlab::testing::runKernel;

struct NgramCase {
  int64_t length, batch, hidden, n;
  bool output_gate, with_c0, with_mask_pad;

  std::string name() const {
    return "L=" + std::to_string(length) + " B=" + std::to_string(batch) +
           " d=" + std::to_string(hidden) + " n=" + std::to_string(n) +
           (output_gate ? " gate" : "") + (with_c0 ? " c0" : "") +
           (with_mask_pad ? " mask_pad" : "");
  }
};

// Inputs [u, c0, mask_pad] and output gradients [dh, dlast_c], CPU float64.
struct NgramData {
  NgramRecurrenceOptions opt;
  std::vector<torch::Tensor> inputs, grad_outputs;
};

NgramData makeData(const NgramCase& c, uint64_t seed) {
  torch::manual_seed(seed);
  NgramData data;
  data.opt.hidden_size = c.hidden;
  data.opt.n = c.n;
  data.opt.output_gate = c.output_gate;
  const int64_t L = c.length, B = c.batch, d = c.hidden;
  const auto f64 = torch::TensorOptions().dtype(torch::kDouble);
  data.inputs = {torch::randn({L, B, d * data.opt.numMatrices()}, f64),
                 c.with_c0 ? torch::randn({B, c.n * d}, f64) : torch::Tensor(),
                 c.with_mask_pad ? recurlab::testing::randomPadMask(L, B) : torch::Tensor()};
  data.grad_outputs = {torch::randn({L, B, d}, f64), torch::randn({B, c.n * d}, f64)};
  return data;
}

KernelRun runOn(const NgramData& data, torch::Device device, torch::Dtype dtype) {
  const NgramRecurrenceOptions opt = data.opt;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return ngramRecurrence(in[0], in[1], in[2], opt);
  };
  return runKernel(kernel, data.inputs, {true, true, false}, data.grad_outputs, device, dtype);
}

const torch::Device kCuda(torch::kCUDA, 0);
const torch::Device kCpu(torch::kCPU);

// Float and double: the same expressions in the same order; only rounding differs.
TEST(NgramRecurrenceCudaTest, MatchesCpuKernelInFloatAndDoubleForEveryOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 3100;
  for (int64_t n = 1; n <= 4; ++n) {
    for (int flags = 0; flags < 8; ++flags) {
      const NgramCase c{9, 3, 37, n, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0};
      const NgramData data = makeData(c, seed++);
      recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kFloat),
                                         runOn(data, kCpu, torch::kFloat), 1e-5,
                                         c.name() + " f32");
      recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                         runOn(data, kCpu, torch::kDouble), 1e-12,
                                         c.name() + " f64");
    }
  }
}

// Half/bfloat16 against float on the same rounded inputs; state and sums in float, so the error
// is the rounding of what is stored: 10x the unit roundoff (4.9e-4, 3.9e-3), relative 2-norm.
TEST(NgramRecurrenceCudaTest, HalfAndBFloat16MatchFloat) {
  RECURLAB_REQUIRE_CUDA();
  for (const auto& [dtype, tol] :
       {std::pair{torch::kHalf, 5e-3}, std::pair{torch::kBFloat16, 4e-2}}) {
    uint64_t seed = 3200;
    for (const NgramCase& c : {NgramCase{64, 4, 37, 3, true, true, true},
                               NgramCase{64, 4, 37, 4, false, false, true}}) {
      NgramData data = makeData(c, seed++);
      recurlab::testing::roundFloatingThrough(data.inputs, dtype);
      recurlab::testing::roundFloatingThrough(data.grad_outputs, dtype);
      recurlab::testing::expectRunsCloseInNorm(runOn(data, kCuda, dtype),
                                               runOn(data, kCpu, torch::kFloat), tol,
                                               c.name() + " " + c10::toString(dtype));
    }
  }
}

// L = 4096 (long carry, chunk tails), batch 1 and units not a multiple of a warp.
TEST(NgramRecurrenceCudaTest, LongAndOddSizedInputsMatchCpuKernel) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 3300;
  for (const NgramCase& c : {NgramCase{4096, 2, 40, 3, true, true, true},
                             NgramCase{5, 1, 33, 4, true, true, true},
                             NgramCase{1, 1, 1, 2, false, true, false},
                             NgramCase{3, 130, 3, 1, true, false, true}}) {
    const NgramData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12, c.name());
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kFloat),
                                       runOn(data, kCpu, torch::kFloat), 1e-5, c.name());
  }
}

}  // namespace
}  // namespace recurlab::kernels
