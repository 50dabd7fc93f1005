// The checks every fused op makes before it picks a kernel (kernels/device_dispatch.h), on the
// CPU build: a tensor on another device than U (here the "meta" device, which has no data: a
// kernel that read it would crash, not throw), a gradient of the wrong shape handed to a raw
// backward, and an empty batch, whose parameter gradients must be zeros.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <string>

#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"
#include "kernels/sru_recurrence.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;

constexpr int64_t kL = 5, kB = 3, kD = 4;

Tensor onMeta(const Tensor& t) { return torch::empty(t.sizes(), t.options().device(torch::kMeta)); }
Tensor padMask() { return torch::zeros({kL, kB}, torch::kBool); }

// Runs `call` and expects a c10::Error whose message holds every one of `parts`.
void expectErrorNaming(const std::function<void()>& call, std::initializer_list<std::string> parts) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one naming " << *parts.begin();
  } catch (const c10::Error& e) {
    const std::string msg = e.what_without_backtrace();
    for (const std::string& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing from: " << msg;
  }
}

const SruRecurrenceOptions kSru{kD, false, SruSkip::None, 1.0};

struct SruCase {
  Tensor u = torch::randn({kL, kB, 3 * kD}, torch::kDouble);
  Tensor wc = torch::randn({2 * kD}, torch::kDouble);
  Tensor bias = torch::randn({2 * kD}, torch::kDouble);
};

TEST(KernelDeviceChecks, SruRejectsMaskPadOnAnotherDevice) {
  SruCase s;
  expectErrorNaming([&] { sruRecurrenceForward(s.u, {}, s.wc, s.bias, {}, {}, onMeta(padMask()), kSru); },
                    {"SRU recurrence", "mask_pad is on meta", "U is on cpu"});
  expectErrorNaming([&] { sruRecurrenceForward(s.u, {}, s.wc, s.bias, onMeta(torch::zeros({kB, kD}, torch::kDouble)), {}, {}, kSru); },
                    {"c0 is on meta"});
  const SruForwardResult f = sruRecurrenceForward(s.u, {}, s.wc, s.bias, {}, {}, padMask(), kSru);
  expectErrorNaming([&] {
    sruRecurrenceBackward(torch::ones_like(f.h), {}, s.u, {}, s.wc, s.bias, {}, f.c, {},
                          onMeta(padMask()), kSru);
  }, {"mask_pad is on meta"});
  expectErrorNaming([&] {
    sruRecurrenceBackward(onMeta(f.h), {}, s.u, {}, s.wc, s.bias, {}, f.c, {}, {}, kSru);
  }, {"grad of h is on meta"});
}

TEST(KernelDeviceChecks, SruBackwardChecksGradientShapes) {
  SruCase s;
  const SruForwardResult f = sruRecurrenceForward(s.u, {}, s.wc, s.bias, {}, {}, {}, kSru);
  // One time step short: the kernel would read past the end of grad_h.
  expectErrorNaming([&] {
    sruRecurrenceBackward(torch::ones({kL - 1, kB, kD}, torch::kDouble), {}, s.u, {}, s.wc,
                          s.bias, {}, f.c, {}, {}, kSru);
  }, {"SRU recurrence backward", "grad of h has shape [4, 3, 4]", "expected [5, 3, 4]"});
  expectErrorNaming([&] {
    sruRecurrenceBackward({}, torch::ones({kB, kD + 1}, torch::kDouble), s.u, {}, s.wc, s.bias,
                          {}, f.c, {}, {}, kSru);
  }, {"grad of last c has shape [3, 5]", "expected [3, 4]"});
  expectErrorNaming([&] {
    sruRecurrenceBackward(torch::ones_like(f.h).to(torch::kFloat), {}, s.u, {}, s.wc, s.bias, {},
                          f.c, {}, {}, kSru);
  }, {"grad of h has dtype Float but U has Double"});
  // Both gradients undefined (= zero) is allowed.
  EXPECT_NO_THROW(sruRecurrenceBackward({}, {}, s.u, {}, s.wc, s.bias, {}, f.c, {}, {}, kSru));
}

TEST(KernelDeviceChecks, RationalQrnnNgramRejectMismatchedDevicesAndGradientShapes) {
  const Tensor pad = padMask();
  {
    const RationalRecurrenceOptions opt{kD, RationalPattern::F, Semiring::MaxPlus, true};
    const Tensor u = torch::randn({kL, kB, kD * opt.numMatrices()}, torch::kDouble);
    const Tensor w = torch::randn({3 * kD}, torch::kDouble);
    expectErrorNaming([&] { rationalRecurrenceForward(u, onMeta(w), {}, {}, opt); },
                      {"rational recurrence", "weight is on meta"});
    expectErrorNaming([&] { rationalRecurrenceForward(u, w, {}, onMeta(pad), opt); },
                      {"mask_pad is on meta"});
    const auto f = rationalRecurrenceForward(u, w, {}, pad, opt);
    expectErrorNaming([&] {
      rationalRecurrenceBackward(torch::ones({kL, kB + 1, kD}, torch::kDouble), {}, u, w, {},
                                 f.c, pad, opt);
    }, {"grad of h has shape [5, 4, 4]", "expected [5, 3, 4]"});
    expectErrorNaming([&] {
      rationalRecurrenceBackward({}, torch::ones({kB, kD}, torch::kDouble), u, w, {}, f.c, pad,
                                 opt);
    }, {"grad of last c has shape [3, 4]", "expected [3, 8]"});
  }
  {
    const QrnnPoolingOptions opt{kD, true};
    const Tensor u = torch::randn({kL, kB, 3 * kD}, torch::kDouble);
    expectErrorNaming([&] { qrnnPoolingForward(u, {}, {}, onMeta(pad), opt); },
                      {"QRNN pooling", "mask_pad is on meta"});
    const auto f = qrnnPoolingForward(u, {}, {}, pad, opt);
    expectErrorNaming([&] {
      qrnnPoolingBackward(torch::ones({kL, kB, kD - 1}, torch::kDouble), {}, u, {}, f.c, {}, pad,
                          opt);
    }, {"grad of h has shape [5, 3, 3]", "expected [5, 3, 4]"});
  }
  {
    NgramRecurrenceOptions opt;
    opt.hidden_size = kD;
    opt.n = 2;
    const Tensor u = torch::randn({kL, kB, kD * opt.numMatrices()}, torch::kDouble);
    expectErrorNaming([&] { ngramRecurrenceForward(u, {}, onMeta(pad), opt); },
                      {"mask_pad is on meta"});
    const auto f = ngramRecurrenceForward(u, {}, pad, opt);
    expectErrorNaming([&] {
      ngramRecurrenceBackward({}, torch::ones({kB, kD}, torch::kDouble), u, {}, f.c, pad, opt);
    }, {"grad of last c has shape [3, 4]", "expected [3, 8]"});
  }
}

// An empty batch: outputs of batch 0 and zero parameter gradients (not uninitialized memory).
TEST(KernelDeviceChecks, EmptyBatchGivesZeroParameterGradients) {
  const Tensor u = torch::randn({kL, 0, 3 * kD}, torch::kDouble);
  const Tensor wc = torch::randn({2 * kD}, torch::kDouble), bias = torch::randn({2 * kD}, torch::kDouble);
  const SruForwardResult f = sruRecurrenceForward(u, {}, wc, bias, {}, {}, {}, kSru);
  EXPECT_EQ(f.h.sizes(), (c10::IntArrayRef{kL, 0, kD}));
  const SruBackwardResult g =
      sruRecurrenceBackward(torch::ones_like(f.h), {}, u, {}, wc, bias, {}, f.c, {}, {}, kSru);
  EXPECT_TRUE(torch::equal(g.grad_weight_c, torch::zeros_like(wc)));
  EXPECT_TRUE(torch::equal(g.grad_bias, torch::zeros_like(bias)));

  const RationalRecurrenceOptions opt{kD, RationalPattern::F, Semiring::PlusTimes, true};
  const Tensor ur = torch::randn({kL, 0, kD * opt.numMatrices()}, torch::kDouble);
  const Tensor w = torch::randn({3 * kD}, torch::kDouble);
  const auto fr = rationalRecurrenceForward(ur, w, {}, {}, opt);
  const auto gr = rationalRecurrenceBackward(torch::ones_like(fr.h), {}, ur, w, {}, fr.c, {}, opt);
  EXPECT_TRUE(torch::equal(gr.grad_weight, torch::zeros_like(w)));
}

}  // namespace
}  // namespace recurlab::kernels
