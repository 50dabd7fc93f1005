// The SRU recurrence on any device: its argument checks, the raw kernels dispatched by U's
// device, and the one torch::autograd::Function over them.
#include "kernels/sru_recurrence.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <string>

#include "kernels/device_dispatch.h"
#include "kernels/input_checks.h"
#include "kernels/mixed_precision.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "SRU recurrence";

std::string layoutOf(const SruRecurrenceOptions& opt) {
  const int64_t dirs = opt.directions();
  const char* skip = opt.skip == SruSkip::LearnedProjection ? "a learned skip"
                     : opt.skip == SruSkip::ScaledInput     ? "a scaled-input skip"
                                                            : "no skip";
  return std::to_string(opt.numMatrices()) + "·d·dirs for a layer with " + skip + ", d = " +
         std::to_string(opt.hidden_size) + ", " + std::to_string(dirs) + " direction" +
         (dirs > 1 ? "s" : "");
}

void checkInputs(const Tensor& u, const Tensor& x, const Tensor& weight_c, const Tensor& bias,
                 const Tensor& c0, const Tensor& mask_c, const Tensor& mask_pad,
                 const SruRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  const int64_t out = opt.outputSize();
  detail::checkU(kName, u, out * opt.numMatrices(), layoutOf(opt));
  const int64_t L = u.size(0), B = u.size(1);
  if (opt.skip == SruSkip::ScaledInput)
    detail::checkLikeU(kName, u, x, "x (the skip input; its size must equal dirs·d)",
                       {L, B, out});
  detail::checkLikeU(kName, u, weight_c, "weight_c", {2 * out});
  detail::checkLikeU(kName, u, bias, "bias", {2 * out});
  detail::checkOptionalLikeU(kName, u, c0, "c0", {B, out});
  detail::checkOptionalLikeU(kName, u, mask_c, "mask_c (dropout mask)", {B, out});
  detail::checkPadMask(kName, u, mask_pad);
}

detail::SruTensors contiguousTensors(const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                     const Tensor& bias, const Tensor& c0, const Tensor& mask_c,
                                     const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  using detail::contiguousOrUndefined;
  return {u.contiguous(),
          opt.skip == SruSkip::ScaledInput ? x.contiguous() : Tensor(),
          weight_c.contiguous(),
          bias.contiguous(),
          contiguousOrUndefined(c0),
          contiguousOrUndefined(mask_c),
          contiguousOrUndefined(mask_pad)};
}

SruForwardResult forwardOnDevice(const detail::SruTensors& in, const SruRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::sruRecurrenceCpuForward(in, opt); },
      [&] { return detail::sruRecurrenceCudaForward(in, opt); });
}

SruBackwardResult backwardOnDevice(const detail::BackwardTensors& grads,
                                   const detail::SruTensors& in,
                                   const SruRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::sruRecurrenceCpuBackward(grads, in, opt); },
      [&] { return detail::sruRecurrenceCudaBackward(grads, in, opt); });
}

}  // namespace

SruForwardResult sruRecurrenceForward(const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                      const Tensor& bias, const Tensor& c0, const Tensor& mask_c,
                                      const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  checkInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  return forwardOnDevice(contiguousTensors(u, x, weight_c, bias, c0, mask_c, mask_pad, opt), opt);
}

SruBackwardResult sruRecurrenceBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                        const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                        const Tensor& bias, const Tensor& c0, const Tensor& c,
                                        const Tensor& mask_c, const Tensor& mask_pad,
                                        const SruRecurrenceOptions& opt) {
  checkInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  detail::checkBackwardTensors(kName, u, grad_h, grad_last_c, c, opt.outputSize(),
                               opt.outputSize());
  return backwardOnDevice(detail::contiguousBackward(grad_h, grad_last_c, c),
                          contiguousTensors(u, x, weight_c, bias, c0, mask_c, mask_pad, opt), opt);
}

namespace {

// Checked once by sruRecurrence before apply(); its forward and backward trust their tensors
// (autograd hands backward gradients of the outputs' shapes, dtypes and devices).
class SruRecurrenceFunction : public torch::autograd::Function<SruRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor x, Tensor weight_c, Tensor bias, Tensor c0,
                                                Tensor mask_c, Tensor mask_pad, int64_t hidden_size,
                                                bool bidirectional, int64_t skip, double alpha) {
    // Named for profilers (the LM report's kernel-vs-matmul share of step time), with U (what
    // the op received: float32 under autocast, tests/support/op_inputs.h); built only for an
    // observer that asks for inputs.
    RECORD_FUNCTION("recurlab::sru_recurrence", std::vector<c10::IValue>({u}));
    SruRecurrenceOptions opt{hidden_size, bidirectional, static_cast<SruSkip>(skip), alpha};
    x = detail::emptyAsUndefined(x);
    c0 = detail::emptyAsUndefined(c0);
    mask_c = detail::emptyAsUndefined(mask_c);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    SruForwardResult res = forwardOnDevice(
        contiguousTensors(u, x, weight_c, bias, c0, mask_c, mask_pad, opt), opt);
    ctx->save_for_backward({u, x, weight_c, bias, c0, res.c, mask_c, mask_pad});
    ctx->saved_data["hidden_size"] = hidden_size;
    ctx->saved_data["bidirectional"] = bidirectional;
    ctx->saved_data["skip"] = skip;
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["c0_defined"] = c0.defined();
    return {res.h, res.last_c};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    RECORD_FUNCTION("recurlab::sru_recurrence_backward", std::vector<c10::IValue>());
    const auto s = ctx->get_saved_variables();
    SruRecurrenceOptions opt{
        ctx->saved_data["hidden_size"].toInt(), ctx->saved_data["bidirectional"].toBool(),
        static_cast<SruSkip>(ctx->saved_data["skip"].toInt()), ctx->saved_data["alpha"].toDouble()};
    // s: u, x, weight_c, bias, c0, c, mask_c, mask_pad (undefined ones saved as undefined).
    SruBackwardResult g =
        backwardOnDevice(detail::contiguousBackward(grads[0], grads[1], s[5]),
                         contiguousTensors(s[0], s[1], s[2], s[3], s[4], s[6], s[7], opt), opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u, g.grad_x, g.grad_weight_c, g.grad_bias, c0_defined ? g.grad_c0 : Tensor(),
            Tensor(), Tensor(), Tensor(),        Tensor(),    Tensor(),
            Tensor()};
  }
};

}  // namespace

std::vector<Tensor> sruRecurrence(const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                  const Tensor& bias, const Tensor& c0, const Tensor& mask_c,
                                  const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  if (const auto type = detail::autocastComputeType(u, {x, weight_c, bias, c0, mask_c})) {
    using detail::castFloating;
    return detail::castOutputs(
        sruRecurrence(castFloating(u, *type), castFloating(x, *type), castFloating(weight_c, *type),
                      castFloating(bias, *type), castFloating(c0, *type),
                      castFloating(mask_c, *type), mask_pad, opt),
        u.scalar_type());
  }
  checkInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  const Tensor skip_x = opt.skip == SruSkip::ScaledInput ? x : Tensor();
  return SruRecurrenceFunction::apply(
      u, detail::undefinedAsEmpty(skip_x, u), weight_c, bias, detail::undefinedAsEmpty(c0, u),
      detail::undefinedAsEmpty(mask_c, u), detail::undefinedAsEmpty(mask_pad, u).to(torch::kBool),
      opt.hidden_size, opt.bidirectional, static_cast<int64_t>(opt.skip), opt.alpha);
}

}  // namespace recurlab::kernels
