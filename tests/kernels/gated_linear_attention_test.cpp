// Gated linear attention (kernels/gated_linear_attention.h) against its naive step-by-step
// reference (tests/support/naive_recurrences.h): in double, outputs and every gradient (autograd
// on the naive form) for the step-by-step form (the fused CPU kernel, and the LibTorch step
// loop that other devices run) and every chunk length; by finite differences;
// in float, element by element within bounds derived from the unit roundoff; a padded batch
// equal to each sequence alone; the step function and segments equal to the whole sequence.
//
// The float bound: tests/kernels/gated_linear_attention_bounds.h.
#include "kernels/gated_linear_attention.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/kernels/gated_linear_attention_bounds.h"
#include "tests/support/error_message.h"
#include "tests/support/naive_recurrences.h"
#include "tests/support/recurrence_check.h"
#include "tests/support/rounding_bound.h"

namespace recurlab::kernels {
namespace {

using recurlab::testing::KernelRun;
using recurlab::testing::RoundingModel;
using recurlab::testing::runKernel;
using torch::Tensor;

const torch::Device kCpu(torch::kCPU);

using namespace recurlab::testing::gla;  // Case, Data, the bound (gated_linear_attention_bounds.h)

KernelRun runOp(const Data& data, torch::Dtype dtype, const GatedLinearAttentionOptions& options) {
  return recurlab::testing::gla::runOp(data, kCpu, dtype, options);
}

KernelRun runOp(const Data& data, torch::Dtype dtype, int64_t chunk_length) {
  return runOp(data, dtype, GatedLinearAttentionOptions{chunk_length});
}

// Step by step through LibTorch ops and autograd, as off the CPU, instead of the fused kernel.
const GatedLinearAttentionOptions kLibTorchSteps{kGlaStepByStep, false};

// For L = 37: step by step; chunks of 1, 2, 3 steps; 10 and 20 (not divisors of L; 20 runs
// secondary chunks of 16 and pads the second); L (the whole sequence as one chunk, three
// secondary chunks); 64 (one chunk longer than the sequence).
std::vector<int64_t> chunkLengths(int64_t L) { return {kGlaStepByStep, 1, 2, 3, 10, 20, L, 64}; }

TEST(GatedLinearAttention, MatchesTheStepByStepReferenceInDoubleForEveryChunkLength) {
  uint64_t seed = 1;
  for (const Case& c : everyOption(37, 3, 2, 5, 3)) {
    const Data data = makeData(c, seed++);
    const KernelRun want = runReference(data);
    for (int64_t chunk : chunkLengths(c.L))
      recurlab::testing::expectRunsClose(runOp(data, torch::kDouble, chunk), want, 1e-11,
                                         c.name() + " chunk " + std::to_string(chunk));
    recurlab::testing::expectRunsClose(runOp(data, torch::kDouble, kLibTorchSteps), want, 1e-11,
                                       c.name() + " LibTorch steps");
  }
}

TEST(GatedLinearAttention, GradientsMatchFiniteDifferences) {
  for (const GatedLinearAttentionOptions& options :
       {GatedLinearAttentionOptions{kGlaStepByStep}, kLibTorchSteps, GatedLinearAttentionOptions{2},
        GatedLinearAttentionOptions{5}}) {
    torch::manual_seed(3);
    const int64_t L = 7, B = 2, H = 2, dk = 3, dv = 2;
    const auto o = torch::TensorOptions().dtype(torch::kDouble);
    std::vector<Tensor> in{torch::randn({L, B, H, dk}, o).set_requires_grad(true),
                           torch::randn({L, B, H, dk}, o).set_requires_grad(true),
                           torch::randn({L, B, H, dv}, o).set_requires_grad(true),
                           torch::log_sigmoid(torch::randn({L, B, H, dk}, o) + 1)
                               .detach()
                               .set_requires_grad(true),
                           torch::randn({B, H, dk, dv}, o).set_requires_grad(true),
                           recurlab::testing::randomPadMask(L, B)};
    // Central differences in double: truncation ~eps², rounding ~1e-16/eps.
    testing::expectGradientsMatchFiniteDifferences(
        [&](const std::vector<Tensor>& x) {
          return gatedLinearAttention(x[0], x[1], x[2], x[3], x[4], x[5], options);
        },
        in, 12, 1e-6, 1e-7);
  }
}

TEST(GatedLinearAttention, FloatIsWithinRoundingBoundsOfTheDoubleReference) {
  uint64_t seed = 100;
  for (const Case& c : everyOption(37, 3, 2, 8, 5)) {
    const Data data = makeData(c, seed++);
    const KernelRun exact = runReference(data);
    const KernelRun magnitude = runMagnitudes(data);
    const KernelRun steps = runOp(data, torch::kFloat, kGlaStepByStep);
    const int64_t step_roundings = outputRoundings(c, data, kGlaStepByStep);
    expectWithinBounds(steps, exact, magnitude, step_roundings, c.name() + " step by step");
    expectWithinBounds(runOp(data, torch::kFloat, kLibTorchSteps), exact, magnitude,
                       step_roundings, c.name() + " LibTorch steps");
    for (int64_t chunk : chunkLengths(c.L)) {
      if (chunk == kGlaStepByStep) continue;
      const std::string label = c.name() + " chunk " + std::to_string(chunk);
      const int64_t n = outputRoundings(c, data, chunk);
      const KernelRun chunked = runOp(data, torch::kFloat, chunk);
      expectWithinBounds(chunked, exact, magnitude, n, label);
      // Chunked against step by step: each within its bound of the exact values (the larger
      // of the two counts taken twice).
      expectWithinBounds(chunked, steps, magnitude, std::max(n, step_roundings),
                         label + " vs step by step", 2);
    }
  }
}

// Step by step on the CPU is the fused kernel under its own autograd node, and its results do
// not depend on the thread count: each row and head is walked by one thread. L = 37 spans three
// of the backward's recomputed segments (16, 16, 5 steps).
TEST(GatedLinearAttention, StepByStepOnTheCpuIsTheFusedKernelForAnyThreadCount) {
  const Case c{37, 3, 2, 8, 5, true, true};
  const Data data = makeData(c, 51);
  std::vector<Tensor> in;
  for (const Tensor& t : data.inputs)
    in.push_back(t.defined() && t.is_floating_point() ? t.to(torch::kFloat) : t);
  for (size_t i = 0; i < 5; ++i) in[i].set_requires_grad(true);
  const std::vector<Tensor> probe =
      gatedLinearAttention(in[0], in[1], in[2], in[3], in[4], in[5], {kGlaStepByStep});
  ASSERT_TRUE(probe[0].grad_fn());
  EXPECT_NE(probe[0].grad_fn()->name().find("GatedLinearAttentionCpuFunction"), std::string::npos)
      << probe[0].grad_fn()->name();
  // Without the fused kernel: LibTorch's own nodes (the step loop other devices run).
  const std::vector<Tensor> loop =
      gatedLinearAttention(in[0], in[1], in[2], in[3], in[4], in[5], kLibTorchSteps);
  ASSERT_TRUE(loop[0].grad_fn());
  EXPECT_EQ(loop[0].grad_fn()->name().find("GatedLinearAttentionCpuFunction"), std::string::npos)
      << loop[0].grad_fn()->name();
  const int threads = at::get_num_threads();
  std::vector<KernelRun> runs;
  for (int n : {1, 2, 3}) {
    at::set_num_threads(n);
    runs.push_back(runOp(data, torch::kFloat, kGlaStepByStep));
  }
  at::set_num_threads(threads);
  for (size_t r = 1; r < runs.size(); ++r) {
    for (size_t i = 0; i < runs[0].outputs.size(); ++i)
      EXPECT_TRUE(torch::equal(runs[r].outputs[i], runs[0].outputs[i]))
          << "output " << i << " at " << r + 1 << " threads";
    for (size_t i = 0; i < 5; ++i)
      EXPECT_TRUE(torch::equal(runs[r].grads[i], runs[0].grads[i]))
          << "gradient " << i << " at " << r + 1 << " threads";
  }
}

// A batch of right-padded sequences equals each sequence run alone (its real steps only): the
// outputs at real steps, zeros at pad steps, and the state after the last real step.
TEST(GatedLinearAttention, PaddedBatchEqualsEachSequenceAlone) {
  const int64_t L = 13, B = 4, H = 2, dk = 3, dv = 4;
  const std::vector<int64_t> lengths = {13, 9, 1, 6};
  Data data = makeData({L, B, H, dk, dv, true, false}, 21);
  Tensor pad = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b) pad.slice(0, lengths[b], L).select(1, b).fill_(true);
  const auto& in = data.inputs;
  for (int64_t chunk : {kGlaStepByStep, int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}, L}) {
    const std::vector<Tensor> batch =
        gatedLinearAttention(in[0], in[1], in[2], in[3], in[4], pad, {chunk});
    for (int64_t b = 0; b < B; ++b) {
      const int64_t n = lengths[b];
      const auto row = [&](const Tensor& t) { return t.slice(0, 0, n).slice(1, b, b + 1); };
      const std::vector<Tensor> alone = gatedLinearAttention(
          row(in[0]), row(in[1]), row(in[2]), row(in[3]), in[4].slice(0, b, b + 1), {}, {chunk});
      const std::string label = "chunk " + std::to_string(chunk) + " row " + std::to_string(b);
      EXPECT_TRUE(recurlab::testing::allClose(batch[0].slice(0, 0, n).slice(1, b, b + 1),
                                              alone[0], 1e-12, 1e-12, label + " o"));
      EXPECT_TRUE(recurlab::testing::allClose(batch[1].slice(0, b, b + 1), alone[1], 1e-12,
                                              1e-12, label + " last state"));
      if (n < L) {
        EXPECT_EQ(batch[0].slice(0, n, L).select(1, b).abs().max().item<double>(), 0.0) << label;
      }
    }
  }
}

// Incremental decoding: the step function applied step after step, and the sequence cut into
// segments carrying the state, equal the whole sequence's outputs and last state.
TEST(GatedLinearAttention, IncrementalEqualsWholeSequence) {
  const Case c{19, 3, 2, 4, 3, true, true};
  const Data data = makeData(c, 31);
  const auto& in = data.inputs;
  for (int64_t chunk : {kGlaStepByStep, int64_t{4}, c.L}) {
    const std::string label = "chunk " + std::to_string(chunk);
    const std::vector<Tensor> whole =
        gatedLinearAttention(in[0], in[1], in[2], in[3], in[4], in[5], {chunk});
    Tensor state = in[4];
    for (int64_t t = 0; t < c.L; ++t) {
      const std::vector<Tensor> step =
          gatedLinearAttentionStep(in[0][t], in[1][t], in[2][t], in[3][t], state, in[5][t]);
      EXPECT_TRUE(recurlab::testing::allClose(step[0], whole[0][t], 1e-12, 1e-12,
                                              label + " step " + std::to_string(t)));
      state = step[1];
    }
    EXPECT_TRUE(recurlab::testing::allClose(state, whole[1], 1e-12, 1e-12, label + " state"));
    for (int64_t cut : {int64_t{1}, int64_t{7}, c.L - 1}) {
      const auto part = [&](const Tensor& t, int64_t lo, int64_t hi) { return t.slice(0, lo, hi); };
      const std::vector<Tensor> first =
          gatedLinearAttention(part(in[0], 0, cut), part(in[1], 0, cut), part(in[2], 0, cut),
                               part(in[3], 0, cut), in[4], part(in[5], 0, cut), {chunk});
      const std::vector<Tensor> second = gatedLinearAttention(
          part(in[0], cut, c.L), part(in[1], cut, c.L), part(in[2], cut, c.L),
          part(in[3], cut, c.L), first[1], part(in[5], cut, c.L), {chunk});
      const std::string at = label + " cut at " + std::to_string(cut);
      EXPECT_TRUE(recurlab::testing::allClose(torch::cat({first[0], second[0]}), whole[0], 1e-12,
                                              1e-12, at + " o"));
      EXPECT_TRUE(recurlab::testing::allClose(second[1], whole[1], 1e-12, 1e-12, at + " state"));
    }
  }
}

// bfloat16 inputs are computed in float and cast back: the float op's results, rounded.
TEST(GatedLinearAttention, BFloat16InputsComputeInFloat) {
  Data data = makeData({9, 2, 2, 3, 3, true, true}, 41);
  recurlab::testing::roundFloatingThrough(data.inputs, torch::kBFloat16);
  recurlab::testing::roundFloatingThrough(data.grad_outputs, torch::kBFloat16);
  const KernelRun bf16 = runOp(data, torch::kBFloat16, 4);
  const KernelRun f32 = runOp(data, torch::kFloat, 4);
  recurlab::testing::expectEqualRoundedThrough(bf16.outputs, f32.outputs, torch::kBFloat16,
                                               "output");
}

TEST(GatedLinearAttention, EmptySequenceKeepsTheState) {
  const Data data = makeData({0, 2, 1, 3, 2, true, false}, 43);
  const auto& in = data.inputs;
  const std::vector<Tensor> res =
      gatedLinearAttention(in[0], in[1], in[2], in[3], in[4], {}, {kGlaGpuChunkLength});
  EXPECT_EQ(res[0].sizes(), c10::IntArrayRef({0, 2, 1, 2}));
  EXPECT_TRUE(torch::equal(res[1], in[4]));
}

TEST(GatedLinearAttention, ChecksItsInputsAndNamesWhatIsWrong) {
  const Data data = makeData({5, 2, 2, 4, 3, true, true}, 47);
  const auto& in = data.inputs;
  using recurlab::testing::errorMessageOf;
  const auto run = [&](const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& g,
                       const Tensor& s0, const Tensor& pad, int64_t chunk) {
    return [=] { gatedLinearAttention(q, k, v, g, s0, pad, {chunk}); };
  };
  EXPECT_NE(errorMessageOf(run(in[0], in[1].slice(3, 0, 3), in[2], in[3], in[4], in[5], 4))
                .find("k has shape"),
            std::string::npos);
  EXPECT_NE(errorMessageOf(run(in[0], in[1], in[2], in[3], in[4].slice(3, 0, 2), in[5], 4))
                .find("s0 has shape"),
            std::string::npos);
  EXPECT_NE(errorMessageOf(run(in[0], in[1], in[2].slice(1, 0, 1), in[3], in[4], in[5], 4))
                .find("v has shape"),
            std::string::npos);
  EXPECT_NE(errorMessageOf(run(in[0], in[1], in[2], in[3].to(torch::kFloat), in[4], in[5], 4))
                .find("log_alpha has dtype"),
            std::string::npos);
  EXPECT_NE(errorMessageOf(run(in[0], in[1], in[2], in[3], in[4], in[5].slice(0, 0, 2), 4))
                .find("mask_pad has shape"),
            std::string::npos);
  EXPECT_NE(errorMessageOf(run(in[0], in[1], in[2], in[3], in[4], in[5], -2)).find("chunk_length"),
            std::string::npos);
}

// Under autocast q, k, v arrive in bfloat16 and the gate and a carried state in float32: the op
// computes in float32 on exactly those values, returns o in q's dtype and the state in s0's,
// float32 (a bfloat16 state would round the carried state at every segment).
TEST(GatedLinearAttention, BFloat16InputsMixWithAFloat32GateAndStateAndComputeInFloat32) {
  const Case c{9, 2, 2, 4, 3, true, true};
  const Data data = makeData(c, 41);
  const auto& in = data.inputs;
  const auto bf16 = [](const Tensor& t) { return t.to(torch::kBFloat16); };
  const auto f32 = [](const Tensor& t) { return t.to(torch::kFloat); };
  for (int64_t chunk : {kGlaStepByStep, int64_t{4}}) {
    const std::vector<Tensor> mixed = gatedLinearAttention(
        bf16(in[0]), bf16(in[1]), bf16(in[2]), f32(in[3]), f32(in[4]), in[5], {chunk});
    const std::vector<Tensor> exact =
        gatedLinearAttention(f32(bf16(in[0])), f32(bf16(in[1])), f32(bf16(in[2])), f32(in[3]),
                             f32(in[4]), in[5], {chunk});
    const std::string label = "chunk " + std::to_string(chunk);
    EXPECT_EQ(mixed[0].scalar_type(), torch::kBFloat16) << label;
    EXPECT_EQ(mixed[1].scalar_type(), torch::kFloat) << label;
    EXPECT_TRUE(torch::equal(mixed[0], bf16(exact[0]))) << label;
    EXPECT_TRUE(torch::equal(mixed[1], exact[1])) << label;
  }
  const std::vector<Tensor> step =
      gatedLinearAttentionStep(bf16(in[0][0]), bf16(in[1][0]), bf16(in[2][0]), f32(in[3][0]),
                               f32(in[4]), {});
  EXPECT_EQ(step[1].scalar_type(), torch::kFloat);
}

}  // namespace
}  // namespace recurlab::kernels
