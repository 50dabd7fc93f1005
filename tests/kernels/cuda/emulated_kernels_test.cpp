// The CUDA kernels' code run on the host (kernels/cuda/host_emulation.h) against the CPU
// kernels, through the same launchers the GPU build uses: indexing, time direction, padding,
// the chunked loads, the batch reduction and the float/double/half/bfloat16 paths are checked
// where there is no GPU. Arithmetic is the host's, so this is not a test of the GPU's rounding
// (the GPU tests are). Built only into recurlab_cuda_emulation_tests (kernels/cuda/CMakeLists.txt).
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

namespace recurlab::kernels {
namespace {

namespace kc = recurlab::kernels::cuda;
using recurlab::testing::allClose;
using recurlab::testing::closeInNorm;
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

// Compares what the emulated kernel produced (any dtype) with the CPU kernel's (float or
// double): elementwise for float/double, in relative 2-norm for half/bfloat16 (10x their unit
// roundoff: the stored values are rounded).
void expectMatch(const Tensor& got, const Tensor& want, torch::Dtype dtype,
                 const std::string& what) {
  if (dtype == torch::kDouble) {
    EXPECT_TRUE(allClose(got, want, 1e-12, 1e-12, what));
  } else if (dtype == torch::kFloat) {
    EXPECT_TRUE(allClose(got, want, 1e-5, 1e-5, what));
  } else {
    EXPECT_TRUE(closeInNorm(got, want, dtype == torch::kHalf ? 5e-3 : 4e-2, what));
  }
}

// The CPU reference runs in double for double, else in float on the rounded inputs.
torch::Dtype referenceOf(torch::Dtype dtype) {
  return dtype == torch::kDouble ? torch::kDouble : torch::kFloat;
}

const std::vector<torch::Dtype> kDtypes = {torch::kDouble, torch::kFloat, torch::kHalf,
                                           torch::kBFloat16};

TEST(EmulatedCudaKernelsTest, SruMatchesCpuKernel) {
  uint64_t seed = 10;
  for (SruSkip skip : {SruSkip::None, SruSkip::ScaledInput, SruSkip::LearnedProjection}) {
    for (bool bidir : {false, true}) {
      for (int flags = 0; flags < 8; ++flags) {
        for (torch::Dtype dtype : kDtypes) {
          torch::manual_seed(seed++);
          const int64_t L = 11, B = 3, d = 37;
          SruRecurrenceOptions opt{d, bidir, skip, 1.3};
          const int64_t out = opt.outputSize(), k = opt.numMatrices();
          const torch::Dtype ref = referenceOf(dtype);
          // Inputs in `dtype`; the reference sees the same values in `ref`.
          const Tensor u = torch::randn({L, B, out * k}).to(dtype);
          const Tensor x = skip == SruSkip::ScaledInput ? torch::randn({L, B, out}).to(dtype)
                                                        : Tensor();
          const Tensor wc = (torch::rand({2 * out}) * 2 - 1).to(dtype);
          const Tensor bias = torch::randn({2 * out}).to(dtype);
          const Tensor c0 = flags & 1 ? torch::randn({B, out}).to(dtype) : Tensor();
          const Tensor mask_c =
              flags & 2 ? (torch::bernoulli(torch::full({B, out}, 0.75)) / 0.75).to(dtype)
                        : Tensor();
          const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
          const Tensor gh = torch::randn({L, B, out}).to(dtype);
          const Tensor glc = torch::randn({B, out}).to(dtype);
          const std::string label = "SRU skip " + std::to_string(static_cast<int>(skip)) +
                                    (bidir ? " bidir" : "") + " flags " +
                                    std::to_string(flags) + " " + c10::toString(dtype);

          const SruForwardResult want = sruRecurrenceForward(
              as(u, ref), as(x, ref), as(wc, ref), as(bias, ref), as(c0, ref), as(mask_c, ref),
              pad, opt);
          kc::SruCudaForwardArgs fa;
          fa.geometry = {L, B, d, bidir, static_cast<kc::SruCudaSkip>(static_cast<int>(skip))};
          fa.scalar = scalarOf(dtype);
          fa.alpha = opt.alpha;
          const Tensor h = torch::empty({L, B, out}, dtype), c = torch::empty({L, B, out}, dtype),
                       last_c = torch::empty({B, out}, dtype);
          fa.u = ptr(u), fa.x = ptr(x), fa.weight_c = ptr(wc), fa.bias = ptr(bias);
          fa.c0 = ptr(c0), fa.mask_c = ptr(mask_c), fa.mask_pad = bytes(pad);
          fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
          kc::launchSruForward(fa, nullptr);
          expectMatch(h, want.h, dtype, label + " h");
          expectMatch(c, want.c, dtype, label + " c");
          expectMatch(last_c, want.last_c, dtype, label + " last_c");

          // Backward from the emulated forward's c (as on the GPU) vs the CPU's from its own.
          const SruBackwardResult gwant = sruRecurrenceBackward(
              as(gh, ref), as(glc, ref), as(u, ref), as(x, ref), as(wc, ref), as(bias, ref),
              as(c0, ref), want.c, as(mask_c, ref), pad, opt);
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
          expectMatch(gu, gwant.grad_u, dtype, label + " grad u");
          if (x.defined()) expectMatch(gx, gwant.grad_x, dtype, label + " grad x");
          expectMatch(gc0, gwant.grad_c0, dtype, label + " grad c0");
          expectMatch(par.slice(0, 0, 2).reshape({2 * out}), gwant.grad_weight_c, dtype,
                      label + " grad weight_c");
          expectMatch(par.slice(0, 2, 4).reshape({2 * out}), gwant.grad_bias, dtype,
                      label + " grad bias");
        }
      }
    }
  }
}

TEST(EmulatedCudaKernelsTest, QrnnPoolingMatchesCpuKernel) {
  uint64_t seed = 20;
  for (bool gate : {true, false}) {
    for (int flags = 0; flags < 8; ++flags) {
      for (torch::Dtype dtype : kDtypes) {
        torch::manual_seed(seed++);
        const int64_t L = 11, B = 3, d = 37;
        const QrnnPoolingOptions opt{d, gate};
        const torch::Dtype ref = referenceOf(dtype);
        const Tensor u = torch::randn({L, B, d * opt.numMatrices()}).to(dtype);
        const Tensor c0 = flags & 1 ? torch::randn({B, d}).to(dtype) : Tensor();
        const Tensor zo =
            flags & 2 ? torch::bernoulli(torch::full({L, B, d}, 0.8)).to(dtype) : Tensor();
        const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
        const Tensor gh = torch::randn({L, B, d}).to(dtype), glc = torch::randn({B, d}).to(dtype);
        const std::string label = std::string("QRNN ") + (gate ? "fo" : "f") + " flags " +
                                  std::to_string(flags) + " " + c10::toString(dtype);

        const auto want = qrnnPoolingForward(as(u, ref), as(c0, ref), as(zo, ref), pad, opt);
        kc::QrnnCudaForwardArgs fa;
        fa.geometry = {L, B, d, gate};
        fa.scalar = scalarOf(dtype);
        const Tensor h = torch::empty({L, B, d}, dtype), c = torch::empty({L, B, d}, dtype),
                     last_c = torch::empty({B, d}, dtype);
        fa.u = ptr(u), fa.c0 = ptr(c0), fa.zoneout = ptr(zo), fa.mask_pad = bytes(pad);
        fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
        kc::launchQrnnPoolingForward(fa, nullptr);
        expectMatch(h, want.h, dtype, label + " h");
        expectMatch(c, want.c, dtype, label + " c");
        expectMatch(last_c, want.last_c, dtype, label + " last_c");

        const auto gwant = qrnnPoolingBackward(as(gh, ref), as(glc, ref), as(u, ref),
                                               as(c0, ref), want.c, as(zo, ref), pad, opt);
        kc::QrnnCudaBackwardArgs ba;
        ba.geometry = fa.geometry;
        ba.scalar = fa.scalar;
        ba.u = fa.u, ba.c0 = fa.c0, ba.zoneout = fa.zoneout, ba.mask_pad = fa.mask_pad;
        ba.c = c.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_c = ptr(glc);
        const Tensor gu = torch::full_like(u, 7.0), gc0 = torch::empty({B, d}, dtype);
        ba.grad_u = gu.data_ptr(), ba.grad_c0 = gc0.data_ptr();
        kc::launchQrnnPoolingBackward(ba, nullptr);
        expectMatch(gu, gwant.grad_u, dtype, label + " grad u");
        expectMatch(gc0, gwant.grad_c0, dtype, label + " grad c0");
      }
    }
  }
}

TEST(EmulatedCudaKernelsTest, RationalRecurrenceMatchesCpuKernel) {
  uint64_t seed = 30;
  for (RationalPattern pattern : {RationalPattern::B, RationalPattern::C, RationalPattern::F}) {
    for (Semiring semiring : {Semiring::PlusTimes, Semiring::MaxPlus}) {
      for (int flags = 0; flags < 8; ++flags) {
        for (torch::Dtype dtype : kDtypes) {
          // Max-plus in reduced precision: rounding can flip a near-tie (see the GPU tests).
          if (semiring == Semiring::MaxPlus && dtype != torch::kDouble) continue;
          torch::manual_seed(seed++);
          const int64_t L = 11, B = 3, d = 37;
          const RationalRecurrenceOptions opt{d, pattern, semiring, (flags & 1) != 0};
          const int64_t S = opt.numStates();
          const torch::Dtype ref = referenceOf(dtype);
          const Tensor u = torch::randn({L, B, d * opt.numMatrices()}).to(dtype);
          const Tensor w =
              pattern == RationalPattern::F ? torch::randn({3 * d}).to(dtype) : Tensor();
          const Tensor c0 = flags & 2 ? torch::randn({B, S * d}).to(dtype) : Tensor();
          const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
          const Tensor gh = torch::randn({L, B, d}).to(dtype);
          const Tensor glc = torch::randn({B, S * d}).to(dtype);
          const std::string label = "rational pattern " +
                                    std::to_string(static_cast<int>(pattern)) + " semiring " +
                                    std::to_string(static_cast<int>(semiring)) + " flags " +
                                    std::to_string(flags) + " " + c10::toString(dtype);

          const auto want = rationalRecurrenceForward(as(u, ref), as(w, ref), as(c0, ref), pad,
                                                      opt);
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
          expectMatch(h, want.h, dtype, label + " h");
          expectMatch(c, want.c, dtype, label + " c");
          expectMatch(last_c, want.last_c, dtype, label + " last_c");

          const auto gwant = rationalRecurrenceBackward(as(gh, ref), as(glc, ref), as(u, ref),
                                                        as(w, ref), as(c0, ref), want.c, pad,
                                                        opt);
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
          expectMatch(gu, gwant.grad_u, dtype, label + " grad u");
          expectMatch(gc0, gwant.grad_c0, dtype, label + " grad c0");
          if (w.defined())
            expectMatch(par.reshape({3 * d}), gwant.grad_weight, dtype, label + " grad weight");
        }
      }
    }
  }
}

TEST(EmulatedCudaKernelsTest, NgramRecurrenceMatchesCpuKernel) {
  uint64_t seed = 40;
  for (int64_t n = 1; n <= 4; ++n) {
    for (int flags = 0; flags < 8; ++flags) {
      for (torch::Dtype dtype : kDtypes) {
        torch::manual_seed(seed++);
        const int64_t L = 11, B = 3, d = 37;
        const NgramRecurrenceOptions opt{d, n, (flags & 1) != 0};
        const torch::Dtype ref = referenceOf(dtype);
        const Tensor u = torch::randn({L, B, d * opt.numMatrices()}).to(dtype);
        const Tensor c0 = flags & 2 ? torch::randn({B, n * d}).to(dtype) : Tensor();
        const Tensor pad = flags & 4 ? recurlab::testing::randomPadMask(L, B) : Tensor();
        const Tensor gh = torch::randn({L, B, d}).to(dtype);
        const Tensor glc = torch::randn({B, n * d}).to(dtype);
        const std::string label = "n-gram n=" + std::to_string(n) + " flags " +
                                  std::to_string(flags) + " " + c10::toString(dtype);

        const auto want = ngramRecurrenceForward(as(u, ref), as(c0, ref), pad, opt);
        kc::NgramCudaForwardArgs fa;
        fa.geometry = {L, B, d, n, opt.output_gate};
        fa.scalar = scalarOf(dtype);
        const Tensor h = torch::empty({L, B, d}, dtype);
        const Tensor c = torch::empty({L, B, n * d}, dtype);
        const Tensor last_c = torch::empty({B, n * d}, dtype);
        fa.u = ptr(u), fa.c0 = ptr(c0), fa.mask_pad = bytes(pad);
        fa.h = h.data_ptr(), fa.c = c.data_ptr(), fa.last_c = last_c.data_ptr();
        kc::launchNgramRecurrenceForward(fa, nullptr);
        expectMatch(h, want.h, dtype, label + " h");
        expectMatch(c, want.c, dtype, label + " c");
        expectMatch(last_c, want.last_c, dtype, label + " last_c");

        const auto gwant = ngramRecurrenceBackward(as(gh, ref), as(glc, ref), as(u, ref),
                                                   as(c0, ref), want.c, pad, opt);
        kc::NgramCudaBackwardArgs ba;
        ba.geometry = fa.geometry;
        ba.scalar = fa.scalar;
        ba.u = fa.u, ba.c0 = fa.c0, ba.mask_pad = fa.mask_pad;
        ba.c = c.data_ptr(), ba.grad_h = ptr(gh), ba.grad_last_c = ptr(glc);
        const Tensor gu = torch::full_like(u, 7.0), gc0 = torch::empty({B, n * d}, dtype);
        ba.grad_u = gu.data_ptr(), ba.grad_c0 = gc0.data_ptr();
        kc::launchNgramRecurrenceBackward(ba, nullptr);
        expectMatch(gu, gwant.grad_u, dtype, label + " grad u");
        expectMatch(gc0, gwant.grad_c0, dtype, label + " grad c0");
      }
    }
  }
}

// Both paths of the CUDA linear recurrence (the sequential walk, the chunked scan with chunks of
// 1, 4 and more than L steps) against the CPU kernel's sequential walk.
TEST(EmulatedCudaKernelsTest, LinearRecurrenceMatchesCpuKernelOnBothPaths) {
  uint64_t seed = 50;
  for (bool bidir : {false, true}) {
    for (int flags = 0; flags < 4; ++flags) {
      for (int64_t chunk : {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{20}}) {
        for (torch::Dtype dtype : kDtypes) {
          torch::manual_seed(seed++);
          const int64_t L = 11, B = 3, d = 37;
          const LinearRecurrenceOptions opt{d, bidir, kSequentialWalk};
          const int64_t out = opt.outputSize();
          const torch::Dtype ref = referenceOf(dtype);
          const Tensor a = torch::sigmoid(torch::randn({L, B, out}) + 1).to(dtype);
          const Tensor b = torch::randn({L, B, out}).to(dtype);
          const Tensor h0 = flags & 1 ? torch::randn({B, out}).to(dtype) : Tensor();
          const Tensor pad = flags & 2 ? recurlab::testing::randomPadMask(L, B) : Tensor();
          const Tensor gh = torch::randn({L, B, out}).to(dtype);
          const Tensor glh = torch::randn({B, out}).to(dtype);
          const std::string label = std::string("linear recurrence") + (bidir ? " bidir" : "") +
                                    " flags " + std::to_string(flags) + " chunk " +
                                    std::to_string(chunk) + " " + c10::toString(dtype);

          const auto want = linearRecurrenceForward(as(a, ref), as(b, ref), as(h0, ref), pad, opt);
          kc::LinearRecurrenceCudaForwardArgs fa;
          fa.geometry = {L, B, d, bidir, chunk};
          fa.scalar = scalarOf(dtype);
          const Tensor h = torch::empty({L, B, out}, dtype), last_h = torch::empty({B, out}, dtype);
          const Tensor workspace =
              torch::full({fa.geometry.workspaceElements()}, NAN, accumulatorOf(dtype));
          fa.a = ptr(a), fa.b = ptr(b), fa.h0 = ptr(h0), fa.mask_pad = bytes(pad);
          fa.h = h.data_ptr(), fa.last_h = last_h.data_ptr(), fa.workspace = workspace.data_ptr();
          kc::launchLinearRecurrenceForward(fa, nullptr);
          expectMatch(h, want.h, dtype, label + " h");
          expectMatch(last_h, want.last_h, dtype, label + " last_h");

          const auto gwant = linearRecurrenceBackward(as(gh, ref), as(glh, ref), as(a, ref),
                                                      as(h0, ref), want.h, pad, opt);
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
          expectMatch(ga, gwant.grad_a, dtype, label + " grad a");
          expectMatch(gb, gwant.grad_b, dtype, label + " grad b");
          expectMatch(gh0, gwant.grad_h0, dtype, label + " grad h0");
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
