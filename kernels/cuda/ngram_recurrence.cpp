// Torch glue of the n-gram recurrence CUDA kernels (kernels/cuda/ngram_recurrence.cu): checks,
// device guard, current stream, and allocation (the op and its one autograd Function:
// kernels/*.cpp). Built only with a CUDA-enabled Torch.
#include "kernels/cuda/ngram_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/ngram_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

constexpr const char* kName = "n-gram recurrence";

kc::NgramCudaGeometry geometryOf(const Tensor& u, const NgramRecurrenceOptions& opt) {
  kc::NgramCudaGeometry g;
  g.length = u.size(0);
  g.batch = u.size(1);
  g.hidden_size = opt.hidden_size;
  g.n = opt.n;
  g.output_gate = opt.output_gate;
  return g;
}

}  // namespace

void checkNgramRecurrenceCudaInputs(const Tensor& u, const Tensor& c0, const Tensor& mask_pad,
                                    const NgramRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  TORCH_CHECK(opt.n >= 1 && opt.n <= kc::kNgramMaxOrder, kName, ": n must be in [1, ",
              kc::kNgramMaxOrder, "], got ", opt.n);
  const int64_t d = opt.hidden_size;
  kc::checkCudaU(kName, u, d * opt.numMatrices(), "[z1, ..., zn, f, (o)] per unit");
  if (c0.defined())
    kc::checkCudaLike(kName, u, c0, "c0 ([c^(1) | ... | c^(n)] states)", {u.size(1), opt.n * d});
  kc::checkCudaPadMask(kName, u, mask_pad);
}

NgramForwardResult ngramRecurrenceCudaForward(const Tensor& u_in, const Tensor& c0_in,
                                              const Tensor& mask_pad,
                                              const NgramRecurrenceOptions& opt) {
  checkNgramRecurrenceCudaInputs(u_in, c0_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), c0 = kc::contiguousOrUndefined(c0_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::NgramCudaGeometry g = geometryOf(u, opt);
  const int64_t L = g.length, B = g.batch, d = g.hidden_size, n = g.n;
  NgramForwardResult res;
  res.h = at::empty({L, B, d}, u.options());
  res.c = at::empty({L, B, n * d}, u.options());
  res.last_c = at::empty({B, n * d}, u.options());

  kc::NgramCudaForwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.u = u.data_ptr();
  a.c0 = kc::dataOrNull(c0);
  a.mask_pad = pad;
  a.h = res.h.data_ptr();
  a.c = res.c.data_ptr();
  a.last_c = res.last_c.data_ptr();
  kc::launchNgramRecurrenceForward(a, kc::currentStream());
  return res;
}

NgramBackwardResult ngramRecurrenceCudaBackward(const Tensor& grad_h_in,
                                                const Tensor& grad_last_c_in, const Tensor& u_in,
                                                const Tensor& c0_in, const Tensor& c_in,
                                                const Tensor& mask_pad,
                                                const NgramRecurrenceOptions& opt) {
  checkNgramRecurrenceCudaInputs(u_in, c0_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), c0 = kc::contiguousOrUndefined(c0_in);
  const Tensor c = c_in.contiguous();
  const Tensor grad_h = kc::contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = kc::contiguousOrUndefined(grad_last_c_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::NgramCudaGeometry g = geometryOf(u, opt);
  const int64_t L = g.length, B = g.batch, d = g.hidden_size, n = g.n;
  constexpr const char* kBackward = "n-gram recurrence backward";
  kc::checkCudaLike(kBackward, u, c, "saved c", {L, B, n * d});
  if (grad_h.defined()) kc::checkCudaLike(kBackward, u, grad_h, "grad of h", {L, B, d});
  if (grad_last_c.defined())
    kc::checkCudaLike(kBackward, u, grad_last_c, "grad of last c", {B, n * d});
  NgramBackwardResult res;
  res.grad_u = at::empty_like(u);  // the kernel writes every element, pad steps included
  res.grad_c0 = at::empty({B, n * d}, u.options());

  kc::NgramCudaBackwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.u = u.data_ptr();
  a.c0 = kc::dataOrNull(c0);
  a.mask_pad = pad;
  a.c = c.data_ptr();
  a.grad_h = kc::dataOrNull(grad_h);
  a.grad_last_c = kc::dataOrNull(grad_last_c);
  a.grad_u = res.grad_u.data_ptr();
  a.grad_c0 = res.grad_c0.data_ptr();
  kc::launchNgramRecurrenceBackward(a, kc::currentStream());
  return res;
}

}  // namespace recurlab::kernels
