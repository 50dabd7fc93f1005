// The fused SRU kernel against the naive autograd reference, in double precision, over every
// combination of directions, padding, dropout mask, skip kind, α and c0.
#include "kernels/sru_recurrence.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>

#include "kernels/cpu/recycled_buffers.h"
#include "tests/support/gradient_check.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;

struct Case {
  bool bidirectional;
  bool padded;
  bool dropout;
  SruSkip skip;
  double alpha;
  bool with_c0;
};

std::string caseName(const Case& c) {
  std::ostringstream s;
  s << (c.bidirectional ? "bi" : "uni") << (c.padded ? "_pad" : "") << (c.dropout ? "_drop" : "")
    << (c.skip == SruSkip::None          ? "_noskip"
        : c.skip == SruSkip::ScaledInput ? "_scaled"
                                         : "_learned")
    << (c.alpha != 1.0 ? "_alpha" : "") << (c.with_c0 ? "_c0" : "");
  return s.str();
}

// Readable parameters in test listings instead of a byte dump.
void PrintTo(const Case& c, std::ostream* os) { *os << caseName(c); }

struct Inputs {
  Tensor u, x, wc, bias, c0, mask_c, mask_pad;
  SruRecurrenceOptions opt;
};

Inputs makeInputs(const Case& c, int64_t L, int64_t B, int64_t d, torch::Dtype dtype,
                  bool requires_grad) {
  torch::manual_seed(1234);
  Inputs in;
  in.opt.hidden_size = d;
  in.opt.bidirectional = c.bidirectional;
  in.opt.skip = c.skip;
  in.opt.alpha = c.alpha;
  const int64_t out = in.opt.outputSize(), k = in.opt.numMatrices();
  auto o = torch::TensorOptions().dtype(dtype);
  in.u = torch::randn({L, B, out * k}, o);
  if (c.skip == SruSkip::ScaledInput) in.x = torch::randn({L, B, out}, o);
  in.wc = torch::randn({2 * out}, o) * 0.5;
  in.bias = torch::randn({2 * out}, o) * 0.5;
  if (c.with_c0) in.c0 = torch::randn({B, out}, o);
  if (c.dropout) in.mask_c = torch::bernoulli(torch::full({B, out}, 0.7, o)) / 0.7;
  if (c.padded) {
    // Right padding with lengths L, L-2, 1, ... ; batch column 0 is never padded.
    in.mask_pad = torch::zeros({L, B}, torch::kBool);
    for (int64_t b = 1; b < B; ++b) {
      const int64_t len = std::max<int64_t>(1, L - 2 * b);
      in.mask_pad.slice(0, len, L).select(1, b).fill_(true);
    }
  }
  if (requires_grad) {
    for (Tensor* t : {&in.u, &in.x, &in.wc, &in.bias, &in.c0})
      if (t->defined()) t->set_requires_grad(true);
  }
  return in;
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (bool bi : {false, true})
    for (bool pad : {false, true})
      for (bool drop : {false, true})
        for (SruSkip skip : {SruSkip::None, SruSkip::ScaledInput, SruSkip::LearnedProjection})
          for (bool c0 : {false, true}) {
            cases.push_back({bi, pad, drop, skip, 1.0, c0});
            if (skip == SruSkip::ScaledInput) cases.push_back({bi, pad, drop, skip, std::sqrt(3.0), c0});
          }
  return cases;
}

class SruRecurrenceVsReference : public ::testing::TestWithParam<Case> {};

TEST_P(SruRecurrenceVsReference, ForwardAndEveryGradientMatchInDouble) {
  const Case c = GetParam();
  // d = 70 spans two column blocks of the kernel with a ragged second block.
  Inputs a = makeInputs(c, 7, 3, 70, torch::kDouble, true);
  Inputs b = makeInputs(c, 7, 3, 70, torch::kDouble, true);
  auto fused = sruRecurrence(a.u, a.x, a.wc, a.bias, a.c0, a.mask_c, a.mask_pad, a.opt);
  auto ref = sruRecurrenceReference(b.u, b.x, b.wc, b.bias, b.c0, b.mask_c, b.mask_pad, b.opt);
  ASSERT_EQ(fused[0].sizes(), ref[0].sizes());
  ASSERT_EQ(fused[1].sizes(), ref[1].sizes());
  EXPECT_TRUE(torch::allclose(fused[0], ref[0], 0, 1e-12)) << "h differs";
  EXPECT_TRUE(torch::allclose(fused[1], ref[1], 0, 1e-12)) << "last c differs";
  if (c.padded) {
    // Pad steps output exactly zero.
    auto pad_h = fused[0].masked_select(a.mask_pad.unsqueeze(2).expand_as(fused[0]));
    EXPECT_EQ(pad_h.abs().max().item<double>(), 0.0);
  }
  // A loss that weighs every output differently, so each gradient path is exercised.
  torch::manual_seed(99);
  Tensor wh = torch::randn(fused[0].sizes(), torch::kDouble);
  Tensor wcl = torch::randn(fused[1].sizes(), torch::kDouble);
  ((fused[0] * wh).sum() + (fused[1] * wcl).sum()).backward();
  ((ref[0] * wh).sum() + (ref[1] * wcl).sum()).backward();
  auto expectGrad = [](const Tensor& x, const Tensor& y, const char* name) {
    if (!x.defined()) return;
    ASSERT_TRUE(x.grad().defined()) << name << ": fused gradient missing";
    ASSERT_TRUE(y.grad().defined()) << name << ": reference gradient missing";
    const double err = (x.grad() - y.grad()).abs().max().item<double>();
    EXPECT_LT(err, 1e-12) << name << " gradient differs by " << err;
  };
  expectGrad(a.u, b.u, "u");
  expectGrad(a.x, b.x, "x");
  expectGrad(a.wc, b.wc, "weight_c");
  expectGrad(a.bias, b.bias, "bias");
  expectGrad(a.c0, b.c0, "c0");
}

TEST_P(SruRecurrenceVsReference, FloatKernelAgreesWithDoubleReference) {
  const Case c = GetParam();
  Inputs a = makeInputs(c, 9, 2, 33, torch::kFloat, false);
  Inputs b = makeInputs(c, 9, 2, 33, torch::kFloat, false);
  auto toDouble = [](const Tensor& t) { return t.defined() ? t.to(torch::kDouble) : t; };
  auto fused = sruRecurrence(a.u, a.x, a.wc, a.bias, a.c0, a.mask_c, a.mask_pad, a.opt);
  auto ref = sruRecurrenceReference(toDouble(b.u), toDouble(b.x), toDouble(b.wc),
                                    toDouble(b.bias), toDouble(b.c0), toDouble(b.mask_c),
                                    b.mask_pad, b.opt);
  // float32 has a 6e-8 unit roundoff; a few dozen operations per step over 9 steps stay
  // well inside 1e-5 for O(1) values.
  EXPECT_LT((fused[0].to(torch::kDouble) - ref[0]).abs().max().item<double>(), 1e-5);
  EXPECT_LT((fused[1].to(torch::kDouble) - ref[1]).abs().max().item<double>(), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(AllOptions, SruRecurrenceVsReference, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return caseName(info.param); });

TEST(SruRecurrence, FiniteDifferenceGradients) {
  for (const Case& c : {Case{true, true, true, SruSkip::ScaledInput, std::sqrt(3.0), true},
                        Case{false, false, false, SruSkip::LearnedProjection, 1.0, true}}) {
    Inputs in = makeInputs(c, 5, 3, 4, torch::kDouble, true);
    torch::manual_seed(5);
    Tensor wh = torch::randn({5, 3, in.opt.outputSize()}, torch::kDouble);
    auto loss = [&] {
      auto r = sruRecurrence(in.u, in.x, in.wc, in.bias, in.c0, in.mask_c, in.mask_pad, in.opt);
      return (r[0] * wh).sum() + r[1].pow(2).sum();
    };
    std::vector<Tensor> ins;
    std::vector<std::string> names;
    for (auto [t, n] : {std::pair{in.u, "u"}, {in.x, "x"}, {in.wc, "weight_c"},
                        {in.bias, "bias"}, {in.c0, "c0"}})
      if (t.defined()) {
        ins.push_back(t);
        names.push_back(n);
      }
    auto res = testing::checkGradients(loss, ins, names, 40);
    EXPECT_TRUE(res.ok) << caseName(c) << "\n" << res.report;
  }
}

TEST(SruRecurrence, ReverseDirectionOfBidirectionalEqualsForwardOnReversedInput) {
  // Direction 2 of a bidirectional call equals a unidirectional call over flipped time.
  Case c{true, false, false, SruSkip::ScaledInput, 1.0, true};
  Inputs bi = makeInputs(c, 6, 2, 5, torch::kDouble, false);
  auto res = sruRecurrence(bi.u, bi.x, bi.wc, bi.bias, bi.c0, {}, {}, bi.opt);
  const int64_t d = 5, k = 3;
  SruRecurrenceOptions uni = bi.opt;
  uni.bidirectional = false;
  Tensor u2 = bi.u.view({6, 2, 2, d * k}).select(2, 1).flip(0).contiguous();
  Tensor x2 = bi.x.slice(2, d, 2 * d).flip(0).contiguous();
  Tensor wc2 = torch::cat({bi.wc.slice(0, d, 2 * d), bi.wc.slice(0, 3 * d, 4 * d)});
  Tensor b2 = torch::cat({bi.bias.slice(0, d, 2 * d), bi.bias.slice(0, 3 * d, 4 * d)});
  auto r2 = sruRecurrence(u2, x2, wc2, b2, bi.c0.slice(1, d, 2 * d).contiguous(), {}, {}, uni);
  EXPECT_TRUE(torch::allclose(res[0].slice(2, d, 2 * d), r2[0].flip(0), 0, 1e-14));
  EXPECT_TRUE(torch::allclose(res[1].slice(1, d, 2 * d), r2[1], 0, 1e-14));
}

TEST(SruRecurrence, PadStepsCarryTheStateAndZeroTheOutput) {
  Case c{false, false, false, SruSkip::ScaledInput, 1.0, false};
  Inputs in = makeInputs(c, 4, 1, 3, torch::kDouble, false);
  Tensor pad = torch::tensor({false, true, false, true}, torch::kBool).view({4, 1});
  auto full = sruRecurrenceForward(in.u, in.x, in.wc, in.bias, {}, {}, pad, in.opt);
  EXPECT_TRUE(torch::equal(full.c[1], full.c[0]));  // carried
  EXPECT_TRUE(torch::equal(full.c[3], full.c[2]));
  EXPECT_EQ(full.h[1].abs().max().item<double>(), 0.0);
  EXPECT_TRUE(torch::equal(full.last_c, full.c[2]));
}

TEST(SruRecurrence, ParameterGradientsDoNotDependOnThreadCount) {
  Case c{true, true, true, SruSkip::ScaledInput, 1.0, true};
  Inputs in = makeInputs(c, 16, 8, 130, torch::kFloat, false);
  auto fwd = sruRecurrenceForward(in.u, in.x, in.wc, in.bias, in.c0, in.mask_c, in.mask_pad, in.opt);
  Tensor gh = torch::randn(fwd.h.sizes());
  const int before = at::get_num_threads();
  at::set_num_threads(1);
  auto g1 = sruRecurrenceBackward(gh, {}, in.u, in.x, in.wc, in.bias, in.c0, fwd.c, in.mask_c,
                                  in.mask_pad, in.opt);
  at::set_num_threads(std::max(2, before));
  auto g2 = sruRecurrenceBackward(gh, {}, in.u, in.x, in.wc, in.bias, in.c0, fwd.c, in.mask_c,
                                  in.mask_pad, in.opt);
  at::set_num_threads(before);
  EXPECT_TRUE(torch::equal(g1.grad_weight_c, g2.grad_weight_c));
  EXPECT_TRUE(torch::equal(g1.grad_bias, g2.grad_bias));
  EXPECT_TRUE(torch::equal(g1.grad_u, g2.grad_u));
}

// The kernel's large outputs come from recycled buffers (kernels/cpu/recycled_buffers.h): a
// result the caller still holds must survive the next call, and a recycled buffer full of NaN
// must not leak into a result (every element is written, pad steps included).
TEST(SruRecurrence, RecycledOutputBuffersNeitherOverwriteHeldResultsNorLeakOldValues) {
  Case c{true, true, true, SruSkip::ScaledInput, 1.0, true};
  Inputs in = makeInputs(c, 40, 8, 130, torch::kFloat, false);
  Inputs other = makeInputs(c, 40, 8, 130, torch::kFloat, false);
  other.u = other.u * 2 + 1;
  auto fwd = sruRecurrenceForward(in.u, in.x, in.wc, in.bias, in.c0, in.mask_c, in.mask_pad, in.opt);
  const Tensor h_copy = fwd.h.clone(), c_copy = fwd.c.clone();
  Tensor gh = torch::randn(fwd.h.sizes());
  auto g1 = sruRecurrenceBackward(gh, {}, in.u, in.x, in.wc, in.bias, in.c0, fwd.c, in.mask_c,
                                  in.mask_pad, in.opt);
  const Tensor gu_copy = g1.grad_u.clone(), gx_copy = g1.grad_x.clone();
  const Tensor gw_copy = g1.grad_weight_c.clone(), gb_copy = g1.grad_bias.clone();
  // Calls on other inputs while the first results are held.
  auto fwd2 = sruRecurrenceForward(other.u, other.x, other.wc, other.bias, other.c0,
                                   other.mask_c, other.mask_pad, other.opt);
  auto g2 = sruRecurrenceBackward(gh, {}, other.u, other.x, other.wc, other.bias, other.c0,
                                  fwd2.c, other.mask_c, other.mask_pad, other.opt);
  EXPECT_TRUE(torch::equal(fwd.h, h_copy)) << "a later call overwrote a held h";
  EXPECT_TRUE(torch::equal(fwd.c, c_copy)) << "a later call overwrote a held c";
  EXPECT_TRUE(torch::equal(g1.grad_u, gu_copy)) << "a later call overwrote a held dU";
  EXPECT_TRUE(torch::equal(g1.grad_x, gx_copy)) << "a later call overwrote a held dx";
  // Release every result, poison the freed buffers, and run the first backward again.
  g1 = {};
  g2 = {};
  fwd2 = {};
  {
    std::vector<Tensor> poison;
    for (int i = 0; i < 8; ++i)
      for (const Tensor& like : {gu_copy, gx_copy})
        poison.push_back(detail::recycledEmpty(like.sizes(), like.options())
                             .fill_(std::numeric_limits<float>::quiet_NaN()));
    poison.push_back(detail::recycledEmpty({4, 8, 260}, gu_copy.options().dtype(torch::kDouble))
                         .fill_(std::numeric_limits<double>::quiet_NaN()));
  }
  auto again = sruRecurrenceBackward(gh, {}, in.u, in.x, in.wc, in.bias, in.c0, fwd.c,
                                     in.mask_c, in.mask_pad, in.opt);
  EXPECT_TRUE(torch::equal(again.grad_u, gu_copy)) << "dU differs with recycled buffers";
  EXPECT_TRUE(torch::equal(again.grad_x, gx_copy)) << "dx differs with recycled buffers";
  EXPECT_TRUE(torch::equal(again.grad_weight_c, gw_copy));
  EXPECT_TRUE(torch::equal(again.grad_bias, gb_copy));
}

// ---- bad input -------------------------------------------------------------------------------

class SruRecurrenceBadInput : public ::testing::Test {
 protected:
  SruRecurrenceOptions opt{8, false, SruSkip::ScaledInput, 1.0};
  Tensor u = torch::randn({5, 2, 24}), x = torch::randn({5, 2, 8});
  Tensor wc = torch::randn({16}), bias = torch::zeros({16});
  bool fails(const std::function<void()>& fn, const std::string& fragment) {
    std::string msg;
    const bool ok = testing::throwsWith(fn, fragment, &msg);
    if (!ok) ADD_FAILURE() << "expected an error containing '" << fragment << "', got: " << msg;
    return ok;
  }
};

TEST_F(SruRecurrenceBadInput, WrongColumnCountNamesTheExpectedLayout) {
  SruRecurrenceOptions learned = opt;
  learned.hidden_size = 256;
  learned.skip = SruSkip::LearnedProjection;
  Tensor u3 = torch::randn({2, 1, 768});
  fails([&] { sruRecurrence(u3, {}, torch::zeros({512}), torch::zeros({512}), {}, {}, {}, learned); },
        "U has 768 columns, expected 1024 (4·d·dirs for a layer with a learned skip, d = 256");
}

TEST_F(SruRecurrenceBadInput, WrongRank) {
  fails([&] { sruRecurrence(u[0], x, wc, bias, {}, {}, {}, opt); }, "U must be (length, batch, columns)");
}

TEST_F(SruRecurrenceBadInput, DtypeMismatch) {
  fails([&] { sruRecurrence(u, x.to(torch::kDouble), wc, bias, {}, {}, {}, opt); },
        "x (the skip input; its size must equal dirs·d) has dtype Double but U has Float");
  fails([&] { sruRecurrence(u.to(torch::kHalf), x, wc, bias, {}, {}, {}, opt); },
        "U must be float32 or float64");
}

TEST_F(SruRecurrenceBadInput, MissingOrMisshapenSkipInput) {
  fails([&] { sruRecurrence(u, {}, wc, bias, {}, {}, {}, opt); },
        "x (the skip input; its size must equal dirs·d) is required, got none");
  fails([&] { sruRecurrence(u, torch::randn({5, 2, 9}), wc, bias, {}, {}, {}, opt); },
        "x (the skip input; its size must equal dirs·d) has shape [5, 2, 9], expected [5, 2, 8]");
}

TEST_F(SruRecurrenceBadInput, MasksOfTheWrongShapeOrType) {
  fails([&] { sruRecurrence(u, x, wc, bias, {}, {}, torch::zeros({2, 5}, torch::kBool), opt); },
        "mask_pad (nonzero = pad) has shape [2, 5], expected [5, 2]");
  fails([&] { sruRecurrence(u, x, wc, bias, {}, {}, torch::zeros({5, 2}), opt); },
        "mask_pad must be bool or uint8");
  fails([&] { sruRecurrence(u, x, wc, bias, {}, torch::ones({2, 7}), {}, opt); },
        "mask_c (dropout mask) has shape [2, 7], expected [2, 8]");
  fails([&] { sruRecurrence(u, x, wc, bias, torch::zeros({3, 8}), {}, {}, opt); },
        "c0 has shape [3, 8], expected [2, 8]");
  fails([&] { sruRecurrence(u, x, torch::randn({8}), bias, {}, {}, {}, opt); },
        "weight_c has shape [8], expected [16]");
}

}  // namespace
}  // namespace recurlab::kernels
