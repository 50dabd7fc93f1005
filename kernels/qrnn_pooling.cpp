// QRNN fo/f-pooling on any device: raw kernels dispatched by U's device and the one
// torch::autograd::Function over them.
#include "kernels/qrnn_pooling.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include "kernels/cpu/qrnn_pooling.h"
#include "kernels/device_dispatch.h"
#ifdef RECURLAB_WITH_CUDA
#include "kernels/cuda/qrnn_pooling.h"
#endif

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "QRNN pooling";

// The argument checks of the kernel that will run, before the tensors cross the Function.
void checkInputs(const Tensor& u, const Tensor& c0, const Tensor& zoneout, const Tensor& mask_pad,
                 const QrnnPoolingOptions& opt) {
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName)) {
    checkQrnnPoolingCudaInputs(u, c0, zoneout, mask_pad, opt);
    return;
  }
#else
  detail::runsOnCuda(u, kName);
#endif
  checkQrnnPoolingInputs(u, c0, zoneout, mask_pad, opt);
}

}  // namespace

QrnnPoolingForwardResult qrnnPoolingForward(const Tensor& u, const Tensor& c0,
                                            const Tensor& zoneout, const Tensor& mask_pad,
                                            const QrnnPoolingOptions& opt) {
  detail::checkSameDevice(kName, u, {{"c0", c0}, {"zoneout", zoneout}, {"mask_pad", mask_pad}});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName)) return qrnnPoolingCudaForward(u, c0, zoneout, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return qrnnPoolingCpuForward(u, c0, zoneout, mask_pad, opt);
}

QrnnPoolingBackwardResult qrnnPoolingBackward(const Tensor& grad_h, const Tensor& grad_last_c,
                                              const Tensor& u, const Tensor& c0, const Tensor& c,
                                              const Tensor& zoneout, const Tensor& mask_pad,
                                              const QrnnPoolingOptions& opt) {
  detail::checkSameDevice(kName, u, {{"grad of h", grad_h}, {"grad of last c", grad_last_c},
                                     {"c0", c0}, {"saved c", c}, {"zoneout", zoneout},
                                     {"mask_pad", mask_pad}});
  checkInputs(u, c0, zoneout, mask_pad, opt);
  const int64_t L = u.size(0), B = u.size(1), d = opt.hidden_size;
  detail::checkGradient(kName, u, grad_h, "grad of h", {L, B, d});
  detail::checkGradient(kName, u, grad_last_c, "grad of last c", {B, d});
  detail::checkGradient(kName, u, c, "saved c", {L, B, d});
#ifdef RECURLAB_WITH_CUDA
  if (detail::runsOnCuda(u, kName))
    return qrnnPoolingCudaBackward(grad_h, grad_last_c, u, c0, c, zoneout, mask_pad, opt);
#else
  detail::runsOnCuda(u, kName);
#endif
  return qrnnPoolingCpuBackward(grad_h, grad_last_c, u, c0, c, zoneout, mask_pad, opt);
}

namespace {

class QrnnPoolingFunction : public torch::autograd::Function<QrnnPoolingFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor u,
                                                Tensor c0, Tensor zoneout, Tensor mask_pad,
                                                int64_t hidden_size, bool output_gate) {
    // Named for profilers (the LM report's kernel-vs-matmul share of step time).
    RECORD_FUNCTION("recurlab::qrnn_pooling_recurrence", std::vector<c10::IValue>());
    c0 = detail::emptyAsUndefined(c0);
    zoneout = detail::emptyAsUndefined(zoneout);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    const QrnnPoolingOptions opt{hidden_size, output_gate};
    QrnnPoolingForwardResult res = qrnnPoolingForward(u, c0, zoneout, mask_pad, opt);
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
        qrnnPoolingBackward(grads[0], grads[1], s[0], s[1], s[2], s[3], s[4], opt);
    const bool c0_defined = ctx->saved_data["c0_defined"].toBool();
    return {g.grad_u, c0_defined ? g.grad_c0 : Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

std::vector<Tensor> qrnnPooling(const Tensor& u, const Tensor& c0, const Tensor& zoneout,
                                const Tensor& mask_pad, const QrnnPoolingOptions& opt) {
  checkInputs(u, c0, zoneout, mask_pad, opt);
  return QrnnPoolingFunction::apply(
      u, detail::undefinedAsEmpty(c0, u), detail::undefinedAsEmpty(zoneout, u),
      detail::undefinedAsEmpty(mask_pad, u), opt.hidden_size, opt.output_gate);
}

}  // namespace recurlab::kernels
