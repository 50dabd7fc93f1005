// The rational recurrences on any device: raw kernels dispatched by U's device and the one
// torch::autograd::Function over them.
#include "kernels/rational_recurrence.h"

#include <torch/torch.h>

#include "kernels/cpu/rational_recurrence.h"
#include "kernels/device_dispatch.h"
#ifdef RECURLAB_WITH_CUDA
#include "kernels/cuda/rational_recurrence.h"
#endif

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "rational recurrence";

// The argument checks of the kernel that will run, before the tensors cross the Function.
void checkInputs(const Tensor& u, const Tensor& weight, const Tensor& c0, const Tensor& mask_pad,
                 const RationalRecurrenceOptions& opt) {
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName)) {
    checkRationalRecurrenceCudaInputs(u, weight, c0, mask_pad, opt);
    return;
  }
#else
  detail::runsOnCuda(u, kName);
#endif
  checkRationalRecurrenceInputs(u, weight, c0, mask_pad, opt);
}

}  // namespace

RationalForwardResult rationalRecurrenceForward(const Tensor& u, const Tensor& weight,
                                                const Tensor& c0, const Tensor& mask_pad,
                                                const RationalRecurrenceOptions& opt) {
  detail::checkSameDevice(kName, u, {{"weight", weight}, {"c0", c0}, {"mask_pad", mask_pad}});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName))
    return rationalRecurrenceCudaForward(u, weight, c0, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return rationalRecurrenceCpuForward(u, weight, c0, mask_pad, opt);
}

RationalBackwardResult rationalRecurrenceBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                                  const Tensor& u, const Tensor& weight,
                                                  const Tensor& c0, const Tensor& c,
                                                  const Tensor& mask_pad,
                                                  const RationalRecurrenceOptions& opt) {
  detail::checkSameDevice(kName, u, {{"grad of h", grad_h}, {"grad of last c", grad_last_c},
                                     {"weight", weight}, {"c0", c0}, {"saved c", c},
                                     {"mask_pad", mask_pad}});
  checkInputs(u, weight, c0, mask_pad, opt);
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, S = opt.numStates();
  detail::checkGradient(kName, u, grad_h, "grad of h", {L, B, d});
  detail::checkGradient(kName, u, grad_last_c, "grad of last c", {B, S * d});
  detail::checkGradient(kName, u, c, "saved c", {L, B, S * d});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName))
    return rationalRecurrenceCudaBackward(grad_h, grad_last_c, u, weight, c0, c, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return rationalRecurrenceCpuBackward(grad_h, grad_last_c, u, weight, c0, c, mask_pad, opt);
}

namespace {

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
    RationalForwardResult res = rationalRecurrenceForward(u, weight, c0, mask_pad, opt);
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
        rationalRecurrenceBackward(grads[0], grads[1], s[0], s[1], s[2], s[3], s[4], opt);
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
  checkInputs(u, weight, c0, mask_pad, opt);
  return RationalRecurrenceFunction::apply(
      u, detail::undefinedAsEmpty(weight, u), detail::undefinedAsEmpty(c0, u),
      detail::undefinedAsEmpty(mask_pad, u), opt.hidden_size, static_cast<int64_t>(opt.pattern),
      static_cast<int64_t>(opt.semiring), opt.output_gate);
}

}  // namespace recurlab::kernels
