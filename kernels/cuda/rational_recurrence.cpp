// Torch glue of the rational recurrence CUDA kernels (kernels/cuda/rational_recurrence.cu):
// device guard, current stream and allocation, for the tensors the op
// (kernels/rational_recurrence.cpp) has checked. Built only with a CUDA-enabled Torch.
#include "kernels/rational_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/rational_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"
#include "kernels/kernel_results.h"

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

RationalForwardResult detail::rationalRecurrenceCudaForward(
    const detail::RationalRecurrenceTensors& in, const RationalRecurrenceOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.u.device());
  auto res = detail::emptyForwardResult<RationalForwardResult>(in.u, opt.hidden_size,
                                                               opt.numStates() * opt.hidden_size);
  kc::RationalCudaForwardArgs a;
  kc::setForwardArgs(a, in, res);
  a.geometry = geometryOf(in.u, opt);
  a.weight = kc::dataOrNull(in.weight);
  kc::launchRationalRecurrenceForward(a, kc::currentStream());
  return res;
}

RationalBackwardResult detail::rationalRecurrenceCudaBackward(
    const detail::BackwardTensors& grads, const detail::RationalRecurrenceTensors& in,
    const RationalRecurrenceOptions& opt) {
  const Tensor& u = in.u;
  const c10::cuda::CUDAGuard device_guard(u.device());
  const kc::RationalCudaGeometry g = geometryOf(u, opt);
  const int64_t d = g.hidden_size;
  // The kernel writes every element of grad_u, pad steps included.
  auto res = detail::emptyBackwardResult<RationalBackwardResult>(u, g.numStates() * d);
  Tensor column_grads, param_grads;
  if (g.hasWeight()) {
    column_grads = kc::emptyAccumulators({3, g.batch, d}, u);
    param_grads = kc::emptyAccumulators({3, d}, u);
  }
  kc::RationalCudaBackwardArgs a;
  kc::setBackwardArgs(a, grads, in, res);
  a.geometry = g;
  a.weight = kc::dataOrNull(in.weight);
  a.column_grads = kc::dataOrNull(column_grads);
  a.param_grads = kc::dataOrNull(param_grads);
  kc::launchRationalRecurrenceBackward(a, kc::currentStream());
  // Rows of param_grads: d b_r, d b_p1, d b_p2, i.e. the layout of weight.
  if (g.hasWeight()) res.grad_weight = param_grads.reshape({3 * d}).to(u.scalar_type());
  return res;
}

}  // namespace recurlab::kernels
