// The n-gram RCNN recurrence on any device: its argument checks, the raw kernels dispatched by
// U's device, and the one torch::autograd::Function over them.
#include "kernels/ngram_recurrence.h"

#include <torch/torch.h>

#include <string>

#include "kernels/device_dispatch.h"
#include "kernels/input_checks.h"
#include "kernels/mixed_precision.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "n-gram recurrence";

void checkInputs(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                 const NgramRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  TORCH_CHECK(opt.n >= 1 && opt.n <= kMaxNgramOrder, kName, ": n must be in [1, ",
              kMaxNgramOrder, "], got ", opt.n);
  const int64_t d = opt.hidden_size;
  const std::string layout = std::to_string(opt.numMatrices()) + "·d: [z1..z" +
                             std::to_string(opt.n) + ", f" + (opt.output_gate ? ", o" : "") +
                             "] per unit";
  detail::checkU(kName, u, d * opt.numMatrices(), layout);
  detail::checkOptionalLikeU(kName, u, c0, "c0 ([c^(1) | ... | c^(n)])", {u.size(1), opt.n * d});
  detail::checkPadMask(kName, u, mask_pad);
}

detail::NgramRecurrenceTensors contiguousTensors(const Tensor& u, const Tensor& c0,
                                                 const Tensor& mask_pad) {
  using detail::contiguousOrUndefined;
  return {u.contiguous(), contiguousOrUndefined(c0), contiguousOrUndefined(mask_pad)};
}

NgramForwardResult forwardOnDevice(const detail::NgramRecurrenceTensors& in,
                                   const NgramRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::ngramRecurrenceCpuForward(in, opt); },
      [&] { return detail::ngramRecurrenceCudaForward(in, opt); });
}

NgramBackwardResult backwardOnDevice(const detail::BackwardTensors& grads,
                                     const detail::NgramRecurrenceTensors& in,
                                     const NgramRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::ngramRecurrenceCpuBackward(grads, in, opt); },
      [&] { return detail::ngramRecurrenceCudaBackward(grads, in, opt); });
}

}  // namespace

NgramForwardResult ngramRecurrenceForward(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                                          const NgramRecurrenceOptions& opt) {
  checkInputs(u, c0, mask_pad, opt);
  return forwardOnDevice(contiguousTensors(u, c0, mask_pad), opt);
}

NgramBackwardResult ngramRecurrenceBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                            const Tensor& u, const Tensor& c0, const Tensor& c,
                                            const Tensor& mask_pad,
                                            const NgramRecurrenceOptions& opt) {
  checkInputs(u, c0, mask_pad, opt);
  detail::checkBackwardTensors(kName, u, grad_h, grad_last_c, c, opt.hidden_size,
                               opt.n * opt.hidden_size);
  return backwardOnDevice(detail::contiguousBackward(grad_h, grad_last_c, c),
                          contiguousTensors(u, c0, mask_pad), opt);
}

namespace {

// Checked once by ngramRecurrence before apply(); its forward and backward trust their tensors
// (autograd hands backward gradients of the outputs' shapes, dtypes and devices).
class NgramRecurrenceFunction : public torch::autograd::Function<NgramRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor c0, Tensor mask_pad, int64_t hidden_size,
                                                int64_t n, bool output_gate) {
    c0 = detail::emptyAsUndefined(c0);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    const NgramRecurrenceOptions opt{hidden_size, n, output_gate};
    NgramForwardResult res = forwardOnDevice(contiguousTensors(u, c0, mask_pad), opt);
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
    NgramBackwardResult g = backwardOnDevice(detail::contiguousBackward(grads[0], grads[1], s[2]),
                                             contiguousTensors(s[0], s[1], s[3]), opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u, c0_defined ? g.grad_c0 : Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

std::vector<Tensor> ngramRecurrence(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                                    const NgramRecurrenceOptions& opt) {
  if (const auto type = detail::autocastComputeType(u, {c0})) {
    using detail::castFloating;
    return detail::castOutputs(
        ngramRecurrence(castFloating(u, *type), castFloating(c0, *type), mask_pad, opt),
        u.scalar_type());
  }
  checkInputs(u, c0, mask_pad, opt);
  return NgramRecurrenceFunction::apply(u, detail::undefinedAsEmpty(c0, u),
                                        detail::undefinedAsEmpty(mask_pad, u), opt.hidden_size,
                                        opt.n, opt.output_gate);
}

}  // namespace recurlab::kernels
