// Torch glue of the SRU CUDA kernels (kernels/cuda/sru_recurrence.cu): device guard, current
// stream and allocation, for the tensors the op (kernels/sru_recurrence.cpp) has checked. Built
// only with a CUDA-enabled Torch.
#include "kernels/sru_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/sru_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"
#include "kernels/kernel_results.h"

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

SruForwardResult detail::sruRecurrenceCudaForward(const detail::SruTensors& in,
                                                  const SruRecurrenceOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.u.device());
  const int64_t out = opt.outputSize();
  auto res = detail::emptyForwardResult<SruForwardResult>(in.u, out, out);
  kc::SruCudaForwardArgs a;
  kc::setForwardArgs(a, in, res);
  a.geometry = geometryOf(in.u, opt);
  a.alpha = opt.alpha;
  a.x = kc::dataOrNull(in.x);
  a.weight_c = in.weight_c.data_ptr();
  a.bias = in.bias.data_ptr();
  a.mask_c = kc::dataOrNull(in.mask_c);
  kc::launchSruForward(a, kc::currentStream());
  return res;
}

SruBackwardResult detail::sruRecurrenceCudaBackward(const detail::BackwardTensors& grads,
                                                    const detail::SruTensors& in,
                                                    const SruRecurrenceOptions& opt) {
  const Tensor& u = in.u;
  const c10::cuda::CUDAGuard device_guard(u.device());
  const int64_t B = u.size(1), out = opt.outputSize();
  auto res = detail::emptyBackwardResult<SruBackwardResult>(u, out);
  res.grad_x = opt.skip == SruSkip::ScaledInput ? at::empty_like(in.x) : Tensor();
  Tensor column_grads = kc::emptyAccumulators({4, B, out}, u);
  Tensor param_grads = kc::emptyAccumulators({4, out}, u);
  kc::SruCudaBackwardArgs a;
  kc::setBackwardArgs(a, grads, in, res);
  a.geometry = geometryOf(u, opt);
  a.alpha = opt.alpha;
  a.x = kc::dataOrNull(in.x);
  a.weight_c = in.weight_c.data_ptr();
  a.bias = in.bias.data_ptr();
  a.mask_c = kc::dataOrNull(in.mask_c);
  a.grad_x = kc::dataOrNull(res.grad_x);
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
