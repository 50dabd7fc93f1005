// The elementwise linear recurrence (kernels/linear_recurrence.h) against its naive reference:
// in double to 1e-12, by finite differences, and in float (and bfloat16 inputs) element by
// element within bounds derived from the unit roundoff and the length, on both of its paths
// (the sequential walk and the chunked scan, every chunk length), with 1 and 2 threads.
//
// The float bound (tests/support/rounding_bound.h): every output and gradient is a sum of
// products of the inputs, and each term is rounded at most n = 8·L + 2 times on either path:
//   - the walk: one multiply and one add per step, <= 2·L + 1 roundings per term of h or g;
//   - the chunked scan with chunks of T steps: <= 2·T + 1 in a chunk's summary, <= T - 1 in
//     the product of its multipliers, 2 per later chunk of the carry pass, and <= 2·T + 1 in
//     the chunk's second walk: <= 3·L + 4 in all for 1 <= T (T = L gives the walk's);
//   - ∂/∂a_t = g_t·h_{t-1} adds the roundings of both factors and one for the product.
// So |float - exact| <= γ_n · M (plus the double reference's own γ_n in double), M the same output or gradient of the recurrence run in double
// on |a|, |b|, |h0| and |upstream gradients| (the sum of the terms' absolute values).
#include "kernels/linear_recurrence.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/input_checks.h"
#include "tests/kernels/cuda/cuda_test_support.h"
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

struct Case {
  int64_t L, B, d;
  bool bidirectional, h0, pad;

  std::string name() const {
    return "L=" + std::to_string(L) + " B=" + std::to_string(B) + " d=" + std::to_string(d) +
           (bidirectional ? " bidirectional" : "") + (h0 ? " h0" : "") + (pad ? " pad" : "");
  }
};

// Inputs [a, b, h0, mask_pad] and output gradients [dh, dlast_h] in double, holding float
// values (so float and double runs see the same numbers). a in (0, 1) as every model's gates,
// or in (-1.1, 1.1) with `signed_a` (the bound does not need a contraction).
struct Data {
  LinearRecurrenceOptions opt;
  std::vector<Tensor> inputs, grad_outputs;
};

Tensor padMask(int64_t L, int64_t B) {
  Tensor m = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 1; b < B; ++b) m.slice(0, std::max<int64_t>(1, L - L * b / (2 * B) - b), L).select(1, b).fill_(true);
  return m;
}

Data makeData(const Case& c, uint64_t seed, bool signed_a = false) {
  torch::manual_seed(seed);
  Data data;
  data.opt.hidden_size = c.d;
  data.opt.bidirectional = c.bidirectional;
  const int64_t out = data.opt.outputSize();
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  const Tensor a = signed_a ? torch::rand({c.L, c.B, out}, f32) * 2.2 - 1.1
                            : torch::sigmoid(torch::randn({c.L, c.B, out}, f32) * 2 + 1);
  data.inputs = {a.to(torch::kDouble), torch::randn({c.L, c.B, out}, f32).to(torch::kDouble),
                 c.h0 ? torch::randn({c.B, out}, f32).to(torch::kDouble) : Tensor(),
                 c.pad ? padMask(c.L, c.B) : Tensor()};
  data.grad_outputs = {torch::randn({c.L, c.B, out}, f32).to(torch::kDouble),
                       torch::randn({c.B, out}, f32).to(torch::kDouble)};
  return data;
}

LinearRecurrenceOptions withChunks(LinearRecurrenceOptions opt, int64_t chunk_length) {
  opt.chunk_length = chunk_length;
  return opt;
}

KernelRun runOp(const Data& data, torch::Dtype dtype, int64_t chunk_length) {
  const LinearRecurrenceOptions opt = withChunks(data.opt, chunk_length);
  return runKernel(
      [&](const std::vector<Tensor>& in) { return linearRecurrence(in[0], in[1], in[2], in[3], opt); },
      data.inputs, {true, true, true, false}, data.grad_outputs, kCpu, dtype);
}

KernelRun runReference(const Data& data) {
  return runKernel(
      [&](const std::vector<Tensor>& in) {
        return linearRecurrenceReference(in[0], in[1], in[2], in[3], data.opt);
      },
      data.inputs, {true, true, true, false}, data.grad_outputs, kCpu, torch::kDouble);
}

// M for every output and gradient: the reference on absolute values.
KernelRun runMagnitudes(const Data& data) {
  Data abs = data;
  for (auto& t : abs.inputs)
    if (t.defined() && t.is_floating_point()) t = t.abs();
  for (auto& t : abs.grad_outputs) t = t.abs();
  return runReference(abs);
}

// The chain of roundings into any term of an output or gradient, in float.
RoundingModel floatChain(int64_t L) { return {torch::kFloat, 8 * L + 2}; }

// Every output and gradient of `got` within `results`·γ_n·M of `exact`: 1 for a result against
// the exact one, 2 for two results each within γ_n·M of it.
void expectWithinBounds(const KernelRun& got, const KernelRun& exact, const KernelRun& magnitude,
                        const RoundingModel& model, const std::string& label, int results = 1) {
  testing::expectEachWithinRoundingBound(got.outputs, exact.outputs, magnitude.outputs, model,
                                         {"h", "last_h"}, label, results);
  testing::expectEachWithinRoundingBound(got.grads, exact.grads, magnitude.grads, model,
                                         {"grad a", "grad b", "grad h0", "grad mask_pad"}, label,
                                         results);
}

std::vector<Case> everyOption(int64_t L, int64_t B, int64_t d) {
  std::vector<Case> cases;
  for (bool bidirectional : {false, true})
    for (int flags = 0; flags < 4; ++flags)
      cases.push_back({L, B, d, bidirectional, (flags & 1) != 0, (flags & 2) != 0});
  return cases;
}

// d = 67 spans two runs of 64 units; chunk lengths 1, 3 and one past L.
const std::vector<int64_t> kPaths = {kSequentialWalk, 1, 3, 12};

TEST(LinearRecurrence, MatchesReferenceInDoubleOnEveryPath) {
  uint64_t seed = 1;
  for (const Case& c : everyOption(11, 3, 67)) {
    const Data data = makeData(c, seed, /*signed_a=*/seed % 2 == 0);
    ++seed;
    const KernelRun want = runReference(data);
    for (int64_t chunk : kPaths)
      recurlab::testing::expectRunsClose(runOp(data, torch::kDouble, chunk), want, 1e-12,
                                         c.name() + " chunk " + std::to_string(chunk));
  }
}

TEST(LinearRecurrence, GradientsMatchFiniteDifferences) {
  for (int64_t chunk : {kSequentialWalk, int64_t{2}}) {
    for (bool bidirectional : {false, true}) {
      torch::manual_seed(3);
      const LinearRecurrenceOptions opt{4, bidirectional, chunk};
      const int64_t out = opt.outputSize();
      auto o = torch::TensorOptions().dtype(torch::kDouble);
      std::vector<Tensor> in{torch::rand({6, 2, out}, o).set_requires_grad(true),
                             torch::randn({6, 2, out}, o).set_requires_grad(true),
                             torch::randn({2, out}, o).set_requires_grad(true), padMask(6, 2)};
      // Central differences in double: truncation ~eps², rounding ~1e-16/eps.
      testing::expectGradientsMatchFiniteDifferences(
          [&](const std::vector<Tensor>& x) { return linearRecurrence(x[0], x[1], x[2], x[3], opt); },
          in, 12, 1e-6, 1e-7);
    }
  }
}

TEST(LinearRecurrence, FloatIsWithinRoundingBoundsOfTheDoubleReference) {
  uint64_t seed = 100;
  for (const Case& c : everyOption(40, 3, 67)) {
    const Data data = makeData(c, seed, /*signed_a=*/seed % 2 == 0);
    ++seed;
    const KernelRun exact = runReference(data), magnitude = runMagnitudes(data);
    const RoundingModel model = floatChain(c.L);
    for (int64_t chunk : {kSequentialWalk, int64_t{1}, int64_t{7}, int64_t{40}})
      expectWithinBounds(runOp(data, torch::kFloat, chunk), exact, magnitude, model,
                         c.name() + " chunk " + std::to_string(chunk));
  }
}

// Every chunk length from 1 to past the end, against the walk and the reference.
TEST(LinearRecurrence, EveryChunkLengthAgreesWithTheWalkWithinBounds) {
  const Case c{29, 2, 5, true, true, true};
  const Data data = makeData(c, 7);
  const KernelRun exact = runReference(data), magnitude = runMagnitudes(data);
  const RoundingModel model = floatChain(c.L);
  const KernelRun walk = runOp(data, torch::kFloat, kSequentialWalk);
  expectWithinBounds(walk, exact, magnitude, model, "walk");
  for (int64_t chunk = 1; chunk <= c.L + 3; ++chunk) {
    const std::string label = "chunk " + std::to_string(chunk);
    const KernelRun scan = runOp(data, torch::kFloat, chunk);
    expectWithinBounds(scan, exact, magnitude, model, label);
    // Two results within γ_n·M of the exact one are within 2·γ_n·M of each other.
    expectWithinBounds(scan, walk, magnitude, model, label + " vs walk", 2);
    recurlab::testing::expectRunsClose(runOp(data, torch::kDouble, chunk), exact, 1e-12,
                                       label + " double");
  }
}

// at::parallel_for splits columns and chunks, never a column's arithmetic: 1 and 2 threads
// give the same bits on both paths.
TEST(LinearRecurrence, OneAndTwoThreadsGiveTheSameBits) {
  const Data data = makeData({300, 3, 70, true, true, true}, 11);
  const int before = at::get_num_threads();
  for (int64_t chunk : {kSequentialWalk, int64_t{16}, kChunkLengthByShape}) {
    at::set_num_threads(1);
    const KernelRun one = runOp(data, torch::kFloat, chunk);
    at::set_num_threads(2);
    const KernelRun two = runOp(data, torch::kFloat, chunk);
    const auto same = [](const Tensor& x, const Tensor& y) {
      return x.defined() == y.defined() && (!x.defined() || torch::equal(x, y));
    };
    for (size_t i = 0; i < one.outputs.size(); ++i)
      EXPECT_TRUE(same(one.outputs[i], two.outputs[i])) << "chunk " << chunk << " output " << i;
    for (size_t i = 0; i < one.grads.size(); ++i)
      EXPECT_TRUE(same(one.grads[i], two.grads[i])) << "chunk " << chunk << " grad " << i;
  }
  at::set_num_threads(before);
}

// Long sequences with few columns: the shape rule picks the chunked scan; both paths stay
// within the bound of the double reference at L = 4096.
TEST(LinearRecurrence, LongSequenceInFloatIsWithinBoundsOfDouble) {
  const Case c{4096, 2, 3, true, true, true};
  const Data data = makeData(c, 13);
  EXPECT_GT(linearRecurrenceChunkLength(c.L, c.B, data.opt, /*cuda=*/false), 0);
  const KernelRun exact = runReference(data), magnitude = runMagnitudes(data);
  const RoundingModel model = floatChain(c.L);
  for (int64_t chunk : {kChunkLengthByShape, kSequentialWalk})
    expectWithinBounds(runOp(data, torch::kFloat, chunk), exact, magnitude, model,
                       c.name() + " chunk " + std::to_string(chunk));
}

// bfloat16 inputs on the CPU are computed in float (the state too) and cast back: outputs and
// gradients equal the float op's on the same values, rounded to bfloat16.
TEST(LinearRecurrence, BFloat16InputsComputeInFloat) {
  Data data = makeData({50, 2, 9, true, true, true}, 17);
  recurlab::testing::roundFloatingThrough(data.inputs, torch::kBFloat16);
  recurlab::testing::roundFloatingThrough(data.grad_outputs, torch::kBFloat16);
  for (int64_t chunk : {kSequentialWalk, int64_t{8}}) {
    const KernelRun bf16 = runOp(data, torch::kBFloat16, chunk);
    const KernelRun f32 = runOp(data, torch::kFloat, chunk);
    const std::string label = "chunk " + std::to_string(chunk);
    recurlab::testing::expectEqualRoundedThrough(bf16.outputs, f32.outputs, torch::kBFloat16,
                                                 label + " output");
    recurlab::testing::expectEqualRoundedThrough(bf16.grads, f32.grads, torch::kBFloat16,
                                                 label + " grad");
  }
}

TEST(LinearRecurrence, PadStepsFreezeTheStateAndPassTheGradientThrough) {
  const Data data = makeData({6, 2, 3, true, true, false}, 19);
  Tensor pad = torch::zeros({6, 2}, torch::kBool);
  pad.slice(0, 4, 6).select(1, 1).fill_(true);  // row 1 has 4 real steps
  const auto& in = data.inputs;
  const LinearRecurrenceForwardResult res =
      linearRecurrenceForward(in[0], in[1], in[2], pad, data.opt);
  // Forward direction (units 0..2): the state after step 3 is held on the pad steps and is
  // the final state; reverse direction (units 3..5): it starts from h0 at step 3.
  const Tensor forward_units = res.h.select(1, 1).slice(1, 0, 3);
  EXPECT_TRUE(torch::equal(forward_units[5], forward_units[3]));
  EXPECT_TRUE(torch::equal(res.last_h[1].slice(0, 0, 3), forward_units[3]));
  const Tensor reverse_units = res.h.select(1, 1).slice(1, 3, 6);
  EXPECT_TRUE(torch::equal(reverse_units[4], in[2][1].slice(0, 3, 6)));
  const Tensor a = in[0].select(1, 1).slice(1, 3, 6), b = in[1].select(1, 1).slice(1, 3, 6);
  EXPECT_TRUE(torch::allclose(reverse_units[3], a[3] * in[2][1].slice(0, 3, 6) + b[3]));
  const LinearRecurrenceBackwardResult g = linearRecurrenceBackward(
      data.grad_outputs[0], data.grad_outputs[1], in[0], in[2], res.h, pad, data.opt);
  EXPECT_EQ(g.grad_a.select(1, 1).slice(0, 4, 6).abs().max().item<double>(), 0.0);
  EXPECT_EQ(g.grad_b.select(1, 1).slice(0, 4, 6).abs().max().item<double>(), 0.0);
}

TEST(LinearRecurrence, ShapeRuleWalksWithManyColumnsAndScansLongNarrowSequences) {
  const LinearRecurrenceOptions narrow{8, false}, wide{1024, true};
  // CPU: runs = B·dirs·⌈d/64⌉.
  EXPECT_EQ(linearRecurrenceChunkLength(4096, 1, narrow, false), 4096 / 64);
  EXPECT_EQ(linearRecurrenceChunkLength(4096, 8, narrow, false), 4096 / 8);
  EXPECT_EQ(linearRecurrenceChunkLength(4096, 16, narrow, false), kSequentialWalk);
  EXPECT_EQ(linearRecurrenceChunkLength(255, 1, narrow, false), kSequentialWalk);
  EXPECT_EQ(linearRecurrenceChunkLength(300, 1, narrow, false), 32);
  EXPECT_EQ(linearRecurrenceChunkLength(4096, 1, wide, false), kSequentialWalk);
  // CUDA: columns = B·dirs·d.
  EXPECT_EQ(linearRecurrenceChunkLength(4096, 8, wide, true), kSequentialWalk);
  EXPECT_EQ(linearRecurrenceChunkLength(4096, 2, wide, true), 256);
  EXPECT_EQ(linearRecurrenceChunkLength(100, 1, narrow, true), kSequentialWalk);
}

TEST(LinearRecurrence, ChecksItsInputsOnceAndNamesWhatIsWrong) {
  const Data data = makeData({5, 2, 4, false, true, true}, 23);
  const auto& in = data.inputs;
  const int64_t before = detail::inputChecksRun();
  linearRecurrence(in[0], in[1], in[2], in[3], data.opt);
  EXPECT_EQ(detail::inputChecksRun() - before, 1);
  using recurlab::testing::errorMessageOf;
  EXPECT_NE(errorMessageOf([&] { linearRecurrenceForward(in[0], in[1].slice(2, 0, 3), {}, {}, data.opt); })
                .find("b has shape"),
            std::string::npos);
  EXPECT_NE(errorMessageOf([&] { linearRecurrenceForward(in[0], in[1], in[2].slice(1, 0, 1), {}, data.opt); })
                .find("h0 has shape"),
            std::string::npos);
  EXPECT_NE(errorMessageOf([&] { linearRecurrenceForward(in[0], in[1], {}, {}, {4, true}); })
                .find("4 columns, expected 8"),
            std::string::npos);
  EXPECT_NE(errorMessageOf([&] { linearRecurrenceForward(in[0], in[1].to(torch::kFloat), {}, {}, data.opt); })
                .find("dtype"),
            std::string::npos);
  EXPECT_NE(errorMessageOf([&] { linearRecurrenceForward(in[0], in[1], {}, {}, {4, false, -2}); })
                .find("chunk_length"),
            std::string::npos);
}

}  // namespace
}  // namespace recurlab::kernels
