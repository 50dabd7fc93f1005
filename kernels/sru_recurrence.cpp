// The SRU recurrence on any device: raw kernels dispatched by U's device and the one
// torch::autograd::Function over them.
#include "kernels/sru_recurrence.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "kernels/cpu/sru_recurrence.h"
#include "kernels/device_dispatch.h"
#ifdef RECURLAB_WITH_CUDA
#include "kernels/cuda/sru_recurrence.h"
#endif

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "SRU recurrence";

}  // namespace

SruForwardResult sruRecurrenceForward(const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                      const Tensor& bias, const Tensor& c0, const Tensor& mask_c,
                                      const Tensor& mask_pad, const SruRecurrenceOptions& opt) {
  detail::checkSameDevice(kName, u, {{"x", x}, {"weight_c", weight_c}, {"bias", bias}, {"c0", c0},
                                     {"mask_c", mask_c}, {"mask_pad", mask_pad}});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName))
    return sruRecurrenceCudaForward(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return sruRecurrenceCpuForward(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
}

SruBackwardResult sruRecurrenceBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                        const Tensor& u, const Tensor& x, const Tensor& weight_c,
                                        const Tensor& bias, const Tensor& c0, const Tensor& c,
                                        const Tensor& mask_c, const Tensor& mask_pad,
                                        const SruRecurrenceOptions& opt) {
  detail::checkSameDevice(kName, u, {{"grad of h", grad_h}, {"grad of last c", grad_last_c},
                                     {"x", x}, {"weight_c", weight_c}, {"bias", bias},
                                     {"c0", c0}, {"saved c", c}, {"mask_c", mask_c},
                                     {"mask_pad", mask_pad}});
  checkSruRecurrenceInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  const int64_t L = u.size(0), B = u.size(1), out = opt.outputSize();
  detail::checkGradient(kName, u, grad_h, "grad of h", {L, B, out});
  detail::checkGradient(kName, u, grad_last_c, "grad of last c", {B, out});
  detail::checkGradient(kName, u, c, "saved c", {L, B, out});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName))
    return sruRecurrenceCudaBackward(grad_h, grad_last_c, u, x, weight_c, bias, c0, c, mask_c,
                                     mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return sruRecurrenceCpuBackward(grad_h, grad_last_c, u, x, weight_c, bias, c0, c, mask_c,
                                  mask_pad, opt);
}

namespace {

class SruRecurrenceFunction : public torch::autograd::Function<SruRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor x, Tensor weight_c, Tensor bias, Tensor c0,
                                                Tensor mask_c, Tensor mask_pad, int64_t hidden_size,
                                                bool bidirectional, int64_t skip, double alpha) {
    // Named for profilers (the LM report's kernel-vs-matmul share of step time).
    RECORD_FUNCTION("recurlab::sru_recurrence", std::vector<c10::IValue>());
    SruRecurrenceOptions opt{hidden_size, bidirectional, static_cast<SruSkip>(skip), alpha};
    x = detail::emptyAsUndefined(x);
    c0 = detail::emptyAsUndefined(c0);
    mask_c = detail::emptyAsUndefined(mask_c);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    SruForwardResult res = sruRecurrenceForward(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
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
    const auto saved = ctx->get_saved_variables();
    SruRecurrenceOptions opt{
        ctx->saved_data["hidden_size"].toInt(), ctx->saved_data["bidirectional"].toBool(),
        static_cast<SruSkip>(ctx->saved_data["skip"].toInt()), ctx->saved_data["alpha"].toDouble()};
    SruBackwardResult g = sruRecurrenceBackward(
        grads[0], grads[1], saved[0], detail::emptyAsUndefined(saved[1]), saved[2], saved[3],
        detail::emptyAsUndefined(saved[4]), saved[5], detail::emptyAsUndefined(saved[6]),
        detail::emptyAsUndefined(saved[7]), opt);
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
  detail::runsOnCuda(u, kName);  // names the op for a tensor on no supported device
  checkSruRecurrenceInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  const Tensor skip_x = opt.skip == SruSkip::ScaledInput ? x : Tensor();
  return SruRecurrenceFunction::apply(
      u, detail::undefinedAsEmpty(skip_x, u), weight_c, bias, detail::undefinedAsEmpty(c0, u),
      detail::undefinedAsEmpty(mask_c, u), detail::undefinedAsEmpty(mask_pad, u).to(torch::kBool),
      opt.hidden_size, opt.bidirectional, static_cast<int64_t>(opt.skip), opt.alpha);
}

}  // namespace recurlab::kernels
