// Torch glue of the n-gram recurrence CUDA kernels (kernels/cuda/ngram_recurrence.cu): device
// guard, current stream and allocation, for the tensors the op (kernels/ngram_recurrence.cpp)
// has checked. Built only with a CUDA-enabled Torch.
#include "kernels/ngram_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/ngram_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"
#include "kernels/kernel_results.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

static_assert(kc::kNgramMaxOrder == kMaxNgramOrder, "the CUDA kernels' largest n must be the op's");

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

NgramForwardResult detail::ngramRecurrenceCudaForward(const detail::NgramRecurrenceTensors& in,
                                                      const NgramRecurrenceOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.u.device());
  auto res = detail::emptyForwardResult<NgramForwardResult>(in.u, opt.hidden_size,
                                                            opt.n * opt.hidden_size);
  kc::NgramCudaForwardArgs a;
  kc::setForwardArgs(a, in, res);
  a.geometry = geometryOf(in.u, opt);
  kc::launchNgramRecurrenceForward(a, kc::currentStream());
  return res;
}

NgramBackwardResult detail::ngramRecurrenceCudaBackward(const detail::BackwardTensors& grads,
                                                        const detail::NgramRecurrenceTensors& in,
                                                        const NgramRecurrenceOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.u.device());
  // The kernel writes every element of grad_u, pad steps included.
  auto res = detail::emptyBackwardResult<NgramBackwardResult>(in.u, opt.n * opt.hidden_size);
  kc::NgramCudaBackwardArgs a;
  kc::setBackwardArgs(a, grads, in, res);
  a.geometry = geometryOf(in.u, opt);
  kc::launchNgramRecurrenceBackward(a, kc::currentStream());
  return res;
}

}  // namespace recurlab::kernels
