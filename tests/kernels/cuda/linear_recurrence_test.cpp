// The linear recurrence CUDA kernels: outputs and gradients on both paths (walk, chunked scan),
// long and odd-sized inputs. In double against their CPU twin (kernels/cpu/linear_recurrence) to
// 1e-12; in float, half and bfloat16 against the naive reference in double, each element within
// its rounding-error bound (cuda_test_support.h). Skipped with a message without CUDA kernels or
// a GPU; the host emulation (emulated_kernels_test.cpp) runs the same kernels' code on the CPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/linear_recurrence.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::kernels {
namespace {

using recurlab::testing::KernelRun;
using recurlab::testing::runKernel;

struct LinearCase {
  int64_t length, batch, hidden;
  bool bidirectional, with_h0, with_mask_pad;
  int64_t chunk_length;

  std::string name() const {
    return "L=" + std::to_string(length) + " B=" + std::to_string(batch) +
           " d=" + std::to_string(hidden) + (bidirectional ? " bidirectional" : "") +
           (with_h0 ? " h0" : "") + (with_mask_pad ? " mask_pad" : "") + " chunk " +
           std::to_string(chunk_length);
  }
};

struct LinearData {
  LinearRecurrenceOptions opt;
  std::vector<torch::Tensor> inputs, grad_outputs;  // [a, b, h0, mask_pad], [dh, dlast_h]
};

LinearData makeData(const LinearCase& c, uint64_t seed) {
  torch::manual_seed(seed);
  LinearData data;
  data.opt = {c.hidden, c.bidirectional, c.chunk_length};
  const int64_t L = c.length, B = c.batch, out = data.opt.outputSize();
  const auto f64 = torch::TensorOptions().dtype(torch::kDouble);
  data.inputs = {torch::sigmoid(torch::randn({L, B, out}, f64) * 2 + 1),
                 torch::randn({L, B, out}, f64),
                 c.with_h0 ? torch::randn({B, out}, f64) : torch::Tensor(),
                 c.with_mask_pad ? recurlab::testing::randomPadMask(L, B) : torch::Tensor()};
  data.grad_outputs = {torch::randn({L, B, out}, f64), torch::randn({B, out}, f64)};
  return data;
}

KernelRun runOn(const LinearData& data, torch::Device device, torch::Dtype dtype,
                int64_t chunk_length) {
  LinearRecurrenceOptions opt = data.opt;
  opt.chunk_length = chunk_length;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return linearRecurrence(in[0], in[1], in[2], in[3], opt);
  };
  return runKernel(kernel, data.inputs, {true, true, true, false}, data.grad_outputs, device,
                   dtype);
}

const torch::Device kCuda(torch::kCUDA, 0);
const torch::Device kCpu(torch::kCPU);

// The kernel in `dtype` (float, half, bfloat16) on the GPU against the naive reference in double.
void expectWithinRoundingBounds(const LinearData& data, const LinearCase& c, torch::Dtype dtype) {
  LinearRecurrenceOptions opt = data.opt;
  opt.chunk_length = c.chunk_length;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return linearRecurrence(in[0], in[1], in[2], in[3], opt);
  };
  auto reference = [&](const std::vector<torch::Tensor>& in) {
    return linearRecurrenceReference(in[0], in[1], in[2], in[3], opt);
  };
  recurlab::testing::expectKernelWithinRoundingBounds(
      kernel, reference, data.inputs, {true, true, true, false}, data.grad_outputs, {}, kCuda,
      dtype, c.length, c.batch, c.name());
}

// Every path and option: double against the CPU's sequential walk, the narrower types against
// the naive reference within their bounds.
TEST(LinearRecurrenceCudaTest, MatchesReferencesOnEveryPathAndOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1400;
  for (bool bidirectional : {false, true})
    for (int flags = 0; flags < 4; ++flags)
      for (int64_t chunk : {kSequentialWalk, int64_t{1}, int64_t{5}, int64_t{40}}) {
        const LinearCase c{23, 3, 37, bidirectional, (flags & 1) != 0, (flags & 2) != 0, chunk};
        const LinearData data = makeData(c, seed++);
        recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble, chunk),
                                           runOn(data, kCpu, torch::kDouble, kSequentialWalk),
                                           1e-12, c.name() + " f64");
        for (torch::Dtype dtype : {torch::kFloat, torch::kHalf, torch::kBFloat16})
          expectWithinRoundingBounds(data, c, dtype);
      }
}

// L = 4096 with few columns (the shape rule's chunked scan), batch 1, odd sizes.
TEST(LinearRecurrenceCudaTest, LongAndOddSizedInputsMatchReferences) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1600;
  for (const LinearCase& c : {LinearCase{4096, 2, 40, false, true, true, kChunkLengthByShape},
                              LinearCase{5, 1, 33, true, true, true, kChunkLengthByShape},
                              LinearCase{1, 1, 1, false, true, false, int64_t{3}},
                              LinearCase{3, 130, 3, true, false, true, kChunkLengthByShape}}) {
    const LinearData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble, c.chunk_length),
                                       runOn(data, kCpu, torch::kDouble, kSequentialWalk), 1e-12,
                                       c.name());
    for (torch::Dtype dtype : {torch::kFloat, torch::kHalf, torch::kBFloat16})
      expectWithinRoundingBounds(data, c, dtype);
  }
}

}  // namespace
}  // namespace recurlab::kernels
