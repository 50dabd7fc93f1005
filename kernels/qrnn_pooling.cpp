// QRNN fo/f-pooling on any device: its argument checks, the raw kernels dispatched by U's
// device, and the one torch::autograd::Function over them.
#include "kernels/qrnn_pooling.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "kernels/device_dispatch.h"
#include "kernels/input_checks.h"
#include "kernels/mixed_precision.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "QRNN pooling";

void checkInputs(const Tensor& u, const Tensor& c0, const Tensor& zoneout, const Tensor& mask_pad,
                 const QrnnPoolingOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  const int64_t d = opt.hidden_size;
  detail::checkU(kName, u, d * opt.numMatrices(),
                 opt.output_gate ? "3·d: [z, f, o] per unit for fo-pooling"
                                 : "2·d: [z, f] per unit for f-pooling");
  const int64_t L = u.size(0), B = u.size(1);
  detail::checkOptionalLikeU(kName, u, c0, "c0", {B, d});
  detail::checkOptionalLikeU(kName, u, zoneout, "zoneout mask", {L, B, d});
  detail::checkPadMask(kName, u, mask_pad);
}

detail::QrnnPoolingTensors contiguousTensors(const Tensor& u, const Tensor& c0,
                                             const Tensor& zoneout, const Tensor& mask_pad) {
  using detail::contiguousOrUndefined;
  return {u.contiguous(), contiguousOrUndefined(c0), contiguousOrUndefined(zoneout),
          contiguousOrUndefined(mask_pad)};
}

QrnnPoolingForwardResult forwardOnDevice(const detail::QrnnPoolingTensors& in,
                                         const QrnnPoolingOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::qrnnPoolingCpuForward(in, opt); },
      [&] { return detail::qrnnPoolingCudaForward(in, opt); });
}

QrnnPoolingBackwardResult backwardOnDevice(const detail::BackwardTensors& grads,
                                           const detail::QrnnPoolingTensors& in,
                                           const QrnnPoolingOptions& opt) {
  return detail::dispatchByDevice(
      in.u, [&] { return detail::qrnnPoolingCpuBackward(grads, in, opt); },
      [&] { return detail::qrnnPoolingCudaBackward(grads, in, opt); });
}

}  // namespace

QrnnPoolingForwardResult qrnnPoolingForward(const Tensor& u, const Tensor& c0,
                                            const Tensor& zoneout, const Tensor& mask_pad,
                                            const QrnnPoolingOptions& opt) {
  checkInputs(u, c0, zoneout, mask_pad, opt);
  return forwardOnDevice(contiguousTensors(u, c0, zoneout, mask_pad), opt);
}

QrnnPoolingBackwardResult qrnnPoolingBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                              const Tensor& u, const Tensor& c0, const Tensor& c,
                                              const Tensor& zoneout, const Tensor& mask_pad,
                                              const QrnnPoolingOptions& opt) {
  checkInputs(u, c0, zoneout, mask_pad, opt);
  detail::checkBackwardTensors(kName, u, grad_h, grad_last_c, c, opt.hidden_size,
                               opt.hidden_size);
  return backwardOnDevice(detail::contiguousBackward(grad_h, grad_last_c, c),
                          contiguousTensors(u, c0, zoneout, mask_pad), opt);
}

namespace {

// Checked once by qrnnPooling before apply(); its forward and backward trust their tensors
// (autograd hands backward gradients of the outputs' shapes, dtypes and devices).
class QrnnPoolingFunction : public torch::autograd::Function<QrnnPoolingFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor c0, Tensor zoneout, Tensor mask_pad,
                                                int64_t hidden_size, bool output_gate) {
    // Named for profilers (the LM report's kernel-vs-matmul share of step time), with U (what
    // the op received: float32 under autocast, tests/support/op_inputs.h); built only for an
    // observer that asks for inputs.
    RECORD_FUNCTION("recurlab::qrnn_pooling_recurrence", std::vector<c10::IValue>({u}));
    c0 = detail::emptyAsUndefined(c0);
    zoneout = detail::emptyAsUndefined(zoneout);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    const QrnnPoolingOptions opt{hidden_size, output_gate};
    QrnnPoolingForwardResult res =
        forwardOnDevice(contiguousTensors(u, c0, zoneout, mask_pad), opt);
    ctx->save_for_backward({u, c0, res.c, zoneout, mask_pad});
    ctx->saved_data["hidden_size"] = hidden_size;
    ctx->saved_data["output_gate"] = output_gate;
    ctx->saved_data["c0_defined"] = c0.defined();
    return {res.h, res.last_c};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    RECORD_FUNCTION("recurlab::qrnn_pooling_recurrence_backward", std::vector<c10::IValue>());
    const auto s = ctx->get_saved_variables();
    const QrnnPoolingOptions opt{ctx->saved_data["hidden_size"].toInt(),
                                 ctx->saved_data["output_gate"].toBool()};
    QrnnPoolingBackwardResult g =
        backwardOnDevice(detail::contiguousBackward(grads[0], grads[1], s[2]),
                         contiguousTensors(s[0], s[1], s[3], s[4]), opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u, c0_defined ? g.grad_c0 : Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

std::vector<Tensor> qrnnPooling(const Tensor& u, const Tensor& c0, const Tensor& zoneout,
                                const Tensor& mask_pad, const QrnnPoolingOptions& opt) {
  if (const auto type = detail::autocastComputeType(u, {c0, zoneout})) {
    using detail::castFloating;
    return detail::castOutputs(qrnnPooling(castFloating(u, *type), castFloating(c0, *type),
                                           castFloating(zoneout, *type), mask_pad, opt),
                               u.scalar_type());
  }
  checkInputs(u, c0, zoneout, mask_pad, opt);
  return QrnnPoolingFunction::apply(
      u, detail::undefinedAsEmpty(c0, u), detail::undefinedAsEmpty(zoneout, u),
      detail::undefinedAsEmpty(mask_pad, u), opt.hidden_size, opt.output_gate);
}

}  // namespace recurlab::kernels
