// The QRNN pooling CUDA kernel: outputs and gradients for every option, long and odd-sized
// inputs. In double against its CPU twin (kernels/cpu/qrnn_pooling) to 1e-12; in float, half and
// bfloat16 against the naive reference in double, each element within its rounding-error bound
// (cuda_test_support.h). Skipped with a message without CUDA kernels or a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/qrnn_pooling.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::kernels {
namespace {

using recurlab::testing::KernelRun;
using recurlab::testing::runKernel;

struct QrnnCase {
  int64_t length, batch, hidden;
  bool output_gate, with_c0, with_zoneout, with_mask_pad;

  std::string name() const {
    return "L=" + std::to_string(length) + " B=" + std::to_string(batch) +
           " d=" + std::to_string(hidden) + (output_gate ? " fo" : " f") +
           (with_c0 ? " c0" : "") + (with_zoneout ? " zoneout" : "") +
           (with_mask_pad ? " mask_pad" : "");
  }
};

// Inputs [u, c0, zoneout, mask_pad] and output gradients [dh, dlast_c], CPU float64.
struct QrnnData {
  QrnnPoolingOptions opt;
  std::vector<torch::Tensor> inputs, grad_outputs;
};

QrnnData makeData(const QrnnCase& c, uint64_t seed) {
  torch::manual_seed(seed);
  QrnnData data;
  data.opt.hidden_size = c.hidden;
  data.opt.output_gate = c.output_gate;
  const int64_t L = c.length, B = c.batch, d = c.hidden;
  const auto f64 = torch::TensorOptions().dtype(torch::kDouble);
  data.inputs = {
      torch::randn({L, B, d * data.opt.numMatrices()}, f64),
      c.with_c0 ? torch::randn({B, d}, f64) : torch::Tensor(),
      c.with_zoneout ? torch::bernoulli(torch::full({L, B, d}, 0.8, f64)) : torch::Tensor(),
      c.with_mask_pad ? recurlab::testing::randomPadMask(L, B) : torch::Tensor()};
  data.grad_outputs = {torch::randn({L, B, d}, f64), torch::randn({B, d}, f64)};
  return data;
}

KernelRun runOn(const QrnnData& data, torch::Device device, torch::Dtype dtype) {
  const QrnnPoolingOptions opt = data.opt;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return qrnnPooling(in[0], in[1], in[2], in[3], opt);
  };
  return runKernel(kernel, data.inputs, {true, true, false, false}, data.grad_outputs, device,
                   dtype);
}

// The kernel in `dtype` (float, half, bfloat16) against the naive reference in double.
void expectWithinRoundingBounds(const QrnnData& data, const QrnnCase& c, torch::Dtype dtype) {
  const QrnnPoolingOptions opt = data.opt;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return qrnnPooling(in[0], in[1], in[2], in[3], opt);
  };
  auto reference = [&](const std::vector<torch::Tensor>& in) {
    return qrnnPoolingReference(in[0], in[1], in[2], in[3], opt);
  };
  recurlab::testing::expectKernelWithinRoundingBounds(
      kernel, reference, data.inputs, {true, true, false, false}, data.grad_outputs, {},
      torch::Device(torch::kCUDA, 0), dtype, c.length, c.batch, c.name());
}

std::vector<QrnnCase> everyOption(int64_t L, int64_t B, int64_t d) {
  std::vector<QrnnCase> cases;
  for (bool gate : {true, false})
    for (int flags = 0; flags < 8; ++flags)
      cases.push_back({L, B, d, gate, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0});
  return cases;
}

const torch::Device kCuda(torch::kCUDA, 0);
const torch::Device kCpu(torch::kCPU);

// Double against the CPU kernel (the same expressions in the same order); float within the
// rounding bounds of the exact result.
TEST(QrnnPoolingCudaTest, MatchesReferencesInFloatAndDoubleForEveryOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1100;
  for (const QrnnCase& c : everyOption(9, 3, 37)) {
    const QrnnData data = makeData(c, seed++);
    expectWithinRoundingBounds(data, c, torch::kFloat);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12,
                                       c.name() + " f64");
  }
}

// Half/bfloat16: state and sums in float, stored values rounded (cuda_test_support.h). L = 16
// keeps the backward's bound, which grows with L·u, below the values in bfloat16.
TEST(QrnnPoolingCudaTest, HalfAndBFloat16WithinRoundingBounds) {
  RECURLAB_REQUIRE_CUDA();
  for (torch::Dtype dtype : {torch::kHalf, torch::kBFloat16}) {
    uint64_t seed = 1200;
    for (const QrnnCase& c : {QrnnCase{16, 4, 37, true, true, true, true},
                              QrnnCase{16, 4, 37, false, false, false, true}})
      expectWithinRoundingBounds(makeData(c, seed++), c, dtype);
  }
}

// L = 4096 (long carry, chunk tails), batch 1 and units not a multiple of a warp.
TEST(QrnnPoolingCudaTest, LongAndOddSizedInputsMatchReferences) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1300;
  for (const QrnnCase& c : {QrnnCase{4096, 2, 40, true, true, true, true},
                            QrnnCase{5, 1, 33, true, true, false, true},
                            QrnnCase{1, 1, 1, false, true, true, false},
                            QrnnCase{3, 130, 3, true, false, false, true}}) {
    const QrnnData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12, c.name());
    expectWithinRoundingBounds(data, c, torch::kFloat);
  }
}

}  // namespace
}  // namespace recurlab::kernels
