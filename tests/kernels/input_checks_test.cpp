// The checks every fused op makes before it picks a kernel (kernels/input_checks.h), on the CPU
// build: one check per call, in one pattern for the four ops (a wrong shape, dtype or device
// named with the op, the tensor and what was expected); a tensor on another device than U (here
// the "meta" device, which has no data: a kernel that read it would crash, not throw); a
// gradient of the wrong shape handed to a raw backward; and an empty batch, whose parameter
// gradients must be zeros.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "kernels/input_checks.h"
#include "kernels/ngram_recurrence.h"
#include "kernels/qrnn_pooling.h"
#include "kernels/rational_recurrence.h"
#include "kernels/sru_recurrence.h"
#include "tests/support/error_message.h"

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
                      {"rational recurrence", "weight [b_r | b_p1 | b_p2] (pattern F) is on meta"});
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

// ---- one check per call, one pattern -----------------------------------------------------------

// One op on valid double inputs (U requires grad) but for c0, which the tests vary.
struct OpCase {
  std::string name;  // as its errors say
  Tensor u;
  int64_t state_size;  // columns of c0 and last c
  std::function<std::vector<Tensor>(const Tensor& c0)> differentiable;
  std::function<Tensor(const Tensor& c0)> raw_forward;  // returns the saved c
  std::function<void(const Tensor& c)> raw_backward;     // grad of h = ones
};

std::vector<OpCase> everyOp() {
  torch::manual_seed(7);
  const auto o = torch::TensorOptions().dtype(torch::kDouble);
  auto leaf = [&](std::vector<int64_t> shape) { return torch::randn(shape, o).requires_grad_(); };
  std::vector<OpCase> ops;
  {
    const SruRecurrenceOptions opt{kD, false, SruSkip::ScaledInput, 1.0};
    const Tensor u = leaf({kL, kB, 3 * kD}), x = leaf({kL, kB, kD});
    const Tensor wc = leaf({2 * kD}), bias = leaf({2 * kD});
    ops.push_back({"SRU recurrence", u, kD,
                   [=](const Tensor& c0) { return sruRecurrence(u, x, wc, bias, c0, {}, {}, opt); },
                   [=](const Tensor& c0) {
                     return sruRecurrenceForward(u, x, wc, bias, c0, {}, {}, opt).c;
                   },
                   [=](const Tensor& c) {
                     sruRecurrenceBackward(torch::ones({kL, kB, kD}, o), {}, u, x, wc, bias, {},
                                           c, {}, {}, opt);
                   }});
  }
  {
    const QrnnPoolingOptions opt{kD, true};
    const Tensor u = leaf({kL, kB, 3 * kD});
    ops.push_back({"QRNN pooling", u, kD,
                   [=](const Tensor& c0) { return qrnnPooling(u, c0, {}, {}, opt); },
                   [=](const Tensor& c0) { return qrnnPoolingForward(u, c0, {}, {}, opt).c; },
                   [=](const Tensor& c) {
                     qrnnPoolingBackward(torch::ones({kL, kB, kD}, o), {}, u, {}, c, {}, {}, opt);
                   }});
  }
  {
    const RationalRecurrenceOptions opt{kD, RationalPattern::F, Semiring::PlusTimes, true};
    const Tensor u = leaf({kL, kB, kD * opt.numMatrices()}), w = leaf({3 * kD});
    ops.push_back({"rational recurrence", u, 2 * kD,
                   [=](const Tensor& c0) { return rationalRecurrence(u, w, c0, {}, opt); },
                   [=](const Tensor& c0) { return rationalRecurrenceForward(u, w, c0, {}, opt).c; },
                   [=](const Tensor& c) {
                     rationalRecurrenceBackward(torch::ones({kL, kB, kD}, o), {}, u, w, {}, c, {},
                                                opt);
                   }});
  }
  {
    const NgramRecurrenceOptions opt{kD, 3, false};
    const Tensor u = leaf({kL, kB, kD * opt.numMatrices()});
    ops.push_back({"n-gram recurrence", u, 3 * kD,
                   [=](const Tensor& c0) { return ngramRecurrence(u, c0, {}, opt); },
                   [=](const Tensor& c0) { return ngramRecurrenceForward(u, c0, {}, opt).c; },
                   [=](const Tensor& c) {
                     ngramRecurrenceBackward(torch::ones({kL, kB, kD}, o), {}, u, {}, c, {}, opt);
                   }});
  }
  return ops;
}

int64_t count(const std::string& text, const std::string& part) {
  int64_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The op's own check fires, once: the message names the op exactly once (not the op and then
// a kernel that checked again) and says what the tensor is and what was expected.
void expectOneClearError(const OpCase& op, const std::function<void()>& call,
                         std::initializer_list<std::string> parts) {
  const std::string msg = testing::errorMessageOf(call);
  EXPECT_EQ(count(msg, op.name), 1) << op.name << ": " << msg;
  for (const std::string& p : parts)
    EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' missing from: " << msg;
}

TEST(KernelInputChecks, EveryOpNamesItselfTheTensorAndTheExpectedShapeDtypeAndDevice) {
  for (const OpCase& op : everyOp()) {
    SCOPED_TRACE(op.name);
    const std::string state = std::to_string(op.state_size);
    const Tensor c0 = torch::zeros({kB, op.state_size}, torch::kDouble);
    const Tensor one_row_too_many = torch::zeros({kB + 1, op.state_size}, torch::kDouble);
    expectOneClearError(
        op, [&] { op.differentiable(one_row_too_many); },
        {op.name + ": c0", "has shape [4, " + state + "], expected [3, " + state + "]"});
    expectOneClearError(op, [&] { op.raw_forward(one_row_too_many); },
                        {op.name + ": c0", "expected [3, " + state + "]"});
    expectOneClearError(op, [&] { op.differentiable(c0.to(torch::kFloat)); },
                        {op.name + ": c0", "has dtype Float but U has Double"});
    expectOneClearError(op, [&] { op.differentiable(onMeta(c0)); },
                        {op.name + ": c0", "is on meta but U is on cpu"});
    const Tensor c_one_row_too_many = torch::zeros({kL, kB + 1, op.state_size}, torch::kDouble);
    expectOneClearError(op, [&] { op.raw_backward(c_one_row_too_many); },
                        {op.name + " backward: saved c has shape [5, 4, " + state + "]",
                         "expected [5, 3, " + state + "]"});
  }
}

TEST(KernelInputChecks, EveryOpChecksItsInputsOncePerCall) {
  for (const OpCase& op : everyOp()) {
    SCOPED_TRACE(op.name);
    const Tensor c0 = torch::zeros({kB, op.state_size}, torch::kDouble);
    int64_t before = detail::inputChecksRun();
    const std::vector<Tensor> out = op.differentiable(c0);
    (out[0].sum() + out[1].sum()).backward();
    EXPECT_TRUE(op.u.grad().defined());
    EXPECT_EQ(detail::inputChecksRun() - before, 1) << "forward and backward of the op";
    before = detail::inputChecksRun();
    const Tensor c = op.raw_forward(c0);
    EXPECT_EQ(detail::inputChecksRun() - before, 1) << "raw forward";
    before = detail::inputChecksRun();
    op.raw_backward(c);
    EXPECT_EQ(detail::inputChecksRun() - before, 1) << "raw backward";
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
