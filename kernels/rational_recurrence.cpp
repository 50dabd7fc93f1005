// The rational recurrences on any device: their argument checks, the raw kernels dispatched by
// U's device, and the one torch::autograd::Function over them.
#include "kernels/rational_recurrence.h"

#include <torch/torch.h>

#include "kernels/device_dispatch.h"
#include "kernels/input_checks.h"
#include "kernels/mixed_precision.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "rational recurrence";

const char* layoutOf(const RationalRecurrenceOptions& opt) {
  if (opt.pattern == RationalPattern::B)
    return opt.output_gate ? "3·d: [z, f, o] per unit (pattern B with the output gate)"
                           : "2·d: [z, f] per unit (pattern B without the output gate)";
  return opt.output_gate ? "5·d: [z1, z2, f1, f2, o] per unit (patterns C/F with the gate)"
                         : "4·d: [z1, z2, f1, f2] per unit (patterns C/F without the gate)";
}

void checkInputs(const Tensor& u, const Tensor& weight, const Tensor& c0, const Tensor& mask_pad,
                 const RationalRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  TORCH_CHECK(opt.pattern == RationalPattern::B || opt.pattern == RationalPattern::C ||
                  opt.pattern == RationalPattern::F,
              kName, ": unknown pattern ", static_cast<int64_t>(opt.pattern),
              " (expected B = 0, C = 1 or F = 2)");
  TORCH_CHECK(opt.semiring == Semiring::PlusTimes || opt.semiring == Semiring::MaxPlus, kName,
              ": unknown semiring ", static_cast<int64_t>(opt.semiring),
              " (expected plus-times = 0 or max-plus = 1)");
  const int64_t d = opt.hidden_size;
  detail::checkU(kName, u, d * opt.numMatrices(), layoutOf(opt));
  if (opt.pattern == RationalPattern::F) {
    detail::checkLikeU(kName, u, weight, "weight [b_r | b_p1 | b_p2] (pattern F)", {3 * d});
  } else {
    TORCH_CHECK(!weight.defined(), kName,
                ": only pattern F takes a weight vector; got one of shape ", weight.sizes());
  }
  detail::checkOptionalLikeU(kName, u, c0, "c0 ([c1 | c2] states)",
                             {u.size(1), opt.numStates() * d});
  detail::checkPadMask(kName, u, mask_pad);
}

detail::RationalRecurrenceTensors contiguousTensors(const Tensor& u, const Tensor& weight,
                                                    const Tensor& c0, const Tensor& mask_pad) {
  using detail::contiguousOrUndefined;
  return {u.contiguous(), contiguousOrUndefined(weight), contiguousOrUndefined(c0),
          contiguousOrUndefined(mask_pad)};
}

RationalForwardResult forwardOnDevice(const detail::RationalRecurrenceTensors& in,
                                      const RationalRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::rationalRecurrenceCpuForward(in, opt); },
      [&] { return detail::rationalRecurrenceCudaForward(in, opt); });
}

RationalBackwardResult backwardOnDevice(const detail::BackwardTensors& grads,
                                        const detail::RationalRecurrenceTensors& in,
                                        const RationalRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::rationalRecurrenceCpuBackward(grads, in, opt); },
      [&] { return detail::rationalRecurrenceCudaBackward(grads, in, opt); });
}

}  // namespace

RationalForwardResult rationalRecurrenceForward(const Tensor& u, const Tensor& weight,
                                                const Tensor& c0, const Tensor& mask_pad,
                                                const RationalRecurrenceOptions& opt) {
  checkInputs(u, weight, c0, mask_pad, opt);
  return forwardOnDevice(contiguousTensors(u, weight, c0, mask_pad), opt);
}

RationalBackwardResult rationalRecurrenceBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                                  const Tensor& u, const Tensor& weight,
                                                  const Tensor& c0, const Tensor& c,
                                                  const Tensor& mask_pad,
                                                  const RationalRecurrenceOptions& opt) {
  checkInputs(u, weight, c0, mask_pad, opt);
  detail::checkBackwardTensors(kName, u, grad_h, grad_last_c, c, opt.hidden_size,
                               opt.numStates() * opt.hidden_size);
  return backwardOnDevice(detail::contiguousBackward(grad_h, grad_last_c, c),
                          contiguousTensors(u, weight, c0, mask_pad), opt);
}

namespace {

// Checked once by rationalRecurrence before apply(); its forward and backward trust their
// tensors (autograd hands backward gradients of the outputs' shapes, dtypes and devices).
class RationalRecurrenceFunction : public torch::autograd::Function<RationalRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor weight, Tensor c0, Tensor mask_pad,
                                                int64_t hidden_size, int64_t pattern,
                                                int64_t semiring, bool output_gate) {
    weight = detail::emptyAsUndefined(weight);
    c0 = detail::emptyAsUndefined(c0);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    const RationalRecurrenceOptions opt{hidden_size, static_cast<RationalPattern>(pattern),
                                        static_cast<Semiring>(semiring), output_gate};
    RationalForwardResult res = forwardOnDevice(contiguousTensors(u, weight, c0, mask_pad), opt);
    ctx->save_for_backward({u, weight, c0, res.c, mask_pad});
    ctx->saved_data["hidden_size"] = hidden_size;
    ctx->saved_data["pattern"] = pattern;
    ctx->saved_data["semiring"] = semiring;
    ctx->saved_data["output_gate"] = output_gate;
    ctx->saved_data["c0_defined"] = c0.defined();
    return {res.h, res.last_c};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const RationalRecurrenceOptions opt{
        ctx->saved_data["hidden_size"].toInt(),
        static_cast<RationalPattern>(ctx->saved_data["pattern"].toInt()),
        static_cast<Semiring>(ctx->saved_data["semiring"].toInt()),
        ctx->saved_data["output_gate"].toBool()};
    RationalBackwardResult g =
        backwardOnDevice(detail::contiguousBackward(grads[0], grads[1], s[3]),
                         contiguousTensors(s[0], s[1], s[2], s[4]), opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u, g.grad_weight, c0_defined ? g.grad_c0 : Tensor(),
            Tensor(), Tensor(),      Tensor(),
            Tensor(), Tensor()};
  }
};

}  // namespace

std::vector<Tensor> rationalRecurrence(const Tensor& u, const Tensor& weight, const Tensor& c0,
                                       const Tensor& mask_pad,
                                       const RationalRecurrenceOptions& opt) {
  if (const auto type = detail::autocastComputeType(u, {weight, c0})) {
    using detail::castFloating;
    return detail::castOutputs(rationalRecurrence(castFloating(u, *type), castFloating(weight, *type),
                                                  castFloating(c0, *type), mask_pad, opt),
                               u.scalar_type());
  }
  checkInputs(u, weight, c0, mask_pad, opt);
  return RationalRecurrenceFunction::apply(
      u, detail::undefinedAsEmpty(weight, u), detail::undefinedAsEmpty(c0, u),
      detail::undefinedAsEmpty(mask_pad, u), opt.hidden_size, static_cast<int64_t>(opt.pattern),
      static_cast<int64_t>(opt.semiring), opt.output_gate);
}

}  // namespace recurlab::kernels
