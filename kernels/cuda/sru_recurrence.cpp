// Torch glue of the SRU CUDA kernels (kernels/cuda/sru_recurrence.cu): checks, device guard,
// current stream, and allocation (the op and its one autograd Function: kernels/*.cpp). Built only
// with a CUDA-enabled Torch.
#include "kernels/cuda/sru_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/sru_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

static_assert(static_cast<int>(kc::SruCudaSkip::None) == static_cast<int>(SruSkip::None) &&
                  static_cast<int>(kc::SruCudaSkip::ScaledInput) ==
                      static_cast<int>(SruSkip::ScaledInput) &&
                  static_cast<int>(kc::SruCudaSkip::LearnedProjection) ==
                      static_cast<int>(SruSkip::LearnedProjection),
              "SruCudaSkip must mirror SruSkip");

constexpr const char* kName = "SRU recurrence";

void checkCudaInputs(const Tensor& u, const Tensor& x, const Tensor& weight_c, const Tensor& bias,
                     const Tensor& c0, const Tensor& mask_c, const Tensor& mask_pad,
                     const SruRecurrenceOptions& opt) {
  checkSruRecurrenceInputs(u, x, weight_c, bias, c0, mask_c, mask_pad, opt);
  TORCH_CHECK(u.is_cuda(), kName, ": the CUDA kernel got U on ", u.device());
  kc::cudaScalarOf(u, kName);
}

kc::SruCudaGeometry geometryOf(const Tensor& u, const SruRecurrenceOptions& opt) {
  kc::SruCudaGeometry g;
  g.length = u.size(0);
  g.batch = u.size(1);
  g.hidden_size = opt.hidden_size;
  g.bidirectional = opt.bidirectional;
  g.skip = static_cast<kc::SruCudaSkip>(static_cast<int>(opt.skip));
  return g;
}

}  // namespace

SruForwardResult sruRecurrenceCudaForward(const Tensor& u_in, const Tensor& x_in,
                                          const Tensor& wc_in, const Tensor& bias_in,
                                          const Tensor& c0_in, const Tensor& mask_c_in,
                                          const Tensor& mask_pad,
                                          const SruRecurrenceOptions& opt) {
  checkCudaInputs(u_in, x_in, wc_in, bias_in, c0_in, mask_c_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), wc = wc_in.contiguous(), bias = bias_in.contiguous();
  const Tensor x = opt.skip == SruSkip::ScaledInput ? x_in.contiguous() : Tensor();
  const Tensor c0 = kc::contiguousOrUndefined(c0_in);
  const Tensor mask_c = kc::contiguousOrUndefined(mask_c_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::SruCudaGeometry g = geometryOf(u, opt);
  SruForwardResult res;
  res.h = at::empty({g.length, g.batch, g.outputSize()}, u.options());
  res.c = at::empty({g.length, g.batch, g.outputSize()}, u.options());
  res.last_c = at::empty({g.batch, g.outputSize()}, u.options());

  kc::SruCudaForwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.alpha = opt.alpha;
  a.u = u.data_ptr();
  a.x = kc::dataOrNull(x);
  a.weight_c = wc.data_ptr();
  a.bias = bias.data_ptr();
  a.c0 = kc::dataOrNull(c0);
  a.mask_c = kc::dataOrNull(mask_c);
  a.mask_pad = pad;
  a.h = res.h.data_ptr();
  a.c = res.c.data_ptr();
  a.last_c = res.last_c.data_ptr();
  kc::launchSruForward(a, kc::currentStream());
  return res;
}

SruBackwardResult sruRecurrenceCudaBackward(const Tensor& grad_h_in, const Tensor& grad_last_c_in,
                                            const Tensor& u_in, const Tensor& x_in,
                                            const Tensor& wc_in, const Tensor& bias_in,
                                            const Tensor& c0_in, const Tensor& c_in,
                                            const Tensor& mask_c_in, const Tensor& mask_pad,
                                            const SruRecurrenceOptions& opt) {
  checkCudaInputs(u_in, x_in, wc_in, bias_in, c0_in, mask_c_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), wc = wc_in.contiguous(), bias = bias_in.contiguous();
  const Tensor x = opt.skip == SruSkip::ScaledInput ? x_in.contiguous() : Tensor();
  const Tensor c0 = kc::contiguousOrUndefined(c0_in);
  const Tensor mask_c = kc::contiguousOrUndefined(mask_c_in);
  const Tensor c = c_in.contiguous();
  const Tensor grad_h = kc::contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = kc::contiguousOrUndefined(grad_last_c_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::SruCudaGeometry g = geometryOf(u, opt);
  const int64_t L = g.length, B = g.batch, out = g.outputSize();
  auto sameAsU = [&](const Tensor& t, const char* name, c10::IntArrayRef want) {
    if (!t.defined()) return;
    TORCH_CHECK(t.scalar_type() == u.scalar_type() && t.device() == u.device(), kName,
                " backward: ", name, " is ", t.scalar_type(), " on ", t.device(), ", U is ",
                u.scalar_type(), " on ", u.device());
    TORCH_CHECK(t.sizes() == want, kName, " backward: ", name, " has shape ", t.sizes(),
                ", expected ", want);
  };
  sameAsU(c, "saved c", {L, B, out});
  sameAsU(grad_h, "grad of h", {L, B, out});
  sameAsU(grad_last_c, "grad of last c", {B, out});

  SruBackwardResult res;
  res.grad_u = at::empty_like(u);  // the kernel writes every element, pad steps included
  res.grad_x = opt.skip == SruSkip::ScaledInput ? at::empty_like(x) : Tensor();
  res.grad_c0 = at::empty({B, out}, u.options());
  const auto acc = u.options().dtype(kc::accumulatorTypeOf(u.scalar_type()));
  Tensor column_grads = at::empty({4, B, out}, acc);
  Tensor param_grads = at::empty({4, out}, acc);

  kc::SruCudaBackwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.alpha = opt.alpha;
  a.u = u.data_ptr();
  a.x = kc::dataOrNull(x);
  a.weight_c = wc.data_ptr();
  a.bias = bias.data_ptr();
  a.c0 = kc::dataOrNull(c0);
  a.mask_c = kc::dataOrNull(mask_c);
  a.mask_pad = pad;
  a.c = c.data_ptr();
  a.grad_h = kc::dataOrNull(grad_h);
  a.grad_last_c = kc::dataOrNull(grad_last_c);
  a.grad_u = res.grad_u.data_ptr();
  a.grad_x = res.grad_x.defined() ? res.grad_x.data_ptr() : nullptr;
  a.grad_c0 = res.grad_c0.data_ptr();
  a.column_grads = column_grads.data_ptr();
  a.param_grads = param_grads.data_ptr();
  kc::launchSruBackward(a, kc::currentStream());

  // Rows of param_grads: d v_f, d v_r, d b_f, d b_r; weight_c and bias are [f | r].
  const Tensor param = param_grads.to(u.scalar_type());
  res.grad_weight_c = param.slice(0, 0, 2).reshape({2 * out});
  res.grad_bias = param.slice(0, 2, 4).reshape({2 * out});
  return res;
}

}  // namespace recurlab::kernels
