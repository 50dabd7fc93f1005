// The rational recurrence CUDA kernels (patterns B, C, F; plus-times and max-plus): outputs and
// gradients for every option, long and odd-sized inputs. In double against their CPU twin
// (kernels/cpu/rational_recurrence) to 1e-12; in float, half and bfloat16 (plus-times) against
// the naive reference in double, each element within its rounding-error bound
// (cuda_test_support.h). Skipped with a message without CUDA kernels or a GPU.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/rational_recurrence.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::kernels {
namespace {

using recurlab::testing::KernelRun;
using recurlab::testing::runKernel;

struct RationalCase {
  int64_t length, batch, hidden;
  RationalPattern pattern;
  Semiring semiring;
  bool output_gate, with_c0, with_mask_pad;

  std::string name() const {
    const char* patterns[] = {"B", "C", "F"};
    return "L=" + std::to_string(length) + " B=" + std::to_string(batch) +
           " d=" + std::to_string(hidden) + " pattern " +
           patterns[static_cast<int>(pattern)] +
           (semiring == Semiring::MaxPlus ? " max-plus" : " plus-times") +
           (output_gate ? " gate" : "") + (with_c0 ? " c0" : "") +
           (with_mask_pad ? " mask_pad" : "");
  }
};

// Inputs [u, weight, c0, mask_pad] and output gradients [dh, dlast_c], CPU float64.
struct RationalData {
  RationalRecurrenceOptions opt;
  std::vector<torch::Tensor> inputs, grad_outputs;
};

RationalData makeData(const RationalCase& c, uint64_t seed) {
  torch::manual_seed(seed);
  RationalData data;
  data.opt.hidden_size = c.hidden;
  data.opt.pattern = c.pattern;
  data.opt.semiring = c.semiring;
  data.opt.output_gate = c.output_gate;
  const int64_t L = c.length, B = c.batch, d = c.hidden, S = data.opt.numStates();
  const auto f64 = torch::TensorOptions().dtype(torch::kDouble);
  data.inputs = {
      torch::randn({L, B, d * data.opt.numMatrices()}, f64),
      c.pattern == RationalPattern::F ? torch::randn({3 * d}, f64) : torch::Tensor(),
      c.with_c0 ? torch::randn({B, S * d}, f64) : torch::Tensor(),
      c.with_mask_pad ? recurlab::testing::randomPadMask(L, B) : torch::Tensor()};
  data.grad_outputs = {torch::randn({L, B, d}, f64), torch::randn({B, S * d}, f64)};
  return data;
}

KernelRun runOn(const RationalData& data, torch::Device device, torch::Dtype dtype) {
  const RationalRecurrenceOptions opt = data.opt;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return rationalRecurrence(in[0], in[1], in[2], in[3], opt);
  };
  return runKernel(kernel, data.inputs, {true, true, true, false}, data.grad_outputs, device,
                   dtype);
}

// The kernel in `dtype` (float, half, bfloat16) against the naive reference in double; the
// weight (pattern F) is the parameter.
void expectWithinRoundingBounds(const RationalData& data, const RationalCase& c,
                                torch::Dtype dtype) {
  const RationalRecurrenceOptions opt = data.opt;
  auto kernel = [&](const std::vector<torch::Tensor>& in) {
    return rationalRecurrence(in[0], in[1], in[2], in[3], opt);
  };
  auto reference = [&](const std::vector<torch::Tensor>& in) {
    return rationalRecurrenceReference(in[0], in[1], in[2], in[3], opt);
  };
  recurlab::testing::expectKernelWithinRoundingBounds(
      kernel, reference, data.inputs, {true, true, true, false}, data.grad_outputs, {1},
      torch::Device(torch::kCUDA, 0), dtype, c.length, c.batch, c.name());
}

std::vector<RationalCase> everyOption(int64_t L, int64_t B, int64_t d,
                                      std::vector<Semiring> semirings) {
  std::vector<RationalCase> cases;
  for (RationalPattern pattern : {RationalPattern::B, RationalPattern::C, RationalPattern::F})
    for (Semiring semiring : semirings)
      for (int flags = 0; flags < 8; ++flags)
        cases.push_back({L, B, d, pattern, semiring, (flags & 1) != 0, (flags & 2) != 0,
                         (flags & 4) != 0});
  return cases;
}

const torch::Device kCuda(torch::kCUDA, 0);
const torch::Device kCpu(torch::kCPU);

// Double, both semirings: the same expressions in the same order; max-plus picks the same
// winners (random inputs leave no near-ties at double precision).
TEST(RationalRecurrenceCudaTest, MatchesCpuKernelInDoubleForEveryOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 2100;
  for (const RationalCase& c :
       everyOption(9, 3, 37, {Semiring::PlusTimes, Semiring::MaxPlus})) {
    const RationalData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12, c.name());
    if (c.semiring == Semiring::PlusTimes) expectWithinRoundingBounds(data, c, torch::kFloat);
  }
}

// Float, plus-times: every element within its rounding bound of the exact result. (Max-plus is
// left to double: in float a near-tie may be decided differently by one rounding, which moves a
// whole gradient.)
TEST(RationalRecurrenceCudaTest, FloatWithinRoundingBoundsForEveryOption) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 2200;
  for (const RationalCase& c : everyOption(9, 3, 37, {Semiring::PlusTimes}))
    expectWithinRoundingBounds(makeData(c, seed++), c, torch::kFloat);
}

// Half/bfloat16 (plus-times: see above): states and sums in float, stored values rounded
// (cuda_test_support.h). L = 16 keeps the backward's bound, which grows with L·u, below the
// values in bfloat16.
TEST(RationalRecurrenceCudaTest, HalfAndBFloat16WithinRoundingBounds) {
  RECURLAB_REQUIRE_CUDA();
  for (torch::Dtype dtype : {torch::kHalf, torch::kBFloat16}) {
    uint64_t seed = 2300;
    for (const RationalCase& c :
         {RationalCase{16, 4, 37, RationalPattern::F, Semiring::PlusTimes, true, true, true},
          RationalCase{16, 4, 37, RationalPattern::B, Semiring::PlusTimes, false, false, true}})
      expectWithinRoundingBounds(makeData(c, seed++), c, dtype);
  }
}

// L = 4096 (long carry, chunk tails), batch 1 and units not a multiple of a warp; float too for
// plus-times.
TEST(RationalRecurrenceCudaTest, LongAndOddSizedInputsMatchReferences) {
  RECURLAB_REQUIRE_CUDA();
  uint64_t seed = 2400;
  for (const RationalCase& c :
       {RationalCase{4096, 2, 40, RationalPattern::F, Semiring::PlusTimes, true, true, true},
        RationalCase{4096, 2, 40, RationalPattern::C, Semiring::MaxPlus, true, false, true},
        RationalCase{5, 1, 33, RationalPattern::F, Semiring::MaxPlus, false, true, true},
        RationalCase{1, 1, 1, RationalPattern::C, Semiring::PlusTimes, true, true, false},
        RationalCase{3, 130, 3, RationalPattern::B, Semiring::MaxPlus, true, false, true}}) {
    const RationalData data = makeData(c, seed++);
    recurlab::testing::expectRunsClose(runOn(data, kCuda, torch::kDouble),
                                       runOn(data, kCpu, torch::kDouble), 1e-12, c.name());
    if (c.semiring == Semiring::PlusTimes) expectWithinRoundingBounds(data, c, torch::kFloat);
  }
}

}  // namespace
}  // namespace recurlab::kernels
