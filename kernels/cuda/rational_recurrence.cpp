// Torch glue of the rational recurrence CUDA kernels (kernels/cuda/rational_recurrence.cu):
// checks, device guard, current stream, and allocation (the op and its one autograd Function:
// kernels/*.cpp). Built only with a CUDA-enabled Torch.
#include "kernels/cuda/rational_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/rational_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

static_assert(static_cast<int>(kc::RationalCudaPattern::B) ==
                      static_cast<int>(RationalPattern::B) &&
                  static_cast<int>(kc::RationalCudaPattern::C) ==
                      static_cast<int>(RationalPattern::C) &&
                  static_cast<int>(kc::RationalCudaPattern::F) ==
                      static_cast<int>(RationalPattern::F) &&
                  static_cast<int>(kc::CudaSemiring::PlusTimes) ==
                      static_cast<int>(Semiring::PlusTimes) &&
                  static_cast<int>(kc::CudaSemiring::MaxPlus) ==
                      static_cast<int>(Semiring::MaxPlus),
              "the CUDA pattern/semiring tags must mirror the CPU ones");

constexpr const char* kName = "rational recurrence";

kc::RationalCudaGeometry geometryOf(const Tensor& u, const RationalRecurrenceOptions& opt) {
  kc::RationalCudaGeometry g;
  g.length = u.size(0);
  g.batch = u.size(1);
  g.hidden_size = opt.hidden_size;
  g.pattern = static_cast<kc::RationalCudaPattern>(static_cast<int>(opt.pattern));
  g.semiring = static_cast<kc::CudaSemiring>(static_cast<int>(opt.semiring));
  g.output_gate = opt.output_gate;
  return g;
}

}  // namespace

void checkRationalRecurrenceCudaInputs(const Tensor& u, const Tensor& weight, const Tensor& c0,
                                       const Tensor& mask_pad,
                                       const RationalRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  TORCH_CHECK(opt.pattern == RationalPattern::B || opt.pattern == RationalPattern::C ||
                  opt.pattern == RationalPattern::F,
              kName, ": unknown pattern ", static_cast<int64_t>(opt.pattern),
              " (expected B = 0, C = 1 or F = 2)");
  TORCH_CHECK(opt.semiring == Semiring::PlusTimes || opt.semiring == Semiring::MaxPlus, kName,
              ": unknown semiring ", static_cast<int64_t>(opt.semiring),
              " (expected plus-times = 0 or max-plus = 1)");
  const int64_t d = opt.hidden_size;
  kc::checkCudaU(kName, u, d * opt.numMatrices(),
                 opt.pattern == RationalPattern::B ? "[z, f, (o)] per unit for pattern B"
                                                   : "[z1, z2, f1, f2, (o)] per unit for C/F");
  const int64_t B = u.size(1);
  if (opt.pattern == RationalPattern::F) {
    TORCH_CHECK(weight.defined(), kName,
                ": pattern F needs weight (3·d) = [b_r | b_p1 | b_p2], got none");
    kc::checkCudaLike(kName, u, weight, "weight [b_r | b_p1 | b_p2]", {3 * d});
  } else {
    TORCH_CHECK(!weight.defined(), kName,
                ": only pattern F takes a weight vector; got one of shape ", weight.sizes());
  }
  if (c0.defined())
    kc::checkCudaLike(kName, u, c0, "c0 ([c1 | c2] states)", {B, opt.numStates() * d});
  kc::checkCudaPadMask(kName, u, mask_pad);
}

RationalForwardResult rationalRecurrenceCudaForward(const Tensor& u_in, const Tensor& weight_in,
                                                    const Tensor& c0_in, const Tensor& mask_pad,
                                                    const RationalRecurrenceOptions& opt) {
  checkRationalRecurrenceCudaInputs(u_in, weight_in, c0_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), weight = kc::contiguousOrUndefined(weight_in);
  const Tensor c0 = kc::contiguousOrUndefined(c0_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::RationalCudaGeometry g = geometryOf(u, opt);
  const int64_t L = g.length, B = g.batch, d = g.hidden_size, S = g.numStates();
  RationalForwardResult res;
  res.h = at::empty({L, B, d}, u.options());
  res.c = at::empty({L, B, S * d}, u.options());
  res.last_c = at::empty({B, S * d}, u.options());

  kc::RationalCudaForwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.u = u.data_ptr();
  a.weight = kc::dataOrNull(weight);
  a.c0 = kc::dataOrNull(c0);
  a.mask_pad = pad;
  a.h = res.h.data_ptr();
  a.c = res.c.data_ptr();
  a.last_c = res.last_c.data_ptr();
  kc::launchRationalRecurrenceForward(a, kc::currentStream());
  return res;
}

RationalBackwardResult rationalRecurrenceCudaBackward(
    const Tensor& grad_h_in, const Tensor& grad_last_c_in, const Tensor& u_in,
    const Tensor& weight_in, const Tensor& c0_in, const Tensor& c_in, const Tensor& mask_pad,
    const RationalRecurrenceOptions& opt) {
  checkRationalRecurrenceCudaInputs(u_in, weight_in, c0_in, mask_pad, opt);
  const c10::cuda::CUDAGuard device_guard(u_in.device());
  const Tensor u = u_in.contiguous(), weight = kc::contiguousOrUndefined(weight_in);
  const Tensor c0 = kc::contiguousOrUndefined(c0_in), c = c_in.contiguous();
  const Tensor grad_h = kc::contiguousOrUndefined(grad_h_in);
  const Tensor grad_last_c = kc::contiguousOrUndefined(grad_last_c_in);
  Tensor pad_storage;
  const uint8_t* pad = kc::padMaskBytes(mask_pad, u, kName, pad_storage);
  const kc::RationalCudaGeometry g = geometryOf(u, opt);
  const int64_t L = g.length, B = g.batch, d = g.hidden_size, S = g.numStates();
  constexpr const char* kBackward = "rational recurrence backward";
  kc::checkCudaLike(kBackward, u, c, "saved c", {L, B, S * d});
  if (grad_h.defined()) kc::checkCudaLike(kBackward, u, grad_h, "grad of h", {L, B, d});
  if (grad_last_c.defined())
    kc::checkCudaLike(kBackward, u, grad_last_c, "grad of last c", {B, S * d});
  RationalBackwardResult res;
  res.grad_u = at::empty_like(u);  // the kernel writes every element, pad steps included
  res.grad_c0 = at::empty({B, S * d}, u.options());
  Tensor column_grads, param_grads;
  if (g.hasWeight()) {
    const auto acc = u.options().dtype(kc::accumulatorTypeOf(u.scalar_type()));
    column_grads = at::empty({3, B, d}, acc);
    param_grads = at::empty({3, d}, acc);
  }

  kc::RationalCudaBackwardArgs a;
  a.geometry = g;
  a.scalar = kc::cudaScalarOf(u, kName);
  a.u = u.data_ptr();
  a.weight = kc::dataOrNull(weight);
  a.c0 = kc::dataOrNull(c0);
  a.mask_pad = pad;
  a.c = c.data_ptr();
  a.grad_h = kc::dataOrNull(grad_h);
  a.grad_last_c = kc::dataOrNull(grad_last_c);
  a.grad_u = res.grad_u.data_ptr();
  a.grad_c0 = res.grad_c0.data_ptr();
  a.column_grads = column_grads.defined() ? column_grads.data_ptr() : nullptr;
  a.param_grads = param_grads.defined() ? param_grads.data_ptr() : nullptr;
  kc::launchRationalRecurrenceBackward(a, kc::currentStream());
  // Rows of param_grads: d b_r, d b_p1, d b_p2, i.e. the layout of weight.
  if (g.hasWeight()) res.grad_weight = param_grads.reshape({3 * d}).to(u.scalar_type());
  return res;
}

}  // namespace recurlab::kernels
