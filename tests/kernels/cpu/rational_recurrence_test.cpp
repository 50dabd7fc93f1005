#include "kernels/rational_recurrence.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/support/naive_recurrences.h"
#include "tests/support/recurrence_check.h"

namespace recurlab::kernels {
namespace {

using testing::RecurrenceOp;

constexpr int64_t L = 5, B = 3, D = 67;  // two column blocks (64 + 3)

const char* nameOf(RationalPattern p) {
  return p == RationalPattern::B ? "B" : p == RationalPattern::C ? "C" : "F";
}

struct Case {
  RationalPattern pattern;
  Semiring semiring;
  bool gate, c0, pad;
  RationalRecurrenceOptions options(int64_t d = D) const { return {d, pattern, semiring, gate}; }
};

std::vector<torch::Tensor> inputsFor(const Case& c, torch::Dtype dtype, int64_t l = L,
                                     int64_t b = B, int64_t d = D) {
  torch::manual_seed(2);
  const auto opt = c.options(d);
  auto o = torch::TensorOptions().dtype(dtype);
  torch::Tensor pad;
  if (c.pad) {
    pad = torch::zeros({l, b}, torch::kBool);
    pad.slice(0, l - 2, l).select(1, 0).fill_(true);  // right padding
    pad.select(1, b - 1)[0] = true;                     // a leading pad step
  }
  return {torch::randn({l, b, d * opt.numMatrices()}, o).set_requires_grad(true),
          c.pattern == RationalPattern::F ? torch::randn({3 * d}, o).set_requires_grad(true)
                                          : torch::Tensor(),
          c.c0 ? torch::randn({b, opt.numStates() * d}, o).set_requires_grad(true)
               : torch::Tensor(),
          pad};
}

RecurrenceOp fusedOp(const RationalRecurrenceOptions& opt) {
  return [opt](const std::vector<torch::Tensor>& in) {
    return rationalRecurrence(in[0], in[1], in[2], in[3], opt);
  };
}

RecurrenceOp referenceOp(const RationalRecurrenceOptions& opt) {
  return [opt](const std::vector<torch::Tensor>& in) {
    return rationalRecurrenceReference(in[0], in[1], in[2], in[3], opt);
  };
}

const RationalPattern kPatterns[] = {RationalPattern::B, RationalPattern::C, RationalPattern::F};
const Semiring kSemirings[] = {Semiring::PlusTimes, Semiring::MaxPlus};

TEST(RationalRecurrence, MatchesReferenceInDoubleOverAllOptions) {
  for (auto pattern : kPatterns)
    for (auto semiring : kSemirings)
      for (bool gate : {false, true})
        for (bool c0 : {false, true})
          for (bool pad : {false, true}) {
            const Case c{pattern, semiring, gate, c0, pad};
            SCOPED_TRACE(::testing::Message()
                         << "pattern " << nameOf(pattern) << " max-plus "
                         << (semiring == Semiring::MaxPlus) << " gate " << gate << " c0 " << c0
                         << " pad " << pad);
            testing::expectSameForwardBackward(fusedOp(c.options()), referenceOp(c.options()),
                                               inputsFor(c, torch::kDouble), 1e-12);
          }
}

TEST(RationalRecurrence, Float32MatchesReference) {
  for (auto semiring : kSemirings) {
    const Case c{RationalPattern::F, semiring, true, true, true};
    testing::expectSameForwardBackward(fusedOp(c.options()), referenceOp(c.options()),
                                       inputsFor(c, torch::kFloat), 2e-5);
  }
}

TEST(RationalRecurrence, GradientsMatchFiniteDifferences) {
  // Max-plus is piecewise linear: random inputs sit away from ties with probability one, so
  // central differences of step 1e-6 do not cross a kink.
  for (auto pattern : kPatterns)
    for (auto semiring : kSemirings) {
      const Case c{pattern, semiring, true, true, true};
      SCOPED_TRACE(::testing::Message() << "pattern " << nameOf(pattern) << " max-plus "
                                        << (semiring == Semiring::MaxPlus));
      testing::expectGradientsMatchFiniteDifferences(fusedOp(c.options()),
                                                     inputsFor(c, torch::kDouble), 6, 1e-6, 1e-6);
    }
}

TEST(RationalRecurrence, MaxPlusTiesRouteTheGradientToTheCarriedPath) {
  // d = 1, B = 1, L = 2, pattern B, no gate: c1 = u_z1 (c0 = -inf), c2 = max(f2 + c1, z2).
  // Choose z2 = f2 + c1 exactly: the carried path must get the whole gradient.
  const double f2pre = 0.3;
  const double f2 = -std::log1p(std::exp(-f2pre));
  const double z1 = 0.25;
  auto u = torch::tensor({z1, 0.0, f2 + z1, f2pre}, torch::kDouble).view({2, 1, 2});
  auto res = rationalRecurrenceForward(u, {}, {}, {}, {1, RationalPattern::B, Semiring::MaxPlus, false});
  auto grad_last = torch::ones({1, 1}, torch::kDouble);
  auto g = rationalRecurrenceBackward({}, grad_last, u, {}, {}, res.c, {},
                                      {1, RationalPattern::B, Semiring::MaxPlus, false});
  const auto gu = g.grad_u.view(-1);
  EXPECT_DOUBLE_EQ(gu[2].item<double>(), 0.0);  // z2 loses the tie
  EXPECT_DOUBLE_EQ(gu[0].item<double>(), 1.0);  // z1 through the carried path
  EXPECT_GT(gu[3].item<double>(), 0.0);         // f2 on the carried path
}

// Brute force over the WFSA's paths (Peng et al. (2018) §4-5): states q0 (initial, weight one,
// loops with one), q1 (loop f1, entered from q0 with w1), q2 (loop f2, entered from q1 with w2, and
// for F from q0 with r ⊗ w2). Final weights: B q1; C q2; F p1 at q1, p2 at q2. The score ⊕ of all
// path scores must equal the kernel's h before tanh (with the gate: o ⊗ score).
double bruteForceScore(const Case& c, const torch::Tensor& u, const torch::Tensor& weight,
                       int64_t t_end, int64_t b, int64_t j) {
  const bool mp = c.semiring == Semiring::MaxPlus;
  const auto opt = c.options(u.size(2) / c.options(1).numMatrices());
  const int64_t S = opt.numStates(), k = opt.numMatrices(), d = opt.hidden_size;
  auto gate = [&](double x) { return mp ? -std::log1p(std::exp(-x)) : 1.0 / (1.0 + std::exp(-x)); };
  auto plus = [&](double a, double bb) { return mp ? std::max(a, bb) : a + bb; };
  auto times = [&](double a, double bb) { return mp ? a + bb : a * bb; };
  const double zero = mp ? -std::numeric_limits<double>::infinity() : 0.0, one = mp ? 0.0 : 1.0;
  auto at = [&](int64_t t, int64_t q) { return u[t][b][j * k + q].item<double>(); };
  auto f = [&](int64_t t, int64_t s) { return gate(at(t, S + s)); };
  auto w = [&](int64_t t, int64_t s) {
    return mp ? at(t, s) : (1.0 - 1.0 / (1.0 + std::exp(-at(t, S + s)))) * at(t, s);
  };
  const bool isF = c.pattern == RationalPattern::F;
  const double r = isF ? gate(weight[j].item<double>()) : 0.0;
  auto tau = [&](int64_t t, int from, int to) {
    if (from == 0 && to == 0) return one;
    if (from == 0 && to == 1) return w(t, 0);
    if (from == 1 && to == 1) return f(t, 0);
    if (S == 2 && from == 1 && to == 2) return w(t, 1);
    if (S == 2 && isF && from == 0 && to == 2) return times(r, w(t, 1));
    if (S == 2 && from == 2 && to == 2) return f(t, 1);
    return zero;
  };
  auto finalWeight = [&](int q) {
    if (c.pattern == RationalPattern::B) return q == 1 ? one : zero;
    if (c.pattern == RationalPattern::C) return q == 2 ? one : zero;
    if (q == 1) return gate(weight[d + j].item<double>());
    if (q == 2) return gate(weight[2 * d + j].item<double>());
    return zero;
  };
  const int states = static_cast<int>(S) + 1;
  int64_t paths = 1;
  for (int64_t t = 0; t <= t_end; ++t) paths *= states;
  double total = zero;
  for (int64_t p = 0; p < paths; ++p) {
    int64_t code = p;
    int prev = 0;
    double score = one;
    for (int64_t t = 0; t <= t_end; ++t) {
      const int q = static_cast<int>(code % states);
      code /= states;
      score = times(score, tau(t, prev, q));
      prev = q;
    }
    total = plus(total, times(score, finalWeight(prev)));
  }
  return total;
}

TEST(RationalRecurrence, EqualsBruteForceOverWfsaPaths) {
  constexpr int64_t l = 6, b = 2, d = 3;
  for (auto pattern : kPatterns)
    for (auto semiring : kSemirings)
      for (bool gate : {false, true}) {
        const Case c{pattern, semiring, gate, false, false};
        SCOPED_TRACE(::testing::Message() << "pattern " << nameOf(pattern) << " max-plus "
                                          << (semiring == Semiring::MaxPlus) << " gate " << gate);
        auto in = inputsFor(c, torch::kDouble, l, b, d);
        const auto u = in[0].detach(), weight = in[1].defined() ? in[1].detach() : in[1];
        const auto opt = c.options(d);
        const auto h = rationalRecurrenceForward(u, weight, {}, {}, opt).h;
        for (int64_t t = 0; t < l; ++t)
          for (int64_t bb = 0; bb < b; ++bb)
            for (int64_t j = 0; j < d; ++j) {
              double score = bruteForceScore(c, u, weight, t, bb, j);
              if (gate) {
                const double o_pre = u[t][bb][j * opt.numMatrices() + 2 * opt.numStates()].item<double>();
                score = semiring == Semiring::MaxPlus ? score - std::log1p(std::exp(-o_pre))
                                                      : score / (1.0 + std::exp(-o_pre));
              }
              EXPECT_NEAR(h[t][bb][j].item<double>(), std::tanh(score), 1e-12)
                  << "t " << t << " b " << bb << " j " << j;
            }
      }
}

TEST(RationalRecurrence, BadInputsGiveClearErrors) {
  const RationalRecurrenceOptions f{D, RationalPattern::F, Semiring::PlusTimes, true};
  auto u = torch::randn({L, B, 5 * D});
  try {
    rationalRecurrenceForward(u, {}, {}, {}, f);
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("weight [b_r | b_p1 | b_p2] (pattern F) is required"),
              std::string::npos)
        << e.what();
  }
  try {
    rationalRecurrenceForward(u, {}, {}, {}, {D, RationalPattern::B, Semiring::PlusTimes, true});
    FAIL() << "expected an error";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("[z, f, o] per unit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rationalRecurrenceForward(u, torch::zeros({3 * D}), torch::zeros({B, D}), {}, f),
               c10::Error);  // c0 must hold both states
  EXPECT_THROW(rationalRecurrenceForward(u, torch::zeros({2 * D}), {}, {}, f), c10::Error);
  EXPECT_THROW(rationalRecurrenceForward(torch::randn({L, B, 2 * D}), torch::zeros({3 * D}), {},
                                         {}, {D, RationalPattern::B, Semiring::MaxPlus, false}),
               c10::Error);  // only F takes weights
}

}  // namespace
}  // namespace recurlab::kernels
