// The float backward of every CPU kernel (the path training takes) against the exact result in
// double, on the same float-rounded inputs, for every option combination (L = 33, against the
// naive autograd reference) and for sequences up to L = 4096 (against the kernel itself in
// double: it equals the naive reference to 1e-12 in the double-precision tests of each kernel,
// and the naive loop's autograd graph takes minutes at 4096 steps). `ctest -R 'Float.*Backward'`.
//
// Tolerances come from float's unit roundoff eps = 2^-24 and the length, not from a run:
// - a per-step gradient (of u, x, c0) is a sum of future contributions through the backward
//   state, each rounded over ~16 float operations; the state contracts (forget gates < 1), so
//   its error grows at most like a random walk: |error| <= 16·eps·sqrt(L)·(1 + max|g|).
// - a parameter gradient (SRU's weight_c and bias) is a sum over the L·B steps of terms rounded
//   in float; summed in double, its error is at most 16·eps·Σ|terms| whatever L is. A float sum
//   adds about eps·Σ_k|S_k| (S_k the partial sums), which grows with L: with terms of one sign
//   (ParameterGradientErrorDoesNotGrowWithLength) a float sum's error went from 2.9 to 11.0
//   eps·Σ|terms| between L = 256 and 4096 (summed in float on purpose); the double sum's stays.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"
#include "kernels/sru_recurrence.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
using Op = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

constexpr double kEps = std::numeric_limits<float>::epsilon() / 2;  // unit roundoff 2^-24

// Right padding: column b > 0 ends at max(1, L - L·b/(2B)).
Tensor padMask(int64_t L, int64_t B) {
  auto m = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 1; b < B; ++b) m.slice(0, std::max<int64_t>(1, L - L * b / (2 * B)), L).select(1, b).fill_(true);
  return m;
}

struct Gradients {
  std::vector<Tensor> kernel;     // float, one per input (undefined when it takes none)
  std::vector<Tensor> reference;  // double
  std::vector<Tensor> inputs;     // the double copies of the float inputs
};

// Runs `fused` in float and `reference` in double on the same float-rounded values, with the
// same random weighting of every output in the loss.
Gradients runBoth(const Op& fused, const Op& reference, const std::vector<Tensor>& double_inputs,
                  const std::vector<bool>& differentiable, bool unit_weights = false) {
  Gradients g;
  std::vector<Tensor> f_in, d_in;
  for (size_t i = 0; i < double_inputs.size(); ++i) {
    const Tensor& t = double_inputs[i];
    if (!t.defined() || !t.is_floating_point()) {
      f_in.push_back(t);
      d_in.push_back(t);
      continue;
    }
    Tensor f = t.detach().to(torch::kFloat), d = f.to(torch::kDouble);
    if (differentiable[i]) {
      f.set_requires_grad(true);
      d.set_requires_grad(true);
    }
    f_in.push_back(f);
    d_in.push_back(d);
  }
  const auto f_out = fused(f_in);
  const auto d_out = reference(d_in);
  torch::manual_seed(77);
  Tensor f_loss = torch::zeros({}, torch::kFloat), d_loss = torch::zeros({}, torch::kDouble);
  for (size_t k = 0; k < f_out.size(); ++k) {
    const Tensor w = unit_weights ? torch::ones(f_out[k].sizes(), torch::kFloat)
                                  : torch::randn(f_out[k].sizes(), torch::kFloat);
    f_loss = f_loss + (f_out[k] * w).sum();
    d_loss = d_loss + (d_out[k] * w.to(torch::kDouble)).sum();
  }
  f_loss.backward();
  d_loss.backward();
  for (size_t i = 0; i < f_in.size(); ++i) {
    const bool has = differentiable[i] && f_in[i].defined();
    g.kernel.push_back(has ? f_in[i].grad() : Tensor());
    g.reference.push_back(has ? d_in[i].grad() : Tensor());
    g.inputs.push_back(d_in[i].defined() ? d_in[i].detach() : Tensor());
  }
  return g;
}

// |kernel - reference| <= 16·eps·sqrt(L)·(1 + max|reference|), for a per-step gradient.
void expectPerStepGradient(const Tensor& kernel, const Tensor& reference, int64_t L,
                           const std::string& what) {
  ASSERT_TRUE(kernel.defined()) << what << ": no kernel gradient";
  ASSERT_TRUE(reference.defined()) << what << ": no reference gradient";
  const double scale = 1 + reference.abs().max().item<double>();
  const double bound = 16 * kEps * std::sqrt(static_cast<double>(L)) * scale;
  const double error = (kernel.to(torch::kDouble) - reference).abs().max().item<double>();
  EXPECT_LE(error, bound) << what << " (L = " << L << "): error " << error << " > bound "
                          << bound << " = 16 eps sqrt(L) (1 + " << scale - 1 << ")";
}

// ---- SRU ---------------------------------------------------------------------------------

struct SruCase {
  bool bidirectional, padded, dropout, c0;
  SruSkip skip;
};

std::string nameOf(const SruCase& c) {
  std::ostringstream s;
  s << (c.bidirectional ? "bi" : "uni") << (c.padded ? " pad" : "") << (c.dropout ? " drop" : "")
    << (c.c0 ? " c0" : "")
    << (c.skip == SruSkip::None ? " noskip" : c.skip == SruSkip::ScaledInput ? " scaled" : " learned");
  return s.str();
}

// Long sequences compare with the kernel in double (see the top of the file).
bool naiveReferenceFor(int64_t L) { return L <= 64; }

// Returns, per parameter gradient (weight_c, bias), max over columns of error / (eps·Σ|terms|).
// `drift`: positive candidate values, c0 and loss weights, so that every term of the bias and
// weight_c gradients of the reset gate has one sign and a float sum's error grows with L.
std::vector<double> checkSru(const SruCase& c, int64_t L, int64_t B, int64_t d, bool drift = false) {
  SCOPED_TRACE(nameOf(c) + " L=" + std::to_string(L));
  SruRecurrenceOptions opt;
  opt.hidden_size = d;
  opt.bidirectional = c.bidirectional;
  opt.skip = c.skip;
  opt.alpha = c.skip == SruSkip::ScaledInput ? std::sqrt(3.0) : 1.0;
  const int64_t out = opt.outputSize(), K = opt.numMatrices();
  torch::manual_seed(11);
  auto o = torch::TensorOptions().dtype(torch::kDouble);
  Tensor u = torch::randn({L, B, out * K}, o);
  if (drift) u.view({L, B, out, K}).select(3, 0).abs_().add_(0.1);
  std::vector<Tensor> in{
      u,
      c.skip == SruSkip::ScaledInput ? torch::randn({L, B, out}, o) : Tensor(),
      torch::randn({2 * out}, o) * 0.5, torch::randn({2 * out}, o) * 0.5,
      c.c0 ? (drift ? torch::rand({B, out}, o) + 0.1 : torch::randn({B, out}, o)) : Tensor(),
      c.dropout ? torch::bernoulli(torch::full({B, out}, 0.7, o)) / 0.7 : Tensor(),
      c.padded ? padMask(L, B) : Tensor()};
  const auto g = runBoth(
      [&](const std::vector<Tensor>& x) { return sruRecurrence(x[0], x[1], x[2], x[3], x[4], x[5], x[6], opt); },
      [&](const std::vector<Tensor>& x) {
        return naiveReferenceFor(L)
                   ? sruRecurrenceReference(x[0], x[1], x[2], x[3], x[4], x[5], x[6], opt)
                   : sruRecurrence(x[0], x[1], x[2], x[3], x[4], x[5], x[6], opt);
      },
      in, {true, true, true, true, true, false, false}, drift);
  expectPerStepGradient(g.kernel[0], g.reference[0], L, "grad u");
  if (in[1].defined()) expectPerStepGradient(g.kernel[1], g.reference[1], L, "grad x");
  if (in[4].defined()) expectPerStepGradient(g.kernel[4], g.reference[4], L, "grad c0");
  // Parameter gradients: Σ over steps and batch of g_f·c_{t-1}, g_r·c_{t-1} (weight_c) and
  // g_f, g_r (bias), where g_f, g_r are the gradients of u's f and r columns.
  const auto& x = g.inputs;
  const Tensor states = sruRecurrenceForward(x[0], x[1], x[2], x[3], x[4], x[5], x[6], opt).c;
  Tensor c_prev = torch::zeros_like(states);  // c_{t-1} in each direction's own order
  const Tensor c0 = x[4].defined() ? x[4] : torch::zeros({B, out}, o);
  if (L > 1) c_prev.slice(0, 1, L).slice(2, 0, d).copy_(states.slice(0, 0, L - 1).slice(2, 0, d));
  c_prev[0].slice(1, 0, d).copy_(c0.slice(1, 0, d));
  if (c.bidirectional) {
    if (L > 1) c_prev.slice(0, 0, L - 1).slice(2, d, out).copy_(states.slice(0, 1, L).slice(2, d, out));
    c_prev[L - 1].slice(1, d, out).copy_(c0.slice(1, d, out));
  }
  const Tensor gu = g.reference[0].view({L, B, out, K});
  const Tensor gf = gu.select(3, 1), gr = gu.select(3, 2);
  const Tensor terms_wc = torch::cat(std::vector<Tensor>{(gf * c_prev).abs().sum(at::IntArrayRef{0, 1}), (gr * c_prev).abs().sum(at::IntArrayRef{0, 1})});
  const Tensor terms_bias = torch::cat(std::vector<Tensor>{gf.abs().sum(at::IntArrayRef{0, 1}), gr.abs().sum(at::IntArrayRef{0, 1})});
  std::vector<double> worst_ratios;
  for (int p : {2, 3}) {
    const Tensor& terms = p == 2 ? terms_wc : terms_bias;
    const Tensor error = (g.kernel[p].to(torch::kDouble) - g.reference[p]).abs();
    const Tensor bound = 16 * kEps * (terms + g.reference[p].abs());
    const Tensor ratio = error / (bound + 1e-300);  // a column with no terms must be exact
    const int64_t worst = ratio.argmax().item<int64_t>();
    EXPECT_LE(ratio.max().item<double>(), 1.0)
        << (p == 2 ? "grad weight_c" : "grad bias") << " column " << worst << ": error "
        << error[worst].item<double>() << " > 16 eps Σ|terms| = " << bound[worst].item<double>();
    worst_ratios.push_back(16 * ratio.max().item<double>());
  }
  return worst_ratios;
}

TEST(FloatSruBackward, EveryOptionAgainstTheDoubleReference) {
  for (bool bi : {false, true})
    for (bool pad : {false, true})
      for (bool drop : {false, true})
        for (bool c0 : {false, true})
          for (SruSkip skip : {SruSkip::None, SruSkip::ScaledInput, SruSkip::LearnedProjection})
            checkSru({bi, pad, drop, c0, skip}, 33, 3, 37);
}

TEST(FloatSruBackward, LongSequencesUpTo4096Steps) {
  for (int64_t L : {16, 256, 4096}) {
    checkSru({false, true, true, true, SruSkip::ScaledInput}, L, 2, 24);
    checkSru({true, false, false, false, SruSkip::None}, L, 2, 24);
  }
}

// Terms of one sign: a float sum's error grows with L (2.9 -> 11.0 eps·Σ|terms| from L = 256
// to 4096 when summed in float on purpose), the double sum's is the terms' own rounding only,
// the same at every length.
TEST(FloatSruBackward, ParameterGradientErrorDoesNotGrowWithLength) {
  const SruCase c{false, false, false, true, SruSkip::None};
  const auto short_run = checkSru(c, 256, 2, 16, true);
  const auto long_run = checkSru(c, 4096, 2, 16, true);
  for (size_t p = 0; p < 2; ++p)
    EXPECT_LE(long_run[p], 2 * short_run[p] + 2)
        << (p == 0 ? "weight_c" : "bias") << ": error / (eps Σ|terms|) grew from "
        << short_run[p] << " at L = 256 to " << long_run[p] << " at L = 4096";
}

// ---- QRNN, rational recurrences, n-gram: per-step gradients only (their parameters, RRNN(F)'s
// weights, are summed in double and checked with the per-step bound's sqrt(L) growth) ----------

void checkQrnn(bool gate, bool zoneout, bool c0, bool pad, int64_t L, int64_t B, int64_t d) {
  SCOPED_TRACE(::testing::Message() << "qrnn gate " << gate << " zoneout " << zoneout << " c0 "
                                    << c0 << " pad " << pad << " L=" << L);
  const QrnnPoolingOptions opt{d, gate};
  torch::manual_seed(12);
  auto o = torch::TensorOptions().dtype(torch::kDouble);
  std::vector<Tensor> in{torch::randn({L, B, d * opt.numMatrices()}, o),
                         c0 ? torch::randn({B, d}, o) : Tensor(),
                         zoneout ? torch::bernoulli(torch::full({L, B, d}, 0.7, o)) : Tensor(),
                         pad ? padMask(L, B) : Tensor()};
  const auto g = runBoth(
      [&](const std::vector<Tensor>& x) { return qrnnPooling(x[0], x[1], x[2], x[3], opt); },
      [&](const std::vector<Tensor>& x) {
        return naiveReferenceFor(L) ? qrnnPoolingReference(x[0], x[1], x[2], x[3], opt)
                                    : qrnnPooling(x[0], x[1], x[2], x[3], opt);
      },
      in, {true, true, false, false});
  expectPerStepGradient(g.kernel[0], g.reference[0], L, "grad u");
  if (c0) expectPerStepGradient(g.kernel[1], g.reference[1], L, "grad c0");
}

TEST(FloatQrnnBackward, EveryOptionAndLongSequences) {
  for (bool gate : {false, true})
    for (bool zoneout : {false, true})
      for (bool c0 : {false, true})
        for (bool pad : {false, true}) checkQrnn(gate, zoneout, c0, pad, 33, 3, 19);
  for (int64_t L : {256, 4096}) checkQrnn(true, true, true, true, L, 2, 16);
}

void checkRational(RationalPattern pattern, Semiring semiring, bool gate, bool c0, bool pad,
                   int64_t L, int64_t B, int64_t d) {
  SCOPED_TRACE(::testing::Message() << "rational pattern " << static_cast<int>(pattern)
                                    << " max-plus " << (semiring == Semiring::MaxPlus) << " gate "
                                    << gate << " c0 " << c0 << " pad " << pad << " L=" << L);
  const RationalRecurrenceOptions opt{d, pattern, semiring, gate};
  torch::manual_seed(13);
  auto o = torch::TensorOptions().dtype(torch::kDouble);
  std::vector<Tensor> in{torch::randn({L, B, d * opt.numMatrices()}, o),
                         pattern == RationalPattern::F ? torch::randn({opt.numWeights()}, o) : Tensor(),
                         c0 ? torch::randn({B, opt.numStates() * d}, o) : Tensor(),
                         pad ? padMask(L, B) : Tensor()};
  const auto g = runBoth(
      [&](const std::vector<Tensor>& x) { return rationalRecurrence(x[0], x[1], x[2], x[3], opt); },
      [&](const std::vector<Tensor>& x) {
        return naiveReferenceFor(L) ? rationalRecurrenceReference(x[0], x[1], x[2], x[3], opt)
                                    : rationalRecurrence(x[0], x[1], x[2], x[3], opt);
      },
      in, {true, true, true, false});
  expectPerStepGradient(g.kernel[0], g.reference[0], L, "grad u");
  if (in[1].defined()) expectPerStepGradient(g.kernel[1], g.reference[1], L * B, "grad weight");
  if (c0) expectPerStepGradient(g.kernel[2], g.reference[2], L, "grad c0");
}

TEST(FloatRationalBackward, EveryOptionAndLongSequences) {
  for (RationalPattern pattern : {RationalPattern::B, RationalPattern::C, RationalPattern::F})
    for (Semiring semiring : {Semiring::PlusTimes, Semiring::MaxPlus})
      for (bool gate : {false, true})
        for (bool c0 : {false, true})
          for (bool pad : {false, true}) checkRational(pattern, semiring, gate, c0, pad, 33, 3, 13);
  for (int64_t L : {256, 4096})
    for (RationalPattern pattern : {RationalPattern::B, RationalPattern::F})
      checkRational(pattern, Semiring::PlusTimes, true, true, true, L, 2, 8);
}

void checkNgram(int64_t n, bool gate, bool c0, bool pad, int64_t L, int64_t B, int64_t d) {
  SCOPED_TRACE(::testing::Message() << "ngram n " << n << " gate " << gate << " c0 " << c0
                                    << " pad " << pad << " L=" << L);
  const NgramRecurrenceOptions opt{d, n, gate};
  torch::manual_seed(14);
  auto o = torch::TensorOptions().dtype(torch::kDouble);
  std::vector<Tensor> in{torch::randn({L, B, d * opt.numMatrices()}, o),
                         c0 ? torch::randn({B, n * d}, o) : Tensor(),
                         pad ? padMask(L, B) : Tensor()};
  const auto g = runBoth(
      [&](const std::vector<Tensor>& x) { return ngramRecurrence(x[0], x[1], x[2], opt); },
      [&](const std::vector<Tensor>& x) {
        return naiveReferenceFor(L) ? ngramRecurrenceReference(x[0], x[1], x[2], opt)
                                    : ngramRecurrence(x[0], x[1], x[2], opt);
      },
      in, {true, true, false});
  expectPerStepGradient(g.kernel[0], g.reference[0], L, "grad u");
  if (c0) expectPerStepGradient(g.kernel[1], g.reference[1], L, "grad c0");
}

TEST(FloatNgramBackward, EveryOptionAndLongSequences) {
  for (int64_t n = 1; n <= 4; ++n)
    for (bool gate : {false, true})
      for (bool c0 : {false, true})
        for (bool pad : {false, true}) checkNgram(n, gate, c0, pad, 33, 3, 11);
  for (int64_t L : {256, 4096}) checkNgram(3, true, true, true, L, 2, 8);
}

}  // namespace
}  // namespace recurlab::kernels
