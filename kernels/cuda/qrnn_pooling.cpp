// Torch glue of the QRNN pooling CUDA kernels (kernels/cuda/qrnn_pooling.cu): checks, device
// guard, current stream, and allocation (the op and its one autograd Function: kernels/*.cpp).
// Built only with CUDA Torch.
#include "kernels/cuda/qrnn_pooling.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/qrnn_pooling_launch.h"
#include "kernels/cuda/torch_glue.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

constexpr const char* kName = "QRNN pooling";

kc::QrnnCudaGeometry geometryOf(const Tensor& u, const QrnnPoolingOptions& opt) {
  kc::QrnnCudaGeometry g;
  g.length = u.size(0);
  g.batch = u.size(1);
  g.hidden_size = opt.hidden_size;
  g.output_gate = opt.output_gate;
  return g;
}

}  // namespace

void checkQrnnPoolingCudaInputs(const Tensor& u, const Tensor& c0, const Tensor& zoneout,
                                const Tensor& mask_pad, const QrnnPoolingOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  const int64_t d = opt.hidden_size;
  kc::checkCudaU(kName, u, d * opt.numMatrices(),
                 opt.output_gate ? "3·d: [z, f, o] per unit for fo-pooling"
                                 : "2·d: [z, f] per unit for f-pooling");
  const int64_t L = u.size(0), B = u.size(1);
  if (c0.defined()) kc::checkCudaLike(kName, u, c0, "c0", {B, d});
  if (zoneout.defined()) kc::checkCudaLike(kName, u, zoneout, "zoneout mask", {L, B, d});
  kc::checkCudaPadMask(kName, u, mask_pad);
}

QrnnPoolingForwardResult qrnnPoolingCudaForward(const Tensor& u_in, const Tensor& c0_in,
                                                const Tensor& zoneout_in, const Tensor& mask_pad,
                                                const QrnnPoolingOptions& opt) {
  checkQrnnPoolingCudaInputs(u_in, c0_in, zoneout_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), c0 = kc::contiguousOrUndefined(c0_in);
  const Tensor zoneout = kc::contiguousOrUndefined(zoneout_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::QrnnCudaGeometry g = geometryOf(u, opt);
  QrnnPoolingForwardResult res;
  res.h = at::empty({g.length, g.batch, g.hidden_size}, u.options());
  res.c = at::empty({g.length, g.batch, g.hidden_size}, u.options());
  res.last_c = at::empty({g.batch, g.hidden_size}, u.options());

  kc::QrnnCudaForwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.u = u.data_ptr();
  a.c0 = kc::dataOrNull(c0);
  a.zoneout = kc::dataOrNull(zoneout);
  a.mask_pad = pad;
  a.h = res.h.data_ptr();
  a.c = res.c.data_ptr();
  a.last_c = res.last_c.data_ptr();
  kc::launchQrnnPoolingForward(a, kc::currentStream());
  return res;
}

QrnnPoolingBackwardResult qrnnPoolingCudaBackward(const Tensor& grad_h_in,
                                                  const Tensor& grad_last_c_in,
                                                  const Tensor& u_in, const Tensor& c0_in,
                                                  const Tensor& c_in, const Tensor& zoneout_in,
                                                  const Tensor& mask_pad,
                                                  const QrnnPoolingOptions& opt) {
  checkQrnnPoolingCudaInputs(u_in, c0_in, zoneout_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), c0 = kc::contiguousOrUndefined(c0_in);
  const Tensor zoneout = kc::contiguousOrUndefined(zoneout_in), c = c_in.contiguous();
  const Tensor grad_h = kc::contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = kc::contiguousOrUndefined(grad_last_c_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::QrnnCudaGeometry g = geometryOf(u, opt);
  const int64_t L = g.length, B = g.batch, d = g.hidden_size;
  constexpr const char* kBackward = "QRNN pooling backward";
  kc::checkCudaLike(kBackward, u, c, "saved c", {L, B, d});
  if (grad_h.defined()) kc::checkCudaLike(kBackward, u, grad_h, "grad of h", {L, B, d});
  if (grad_last_c.defined()) kc::checkCudaLike(kBackward, u, grad_last_c, "grad of last c", {B, d});
  QrnnPoolingBackwardResult res;
  res.grad_u = at::empty_like(u);  // the kernel writes every element, pad steps included
  res.grad_c0 = at::empty({B, d}, u.options());

  kc::QrnnCudaBackwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.u = u.data_ptr();
  a.c0 = kc::dataOrNull(c0);
  a.zoneout = kc::dataOrNull(zoneout);
  a.mask_pad = pad;
  a.c = c.data_ptr();
  a.grad_h = kc::dataOrNull(grad_h);
  a.grad_last_c = kc::dataOrNull(grad_last_c);
  a.grad_u = res.grad_u.data_ptr();
  a.grad_c0 = res.grad_c0.data_ptr();
  kc::launchQrnnPoolingBackward(a, kc::currentStream());
  return res;
}

}  // namespace recurlab::kernels
