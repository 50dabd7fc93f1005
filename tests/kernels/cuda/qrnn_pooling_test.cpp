// The QRNN pooling CUDA kernel against its CPU twin (kernels/cpu/qrnn_pooling): outputs and
// gradients for every option, float, double, half and bfloat16, long and odd-sized inputs.
// Skipped with a message without CUDA kernels or a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/qrnn_pooling.h"
#include "tests/kernels/cuda/cuda_test_support.h"


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

std::vector<QrnnCase> everyOption(int64_t L, int64_t B, int64_t d) {
  std::vector<QrnnCase> cases;
  for (bool gate : {true, false})
    for (int flags = 0; flags < 8; ++flags)
      cases.push_back({L, B, d, gate, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0});
  return cases;
}

const torch::Device kCuda(torch::kCUDA, 0);
const torch::Device kCpu(torch::kCPU);

// Float: the same expressions in the same order on both sides; only rounding differs (fused
// multiply-adds, tanhf/expf vs the CPU's libm), far below 1e-5.
TEST(QrnnPoolingCudaTest, MatchesCpuKernelInFloatAndDoubleForEveryOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1100;
  for (const QrnnCase& c : everyOption(9, 3, 37)) {
    const QrnnData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kFloat),
                                       runOn(data, kCpu, torch::kFloat), 1e-5, c.name() + " f32");
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12,
                                       c.name() + " f64");
  }
}

// Half/bfloat16 against float on the same rounded inputs; state and sums in float, so the error
// is the rounding of what is stored: 10x the unit roundoff (4.9e-4, 3.9e-3), relative 2-norm.
TEST(QrnnPoolingCudaTest, HalfAndBFloat16MatchFloat) {
  RECURLAB_REQUIRE_CUDA();
  for (const auto& [dtype, tol] :
       {std::pair{torch::kHalf, 5e-3}, std::pair{torch::kBFloat16, 4e-2}}) {
    uint64_t seed = 1200;
    for (const QrnnCase& c : {QrnnCase{64, 4, 37, true, true, true, true},
                              QrnnCase{64, 4, 37, false, false, false, true}}) {
      QrnnData data = makeData(c, seed++);
      recurlab::testing::roundFloatingThrough(data.inputs, dtype);
      recurlab::testing::roundFloatingThrough(data.grad_outputs, dtype);
      recurlab::testing::expectRunsCloseInNorm(runOn(data, kCuda, dtype),
                                               runOn(data, kCpu, torch::kFloat), tol,
                                               c.name() + " " + c10::toString(dtype));
    }
  }
}

// L = 4096 (long carry, chunk tails), batch 1 and units not a multiple of a warp.
TEST(QrnnPoolingCudaTest, LongAndOddSizedInputsMatchCpuKernel) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 1300;
  for (const QrnnCase& c : {QrnnCase{4096, 2, 40, true, true, true, true},
                            QrnnCase{5, 1, 33, true, true, false, true},
                            QrnnCase{1, 1, 1, false, true, true, false},
                            QrnnCase{3, 130, 3, true, false, false, true}}) {
    const QrnnData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12, c.name());
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kFloat),
                                       runOn(data, kCpu, torch::kFloat), 1e-5, c.name());
  }
}

}  // namespace
}  // namespace recurlab::kernels
