// The n-gram RCNN recurrence on any device: raw kernels dispatched by U's device and the one
// torch::autograd::Function over them.
#include "kernels/ngram_recurrence.h"

#include <torch/torch.h>

#include "kernels/cpu/ngram_recurrence.h"
#include "kernels/device_dispatch.h"
#ifdef RECURLAB_WITH_CUDA
#include "kernels/cuda/ngram_recurrence.h"
#endif

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "n-gram recurrence";

// The argument checks of the kernel that will run, before the tensors cross the Function.
void checkInputs(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                 const NgramRecurrenceOptions& opt) {
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName)) {
    checkNgramRecurrenceCudaInputs(u, c0, mask_pad, opt);
    return;
  }
#else
  detail::runsOnCuda(u, kName);
#endif
  checkNgramRecurrenceInputs(u, c0, mask_pad, opt);
}

}  // namespace

NgramForwardResult ngramRecurrenceForward(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                                          const NgramRecurrenceOptions& opt) {
  detail::checkSameDevice(kName, u, {{"c0", c0}, {"mask_pad", mask_pad}});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName)) return ngramRecurrenceCudaForward(u, c0, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return ngramRecurrenceCpuForward(u, c0, mask_pad, opt);
}

NgramBackwardResult ngramRecurrenceBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                            const Tensor& u, const Tensor& c0, const Tensor& c,
                                            const Tensor& mask_pad,
                                            const NgramRecurrenceOptions& opt) {
  detail::checkSameDevice(kName, u, {{"grad of h", grad_h}, {"grad of last c", grad_last_c},
                                     {"c0", c0}, {"saved c", c}, {"mask_pad", mask_pad}});
  checkInputs(u, c0, mask_pad, opt);
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size, n = opt.n;
  detail::checkGradient(kName, u, grad_h, "grad of h", {L, B, d});
  detail::checkGradient(kName, u, grad_last_c, "grad of last c", {B, n * d});
  detail::checkGradient(kName, u, c, "saved c", {L, B, n * d});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName))
    return ngramRecurrenceCudaBackward(grad_h, grad_last_c, u, c0, c, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return ngramRecurrenceCpuBackward(grad_h, grad_last_c, u, c0, c, mask_pad, opt);
}

namespace {

class NgramRecurrenceFunction : public torch::autograd::Function<NgramRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor c0, Tensor mask_pad, int64_t hidden_size,
                                                int64_t n, bool output_gate) {
    c0 = detail::emptyAsUndefined(c0);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    const NgramRecurrenceOptions opt{hidden_size, n, output_gate};
    NgramForwardResult res = ngramRecurrenceForward(u, c0, mask_pad, opt);
    ctx->save_for_backward({u, c0, res.c, mask_pad});
    ctx->saved_data["hidden_size"] = hidden_size;
    ctx->saved_data["n"] = n;
    ctx->saved_data["output_gate"] = output_gate;
    ctx->saved_data["c0_defined"] = c0.defined();
    return {res.h, res.last_c};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const NgramRecurrenceOptions opt{ctx->saved_data["hidden_size"].toInt(),
                                     ctx->saved_data["n"].toInt(),
                                     ctx->saved_data["output_gate"].toBool()};
    NgramBackwardResult g =
        ngramRecurrenceBackward(grads[0], grads[1], s[0], s[1], s[2], s[3], opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u, c0_defined ? g.grad_c0 : Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

std::vector<Tensor> ngramRecurrence(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                                    const NgramRecurrenceOptions& opt) {
  checkInputs(u, c0, mask_pad, opt);
  return NgramRecurrenceFunction::apply(u, detail::undefinedAsEmpty(c0, u),
                                        detail::undefinedAsEmpty(mask_pad, u), opt.hidden_size,
                                        opt.n, opt.output_gate);
}

}  // namespace recurlab::kernels
