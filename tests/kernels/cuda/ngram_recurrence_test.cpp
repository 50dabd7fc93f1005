// The n-gram recurrence CUDA kernel: outputs and gradients for n = 1..4 and every option, long
// and odd-sized inputs. In double against its CPU twin (kernels/cpu/ngram_recurrence) to 1e-12;
// in float, half and bfloat16 against the naive reference in double, each element within its
// rounding-error bound (cuda_test_support.h). Skipped with a message without CUDA kernels or a
// GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/ngram_recurrence.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/naive_recurrences.h"

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

// The kernel in `dtype` (float, half, bfloat16) against the naive reference in double.
void expectWithinRoundingBounds(const NgramData& data, const NgramCase& c, torch::Dtype dtype) {
  const NgramRecurrenceOptions opt = data.opt;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return ngramRecurrence(in[0], in[1], in[2], opt);
  };
  auto reference = [&](const std::vector<torch::Tensor>& in) {
    return ngramRecurrenceReference(in[0], in[1], in[2], opt);
  };
  recurlab::testing::expectKernelWithinRoundingBounds(
      kernel, reference, data.inputs, {true, true, false}, data.grad_outputs, {},
      torch::Device(torch::kCUDA, 0), dtype, c.length, c.batch, c.name());
}

const torch::Device kCuda(torch::kCUDA, 0);
const torch::Device kCpu(torch::kCPU);

// Double against the CPU kernel (the same expressions in the same order); float within the
// rounding bounds of the exact result.
TEST(NgramRecurrenceCudaTest, MatchesReferencesInFloatAndDoubleForEveryOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 3100;
  for (int64_t n = 1; n <= 4; ++n) {
    for (int flags = 0; flags < 8; ++flags) {
      const NgramCase c{9, 3, 37, n, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0};
      const NgramData data = makeData(c, seed++);
      expectWithinRoundingBounds(data, c, torch::kFloat);
      recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                         runOn(data, kCpu, torch::kDouble), 1e-12,
                                         c.name() + " f64");
    }
  }
}

// Half/bfloat16: state and sums in float, stored values rounded (cuda_test_support.h). L = 16
// keeps the backward's bound, which grows with L·u, below the values in bfloat16.
TEST(NgramRecurrenceCudaTest, HalfAndBFloat16WithinRoundingBounds) {
  RECURLAB_REQUIRE_CUDA();
  for (torch::Dtype dtype : {torch::kHalf, torch::kBFloat16}) {
    uint64_t seed = 3200;
    for (const NgramCase& c : {NgramCase{16, 4, 37, 3, true, true, true},
                               NgramCase{16, 4, 37, 4, false, false, true}})
      expectWithinRoundingBounds(makeData(c, seed++), c, dtype);
  }
}

// L = 4096 (long carry, chunk tails), batch 1 and units not a multiple of a warp.
TEST(NgramRecurrenceCudaTest, LongAndOddSizedInputsMatchReferences) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 3300;
  for (const NgramCase& c : {NgramCase{4096, 2, 40, 3, true, true, true},
                             NgramCase{5, 1, 33, 4, true, true, true},
                             NgramCase{1, 1, 1, 2, false, true, false},
                             NgramCase{3, 130, 3, 1, true, false, true}}) {
    const NgramData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12, c.name());
    expectWithinRoundingBounds(data, c, torch::kFloat);
  }
}

}  // namespace
}  // namespace recurlab::kernels
