// The CUDA kernels' code run on the host (kernels/cuda/host_emulation.h), through the same
// launchers the GPU build uses: indexing, time direction, padding, the chunked loads, the batch
// reduction and the float/double/half/bfloat16 paths are checked where there is no GPU. Double
// results are compared with the CPU kernels in double (to 1e-12); float, half and bfloat16 ones
// with the naive references in double on the same inputs, each element within its
// rounding-error bound (tests/support/rounding_bound.h, bounds in cuda_test_support.h), so a
// kernel that loses precision (carries a state in bfloat16, sums in the wrong precision) or
// errs in a few elements fails. Arithmetic is the host's, so this is not a test of the GPU's
// rounding (the GPU tests are). Built only into recurlab_cuda_emulation_tests
// (kernels/cuda/CMakeLists.txt).
#ifdef RECURLAB_CUDA_EMULATION_TESTS

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "kernels/linear_recurrence.h"
#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"
#include "kernels/sru_recurrence.h"
#include "kernels/cuda/linear_recurrence_launch.h"
#include "kernels/cuda/ngram_recurrence_launch.h"
#include "kernels/cuda/qrnn_pooling_launch.h"
#include "kernels/cuda/rational_recurrence_launch.h"
#include "kernels/cuda/sru_recurrence_launch.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/naive_recurrences.h"
#include "tests/support/rounding_bound.h"

namespace recurlab::kernels {
namespace {

namespace kc = recurlab::kernels::cuda;
using recurlab::testing::allClose;
using recurlab::testing::ErrorSource;
using recurlab::testing::forwardRounding;
using recurlab::testing::fromPerStepTerms;
using recurlab::testing::gradientRounding;
using recurlab::testing::KernelRun;
using recurlab::testing::largestMagnitude;
using recurlab::testing::ParameterGradient;
using recurlab::testing::perStepCopies;
using recurlab::testing::RoundingModel;
using torch::Tensor;

kc::CudaScalar scalarOf(torch::Dtype dtype) {
  switch (dtype) {
    case torch::kDouble: return kc::CudaScalar::Double;
    case torch::kHalf: return kc::CudaScalar::Half;
    case torch::kBFloat16: return kc::CudaScalar::BFloat16;
    default: return kc::CudaScalar::Float;
  }
}

torch::Dtype accumulatorOf(torch::Dtype dtype) {
  return dtype == torch::kDouble ? torch::kDouble : torch::kFloat;
}

const void* ptr(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
const uint8_t* bytes(const Tensor& t) {
  return t.defined() ? static_cast<const uint8_t*>(t.data_ptr()) : nullptr;
}
Tensor as(const Tensor& t, torch::Dtype dtype) {
  return t.defined() ? t.to(dtype).contiguous() : t;
}

// Compares what the emulated kernel produced (any dtype) with, for double, the CPU kernel's
// double result (to 1e-12), else the exact value within its rounding bound.
void expectMatch(const Tensor& got, const Tensor& cpu_double, const Tensor& exact,
                 torch::Dtype dtype, const std::vector<ErrorSource>& bound,
                 const std::string& what) {
  if (dtype == torch::kDouble)
    EXPECT_TRUE(allClose(got, cpu_double, 1e-12, 1e-12, what));
  else
    recurlab::testing::expectWithinBound(got, exact, bound, what);
}

// The same for an elementwise output or gradient computed along a chain of `model` from
// `sources` (see elementwiseBound).
void expectMatch(const Tensor& got, const Tensor& cpu_double, const Tensor& exact,
                 torch::Dtype dtype, const RoundingModel& model,
                 const std::vector<Tensor>& sources, const std::string& what) {
  if (dtype == torch::kDouble)
    EXPECT_TRUE(allClose(got, cpu_double, 1e-12, 1e-12, what));
  else
    recurlab::testing::expectWithinBound(got, exact, model, sources, what);
}

// A zero initial state where none is given, so that the reference has a gradient for it too
// (the kernels always write one).
Tensor orZeros(const Tensor& c0, int64_t B, int64_t width, torch::Dtype dtype) {
  return c0.defined() ? c0 : torch::zeros({B, width}, dtype);
}

// The naive reference in double on `inputs` (any dtype, converted exactly): outputs {h, last_c}
// and the gradients of sum(h·grad_h) + sum(last_c·grad_last_c) for the inputs marked
// differentiable.
KernelRun exactRun(const recurlab::testing::RecurrenceFn& reference,
                   const std::vector<Tensor>& inputs, const std::vector<bool>& differentiable,
                   const std::vector<Tensor>& grad_outputs) {
  return recurlab::testing::runKernel(reference, inputs, differentiable, grad_outputs,
                                      torch::kCPU, torch::kDouble);
}

const std::vector<torch::Dtype> kDtypes = {torch::kDouble, torch::kFloat, torch::kHalf,
                                           torch::kBFloat16};

// Sizes: several blocks of columns and chunks with a tail; then the GPU tests' odd sizes (one
// step of one unit, where no other value of the column bounds the error; many short sequences;
// batch 1 with units not a multiple of the emulated block).
struct Size {
  int64_t L, B, d;
};
const std::vector<Size> kSizes = {{11, 3, 37}, {1, 1, 1}, {3, 130, 3}, {5, 1, 33}};

std::string sizeText(const Size& z) {
  return "L=" + std::to_string(z.L) + " B=" + std::to_string(z.B) + " d=" + std::to_string(z.d);
}

struct SruCase {
  int64_t L, B, d;
  bool bidir;
  SruSkip skip;
  int flags;  // 1: c0, 2: mask_c, 4: mask_pad
  torch::Dtype dtype;
};

// One SRU case: the emulated forward and backward against the CPU kernel (double) or the naive
// reference (float, half, bfloat16).
void checkSru(const SruCase& sc, uint64_t seed) {
  torch::manual_seed(seed);
  const int64_t L = sc.L, B = sc.B, d = sc.d;
  const torch::Dtype dtype = sc.dtype, f64 = torch::kDouble;
  SruRecurrenceOptions opt{d, sc.bidir, sc.skip, 1.3};
  const int64_t out = opt.outputSize(), k = opt.numMatrices();
  // Inputs in `dtype`; the references see the same values in double.
  const Tensor u = torch::randn({L, B, out * k}).to(dtype);
  const Tensor x =
      sc.skip == SruSkip::ScaledInput ? torch::randn({L, B, out}).to(dtype) : Tensor();
  const Tensor wc = (torch::rand({2 * out}) * 2 - 1).to(dtype);
  const Tensor bias = torch::randn({2 * out}).to(dtype);
  const Tensor c0 = sc.flags & 1 ? torch::randn({B, out}).to(dtype) : Tensor();
  const Tensor mask_c =
      sc.flags & 2 ? (torch::bernoulli(torch::full({B, out}, 0.75)) / 0.75).to(dtype) : Tensor();
  const Tensor pad = sc.flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
  const Tensor gh = torch::randn({L, B, out}).to(dtype);
  const Tensor glc = torch::randn({B, out}).to(dtype);
  const std::string label = "SRU " + sizeText({L, B, d}) + " skip " +
                            std::to_string(static_cast<int>(sc.skip)) +
                            (sc.bidir ? " bidir" : "") + " flags " + std::to_string(sc.flags) +
                            " " + c10::toString(dtype);

  const SruForwardResult want = sruRecurrenceForward(as(u, f64), as(x, f64), as(wc, f64),
                                                     as(bias, f64), as(c0, f64),
                                                     as(mask_c, f64), pad, opt);
  const SruBackwardResult gwant = sruRecurrenceBackward(
      as(gh, f64), as(glc, f64), as(u, f64), as(x, f64), as(wc, f64), as(bias, f64),
      as(c0, f64), want.c, as(mask_c, f64), pad, opt);
  // Exact values; weight_c and bias per step, so that their gradients come as terms.
  const KernelRun exact = exactRun(
      [&](const std::vector<Tensor>& in) {
        return sruRecurrenceReference(in[0], in[1], in[2], in[3], in[4], in[5], in[6], opt);
      },
      {u, x, perStepCopies(wc, L, B), perStepCopies(bias, L, B), orZeros(c0, B, out, dtype),
       mask_c, pad},
      {true, true, true, true, true, false, false}, {gh, glc});
  const Tensor term_scale = recurlab::testing::termScale({exact.grads[0], exact.grads[1]});
  const ParameterGradient exact_wc = fromPerStepTerms(exact.grads[2], dtype, term_scale);
  const ParameterGradient exact_bias = fromPerStepTerms(exact.grads[3], dtype, term_scale);

  kc::SruCudaForwardArgs fa;
  fa.geometry = {L, B, d, sc.bidir, static_cast<kc::SruCudaSkip>(static_cast<int>(sc.skip))};
  fa.scalar = scalarOf(dtype);
  fa.alpha = opt.alpha;
  const Tensor h = torch::empty({L, B, out}, dtype), c = torch::empty({L, B, out}, dtype),
               last_c = torch::empty({B, out}, dtype);
  fa.u = ptr(u), fa.x = ptr(x), fa.weight_c = ptr(wc), fa.bias = ptr(bias);
  fa.c0 = ptr(c0), fa.mask_c = ptr(mask_c), fa.mask_pad = bytes(pad);
  fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
  kc::launchSruForward(fa, nullptr);
  // What the outputs and the gradients are computed from (elementwiseBound).
  const std::vector<Tensor> ins = {u, x, wc, bias, c0}, grads_out = {gh, glc};
  const RoundingModel fwd = forwardRounding(dtype, L);
  expectMatch(h, want.h, exact.outputs[0], dtype, fwd, ins, label + " h");
  // The naive reference has no c: the CPU kernel's, in double.
  expectMatch(c, want.c, want.c, dtype, fwd, ins, label + " c");
  expectMatch(last_c, want.last_c, exact.outputs[1], dtype, fwd, ins, label + " last_c");

  // Backward from the emulated forward's c (as on the GPU).
  kc::SruCudaBackwardArgs ba;
  ba.geometry = fa.geometry;
  ba.scalar = fa.scalar;
  ba.alpha = fa.alpha;
  ba.u = fa.u, ba.x = fa.x, ba.weight_c = fa.weight_c, ba.bias = fa.bias;
  ba.c0 = fa.c0, ba.mask_c = fa.mask_c, ba.mask_pad = fa.mask_pad;
  ba.c = c.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_c = ptr(glc);
  const Tensor gu = torch::full_like(u, 7.0);  // every element must be written
  const Tensor gx = x.defined() ? torch::full_like(x, 7.0) : Tensor();
  const Tensor gc0 = torch::empty({B, out}, dtype);
  const Tensor col = torch::empty({4, B, out}, accumulatorOf(dtype));
  const Tensor par = torch::empty({4, out}, accumulatorOf(dtype));
  ba.grad_u = gu.data_ptr(), ba.grad_x = x.defined() ? gx.data_ptr() : nullptr;
  ba.grad_c0 = gc0.data_ptr(), ba.column_grads = col.data_ptr();
  ba.param_grads = par.data_ptr();
  kc::launchSruBackward(ba, nullptr);
  const RoundingModel grad = gradientRounding(dtype, L);
  // The glue returns the parameter gradients in `dtype` (kernels/cuda/sru_recurrence.cpp).
  const Tensor gwc = par.slice(0, 0, 2).reshape({2 * out}).to(dtype);
  const Tensor gbias = par.slice(0, 2, 4).reshape({2 * out}).to(dtype);
  expectMatch(gu, gwant.grad_u, exact.grads[0], dtype, grad, grads_out, label + " grad u");
  if (x.defined())
    expectMatch(gx, gwant.grad_x, exact.grads[1], dtype, grad, grads_out,
                label + " grad x");
  expectMatch(gc0, gwant.grad_c0, exact.grads[4], dtype, grad, grads_out, label + " grad c0");
  expectMatch(gwc, gwant.grad_weight_c, exact_wc.exact, dtype, exact_wc.bound,
              label + " grad weight_c");
  expectMatch(gbias, gwant.grad_bias, exact_bias.exact, dtype, exact_bias.bound,
              label + " grad bias");
}

TEST(EmulatedCudaKernelsTest, SruMatchesReferences) {
  uint64_t seed = 10;
  for (const Size& z : kSizes)
    for (SruSkip skip : {SruSkip::None, SruSkip::ScaledInput, SruSkip::LearnedProjection})
      for (bool bidir : {false, true})
        for (int flags = 0; flags < 8; ++flags)
          for (torch::Dtype dtype : kDtypes)
            checkSru({z.L, z.B, z.d, bidir, skip, flags, dtype}, seed++);
}

// The GPU test's long case (L = 4096, B = 2, d = 40, every option): parameter gradients sum
// 8192 terms per element, in a different order from the CPU kernel's.
TEST(EmulatedCudaKernelsTest, LongSruSequenceWithinRoundingBounds) {
  for (torch::Dtype dtype : {torch::kDouble, torch::kFloat})
    checkSru({4096, 2, 40, true, SruSkip::ScaledInput, 7, dtype}, 15);
}

TEST(EmulatedCudaKernelsTest, QrnnPoolingMatchesReferences) {
  uint64_t seed = 20;
  for (const Size& z : kSizes) {
    for (bool gate : {true, false}) {
      for (int flags = 0; flags < 8; ++flags) {
        for (torch::Dtype dtype : kDtypes) {
          torch::manual_seed(seed++);
          const int64_t L = z.L, B = z.B, d = z.d;
          const torch::Dtype f64 = torch::kDouble;
          const QrnnPoolingOptions opt{d, gate};
          const Tensor u = torch::randn({L, B, d * opt.numMatrices()}).to(dtype);
          const Tensor c0 = flags & 1 ? torch::randn({B, d}).to(dtype) : Tensor();
          const Tensor zo =
              flags & 2 ? torch::bernoulli(torch::full({L, B, d}, 0.8)).to(dtype) : Tensor();
          const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
          const Tensor gh = torch::randn({L, B, d}).to(dtype), glc = torch::randn({B, d}).to(dtype);
          const std::string label = "QRNN " + sizeText(z) + (gate ? " fo" : " f") + " flags " +
                                    std::to_string(flags) + " " + c10::toString(dtype);

          const auto want = qrnnPoolingForward(as(u, f64), as(c0, f64), as(zo, f64), pad, opt);
          const auto gwant = qrnnPoolingBackward(as(gh, f64), as(glc, f64), as(u, f64),
                                                 as(c0, f64), want.c, as(zo, f64), pad, opt);
          const KernelRun exact = exactRun(
              [&](const std::vector<Tensor>& in) {
                return qrnnPoolingReference(in[0], in[1], in[2], in[3], opt);
              },
              {u, orZeros(c0, B, d, dtype), zo, pad}, {true, true, false, false}, {gh, glc});

          kc::QrnnCudaForwardArgs fa;
          fa.geometry = {L, B, d, gate};
          fa.scalar = scalarOf(dtype);
          const Tensor h = torch::empty({L, B, d}, dtype), c = torch::empty({L, B, d}, dtype),
                       last_c = torch::empty({B, d}, dtype);
          fa.u = ptr(u), fa.c0 = ptr(c0), fa.zoneout = ptr(zo), fa.mask_pad = bytes(pad);
          fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
          kc::launchQrnnPoolingForward(fa, nullptr);
          // What the outputs and the gradients are computed from (elementwiseBound).
          const std::vector<Tensor> ins = {u, c0}, grads_out = {gh, glc};
          const RoundingModel fwd = forwardRounding(dtype, L);
          expectMatch(h, want.h, exact.outputs[0], dtype, fwd, ins, label + " h");
          expectMatch(c, want.c, want.c, dtype, fwd, ins, label + " c");
          expectMatch(last_c, want.last_c, exact.outputs[1], dtype, fwd, ins, label + " last_c");

          kc::QrnnCudaBackwardArgs ba;
          ba.geometry = fa.geometry;
          ba.scalar = fa.scalar;
          ba.u = fa.u, ba.c0 = fa.c0, ba.zoneout = fa.zoneout, ba.mask_pad = fa.mask_pad;
          ba.c = c.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_c = ptr(glc);
          const Tensor gu = torch::full_like(u, 7.0), gc0 = torch::empty({B, d}, dtype);
          ba.grad_u = gu.data_ptr(), ba.grad_c0 = gc0.data_ptr();
          kc::launchQrnnPoolingBackward(ba, nullptr);
          const RoundingModel grad = gradientRounding(dtype, L);
          expectMatch(gu, gwant.grad_u, exact.grads[0], dtype, grad, grads_out, label + " grad u");
          expectMatch(gc0, gwant.grad_c0, exact.grads[1], dtype, grad, grads_out,
                      label + " grad c0");
        }
      }
    }
  }
}

TEST(EmulatedCudaKernelsTest, RationalRecurrenceMatchesReferences) {
  uint64_t seed = 30;
  for (const Size& z : kSizes) {
    for (RationalPattern pattern : {RationalPattern::B, RationalPattern::C, RationalPattern::F}) {
      for (Semiring semiring : {Semiring::PlusTimes, Semiring::MaxPlus}) {
        for (int flags = 0; flags < 8; ++flags) {
          for (torch::Dtype dtype : kDtypes) {
            // Max-plus in reduced precision: rounding can flip a near-tie (see the GPU tests).
            if (semiring == Semiring::MaxPlus && dtype != torch::kDouble) continue;
            torch::manual_seed(seed++);
            const int64_t L = z.L, B = z.B, d = z.d;
            const torch::Dtype f64 = torch::kDouble;
            const RationalRecurrenceOptions opt{d, pattern, semiring, (flags & 1) != 0};
            const int64_t S = opt.numStates();
            const Tensor u = torch::randn({L, B, d * opt.numMatrices()}).to(dtype);
            const Tensor w =
                pattern == RationalPattern::F ? torch::randn({3 * d}).to(dtype) : Tensor();
            const Tensor c0 = flags & 2 ? torch::randn({B, S * d}).to(dtype) : Tensor();
            const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
            const Tensor gh = torch::randn({L, B, d}).to(dtype);
            const Tensor glc = torch::randn({B, S * d}).to(dtype);
            const std::string label = "rational " + sizeText(z) + " pattern " +
                                      std::to_string(static_cast<int>(pattern)) + " semiring " +
                                      std::to_string(static_cast<int>(semiring)) + " flags " +
                                      std::to_string(flags) + " " + c10::toString(dtype);

            const auto want =
                rationalRecurrenceForward(as(u, f64), as(w, f64), as(c0, f64), pad, opt);
            const auto gwant = rationalRecurrenceBackward(as(gh, f64), as(glc, f64), as(u, f64),
                                                          as(w, f64), as(c0, f64), want.c, pad,
                                                          opt);
            // The weight per step, so that its gradient comes as terms. (Max-plus: double
            // only, whose reference is the CPU kernel; its zero state is -inf, not 0.)
            const Tensor c0_exact =
                semiring == Semiring::MaxPlus ? c0 : orZeros(c0, B, S * d, dtype);
            const KernelRun exact = exactRun(
                [&](const std::vector<Tensor>& in) {
                  return rationalRecurrenceReference(in[0], in[1], in[2], in[3], opt);
                },
                {u, perStepCopies(w, L, B), c0_exact, pad}, {true, true, true, false},
                {gh, glc});
            const ParameterGradient exact_w = fromPerStepTerms(
                exact.grads[1], dtype,
                recurlab::testing::termScale({exact.grads[0]}));

            kc::RationalCudaForwardArgs fa;
            fa.geometry = {L,
                           B,
                           d,
                           static_cast<kc::RationalCudaPattern>(static_cast<int>(pattern)),
                           static_cast<kc::CudaSemiring>(static_cast<int>(semiring)),
                           opt.output_gate};
            fa.scalar = scalarOf(dtype);
            const Tensor h = torch::empty({L, B, d}, dtype);
            const Tensor c = torch::empty({L, B, S * d}, dtype);
            const Tensor last_c = torch::empty({B, S * d}, dtype);
            fa.u = ptr(u), fa.weight = ptr(w), fa.c0 = ptr(c0), fa.mask_pad = bytes(pad);
            fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
            kc::launchRationalRecurrenceForward(fa, nullptr);
            // What the outputs and the gradients are computed from (elementwiseBound).
            const std::vector<Tensor> ins = {u, w, c0}, grads_out = {gh, glc};
            const RoundingModel fwd = forwardRounding(dtype, L);
            expectMatch(h, want.h, exact.outputs[0], dtype, fwd, ins, label + " h");
            expectMatch(c, want.c, want.c, dtype, fwd, ins, label + " c");
            expectMatch(last_c, want.last_c, exact.outputs[1], dtype, fwd, ins, label + " last_c");

            kc::RationalCudaBackwardArgs ba;
            ba.geometry = fa.geometry;
            ba.scalar = fa.scalar;
            ba.u = fa.u, ba.weight = fa.weight, ba.c0 = fa.c0, ba.mask_pad = fa.mask_pad;
            ba.c = c.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_c = ptr(glc);
            const Tensor gu = torch::full_like(u, 7.0), gc0 = torch::empty({B, S * d}, dtype);
            const Tensor col = torch::empty({3, B, d}, accumulatorOf(dtype));
            const Tensor par = torch::empty({3, d}, accumulatorOf(dtype));
            ba.grad_u = gu.data_ptr(), ba.grad_c0 = gc0.data_ptr();
            ba.column_grads = col.data_ptr(), ba.param_grads = par.data_ptr();
            kc::launchRationalRecurrenceBackward(ba, nullptr);
            const RoundingModel grad = gradientRounding(dtype, L);
            expectMatch(gu, gwant.grad_u, exact.grads[0], dtype, grad, grads_out,
                        label + " grad u");
            expectMatch(gc0, gwant.grad_c0, exact.grads[2], dtype, grad, grads_out,
                        label + " grad c0");
            if (w.defined())
              expectMatch(par.reshape({3 * d}).to(dtype), gwant.grad_weight, exact_w.exact, dtype,
                          exact_w.bound, label + " grad weight");
          }
        }
      }
    }
  }
}

TEST(EmulatedCudaKernelsTest, NgramRecurrenceMatchesReferences) {
  uint64_t seed = 40;
  for (const Size& z : kSizes) {
    for (int64_t n = 1; n <= 4; ++n) {
      for (int flags = 0; flags < 8; ++flags) {
        for (torch::Dtype dtype : kDtypes) {
          torch::manual_seed(seed++);
          const int64_t L = z.L, B = z.B, d = z.d;
          const torch::Dtype f64 = torch::kDouble;
          const NgramRecurrenceOptions opt{d, n, (flags & 1) != 0};
          const Tensor u = torch::randn({L, B, d * opt.numMatrices()}).to(dtype);
          const Tensor c0 = flags & 2 ? torch::randn({B, n * d}).to(dtype) : Tensor();
          const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
          const Tensor gh = torch::randn({L, B, d}).to(dtype);
          const Tensor glc = torch::randn({B, n * d}).to(dtype);
          const std::string label = "n-gram " + sizeText(z) + " n=" + std::to_string(n) +
                                    " flags " + std::to_string(flags) + " " +
                                    c10::toString(dtype);

          const auto want = ngramRecurrenceForward(as(u, f64), as(c0, f64), pad, opt);
          const auto gwant = ngramRecurrenceBackward(as(gh, f64), as(glc, f64), as(u, f64),
                                                     as(c0, f64), want.c, pad, opt);
          const KernelRun exact = exactRun(
              [&](const std::vector<Tensor>& in) {
                return ngramRecurrenceReference(in[0], in[1], in[2], opt);
              },
              {u, orZeros(c0, B, n * d, dtype), pad}, {true, true, false}, {gh, glc});

          kc::NgramCudaForwardArgs fa;
          fa.geometry = {L, B, d, n, opt.output_gate};
          fa.scalar = scalarOf(dtype);
          const Tensor h = torch::empty({L, B, d}, dtype);
          const Tensor c = torch::empty({L, B, n * d}, dtype);
          const Tensor last_c = torch::empty({B, n * d}, dtype);
          fa.u = ptr(u), fa.c0 = ptr(c0), fa.mask_pad = bytes(pad);
          fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
          kc::launchNgramRecurrenceForward(fa, nullptr);
          // What the outputs and the gradients are computed from (elementwiseBound).
          const std::vector<Tensor> ins = {u, c0}, grads_out = {gh, glc};
          const RoundingModel fwd = forwardRounding(dtype, L);
          expectMatch(h, want.h, exact.outputs[0], dtype, fwd, ins, label + " h");
          expectMatch(c, want.c, want.c, dtype, fwd, ins, label + " c");
          expectMatch(last_c, want.last_c, exact.outputs[1], dtype, fwd, ins, label + " last_c");

          kc::NgramCudaBackwardArgs ba;
          ba.geometry = fa.geometry;
          ba.scalar = fa.scalar;
          ba.u = fa.u, ba.c0 = fa.c0, ba.mask_pad = fa.mask_pad;
          ba.c = c.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_c = ptr(glc);
          const Tensor gu = torch::full_like(u, 7.0), gc0 = torch::empty({B, n * d}, dtype);
          ba.grad_u = gu.data_ptr(), ba.grad_c0 = gc0.data_ptr();
          kc::launchNgramRecurrenceBackward(ba, nullptr);
          const RoundingModel grad = gradientRounding(dtype, L);
          expectMatch(gu, gwant.grad_u, exact.grads[0], dtype, grad, grads_out, label + " grad u");
          expectMatch(gc0, gwant.grad_c0, exact.grads[1], dtype, grad, grads_out,
                      label + " grad c0");
        }
      }
    }
  }
}

// Both paths of the CUDA linear recurrence (the sequential walk, the chunked scan with chunks of
// 1, 4 and more than L steps): double against the CPU kernel's walk, the narrower types against
// the naive reference within their rounding bounds.
TEST(EmulatedCudaKernelsTest, LinearRecurrenceMatchesReferencesOnBothPaths) {
  uint64_t seed = 50;
  for (const Size& z : kSizes) {
    for (bool bidir : {false, true}) {
      for (int flags = 0; flags < 4; ++flags) {
        for (int64_t chunk : {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{20}}) {
          for (torch::Dtype dtype : kDtypes) {
            torch::manual_seed(seed++);
            const int64_t L = z.L, B = z.B, d = z.d;
            const torch::Dtype f64 = torch::kDouble;
            const LinearRecurrenceOptions opt{d, bidir, kSequentialWalk};
            const int64_t out = opt.outputSize();
            const Tensor a = torch::sigmoid(torch::randn({L, B, out}) + 1).to(dtype);
            const Tensor b = torch::randn({L, B, out}).to(dtype);
            const Tensor h0 = flags & 1 ? torch::randn({B, out}).to(dtype) : Tensor();
            const Tensor pad = flags & 2 ? recurlab::testing::randomPadMask(L, B) : Tensor();
            const Tensor gh = torch::randn({L, B, out}).to(dtype);
            const Tensor glh = torch::randn({B, out}).to(dtype);
            const std::string label = "linear recurrence " + sizeText(z) +
                                      (bidir ? " bidir" : "") + " flags " +
                                      std::to_string(flags) + " chunk " +
                                      std::to_string(chunk) + " " + c10::toString(dtype);

            const auto want = linearRecurrenceForward(as(a, f64), as(b, f64), as(h0, f64), pad, opt);
            const auto gwant = linearRecurrenceBackward(as(gh, f64), as(glh, f64), as(a, f64),
                                                        as(h0, f64), want.h, pad, opt);
            const KernelRun exact = exactRun(
                [&](const std::vector<Tensor>& in) {
                  return linearRecurrenceReference(in[0], in[1], in[2], in[3], opt);
                },
                {a, b, orZeros(h0, B, out, dtype), pad}, {true, true, true, false}, {gh, glh});

            kc::LinearRecurrenceCudaForwardArgs fa;
            fa.geometry = {L, B, d, bidir, chunk};
            fa.scalar = scalarOf(dtype);
            const Tensor h = torch::empty({L, B, out}, dtype);
            const Tensor last_h = torch::empty({B, out}, dtype);
            const Tensor workspace =
                torch::full({fa.geometry.workspaceElements()}, NAN, accumulatorOf(dtype));
            fa.a = ptr(a), fa.b = ptr(b), fa.h0 = ptr(h0), fa.mask_pad = bytes(pad);
            fa.h = h.data_ptr(), fa.last_h = last_h.data_ptr(), fa.workspace = workspace.data_ptr();
            kc::launchLinearRecurrenceForward(fa, nullptr);
            const std::vector<Tensor> ins = {a, b, h0}, grads_out = {gh, glh};
            const RoundingModel fwd = forwardRounding(dtype, L);
            expectMatch(h, want.h, exact.outputs[0], dtype, fwd, ins, label + " h");
            expectMatch(last_h, want.last_h, exact.outputs[1], dtype, fwd, ins, label + " last_h");

            kc::LinearRecurrenceCudaBackwardArgs ba;
            ba.geometry = fa.geometry;
            ba.scalar = fa.scalar;
            ba.a = fa.a, ba.h0 = fa.h0, ba.mask_pad = fa.mask_pad;
            ba.h = h.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_h = ptr(glh);
            const Tensor ga = torch::full_like(a, 7.0), gb = torch::full_like(a, 7.0);
            const Tensor gh0 = torch::empty({B, out}, dtype);
            ba.grad_a = ga.data_ptr(), ba.grad_b = gb.data_ptr(), ba.grad_h0 = gh0.data_ptr();
            ba.workspace = workspace.data_ptr();
            kc::launchLinearRecurrenceBackward(ba, nullptr);
            // grad a_t = g_t·h_{t-1}, g_t = grad b_t: a product of the backward's and the
            // forward's values, bounded by the product of their magnitudes.
            const RoundingModel grad = gradientRounding(dtype, L);
            const Tensor product_scale =
                largestMagnitude({exact.grads[1], gh, glh}) *
                largestMagnitude({exact.outputs[0], h0, b});
            expectMatch(ga, gwant.grad_a, exact.grads[0], dtype,
                        {{grad, torch::maximum(product_scale, largestMagnitude({exact.grads[0]}))}},
                        label + " grad a");
            expectMatch(gb, gwant.grad_b, exact.grads[1], dtype, grad, grads_out,
                        label + " grad b");
            expectMatch(gh0, gwant.grad_h0, exact.grads[2], dtype, grad, grads_out,
                        label + " grad h0");
          }
        }
      }
    }
  }
}

// An empty batch: the launchers must still write the parameter gradients (zeros), which the
// Torch glue allocates uninitialized (here: NaN, so a skipped write shows).
TEST(EmulatedCudaKernelsTest, EmptyBatchWritesZeroParameterGradients) {
  for (torch::Dtype dtype : {torch::kDouble, torch::kFloat}) {
    const int64_t L = 4, d = 5;
    kc::SruCudaBackwardArgs ba;
    ba.geometry = {L, 0, d, false, kc::SruCudaSkip::None};
    ba.scalar = scalarOf(dtype);
    ba.alpha = 1.0;
    const Tensor u = torch::zeros({L, 0, 3 * d}, dtype), wc = torch::zeros({2 * d}, dtype);
    const Tensor gu = torch::empty_like(u), gc0 = torch::empty({0, d}, dtype);
    const Tensor col = torch::empty({4, 0, d}, accumulatorOf(dtype));
    const Tensor par = torch::full({4, d}, NAN, accumulatorOf(dtype));
    ba.u = u.data_ptr(), ba.weight_c = wc.data_ptr(), ba.bias = wc.data_ptr();
    ba.grad_u = gu.data_ptr(), ba.grad_c0 = gc0.data_ptr();
    ba.column_grads = col.data_ptr(), ba.param_grads = par.data_ptr();
    kc::launchSruBackward(ba, nullptr);
    EXPECT_TRUE(torch::equal(par, torch::zeros_like(par))) << "SRU " << par;

    kc::RationalCudaBackwardArgs ra;
    ra.geometry = {L, 0, d, kc::RationalCudaPattern::F, kc::CudaSemiring::PlusTimes, false};
    ra.scalar = scalarOf(dtype);
    const Tensor ur = torch::zeros({L, 0, 4 * d}, dtype), w = torch::zeros({3 * d}, dtype);
    const Tensor gur = torch::empty_like(ur), gc0r = torch::empty({0, 2 * d}, dtype);
    const Tensor colr = torch::empty({3, 0, d}, accumulatorOf(dtype));
    const Tensor parr = torch::full({3, d}, NAN, accumulatorOf(dtype));
    ra.u = ur.data_ptr(), ra.weight = w.data_ptr();
    ra.grad_u = gur.data_ptr(), ra.grad_c0 = gc0r.data_ptr();
    ra.column_grads = colr.data_ptr(), ra.param_grads = parr.data_ptr();
    kc::launchRationalRecurrenceBackward(ra, nullptr);
    EXPECT_TRUE(torch::equal(parr, torch::zeros_like(parr))) << "rational F " << parr;
  }
}

}  // namespace
}  // namespace recurlab::kernels

#endif  // RECURLAB_CUDA_EMULATION_TESTS
