// Torch glue of the QRNN pooling CUDA kernels (kernels/cuda/qrnn_pooling.cu): device guard,
// current stream and allocation, for the tensors the op (kernels/qrnn_pooling.cpp) has checked.
// Built only with a CUDA-enabled Torch.
#include "kernels/qrnn_pooling.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/qrnn_pooling_launch.h"
#include "kernels/cuda/torch_glue.h"
#include "kernels/kernel_results.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

kc::QrnnCudaGeometry geometryOf(const Tensor& u, const QrnnPoolingOptions& opt) {
  kc::QrnnCudaGeometry g;
  g.length = u.size(0);
  g.batch = u.size(1);
  g.hidden_size = opt.hidden_size;
  g.output_gate = opt.output_gate;
  return g;
}

}  // namespace

QrnnPoolingForwardResult detail::qrnnPoolingCudaForward(const detail::QrnnPoolingTensors& in,
                                                        const QrnnPoolingOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.u.device());
  auto res =
      detail::emptyForwardResult<QrnnPoolingForwardResult>(in.u, opt.hidden_size, opt.hidden_size);
  kc::QrnnCudaForwardArgs a;
  kc::setForwardArgs(a, in, res);
  a.geometry = geometryOf(in.u, opt);
  a.zoneout = kc::dataOrNull(in.zoneout);
  kc::launchQrnnPoolingForward(a, kc::currentStream());
  return res;
}

QrnnPoolingBackwardResult detail::qrnnPoolingCudaBackward(const detail::BackwardTensors& grads,
                                                          const detail::QrnnPoolingTensors& in,
                                                          const QrnnPoolingOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.u.device());
  // The kernel writes every element of grad_u, pad steps included.
  auto res = detail::emptyBackwardResult<QrnnPoolingBackwardResult>(in.u, opt.hidden_size);
  kc::QrnnCudaBackwardArgs a;
  kc::setBackwardArgs(a, grads, in, res);
  a.geometry = geometryOf(in.u, opt);
  a.zoneout = kc::dataOrNull(in.zoneout);
  kc::launchQrnnPoolingBackward(a, kc::currentStream());
  return res;
}

}  // namespace recurlab::kernels
