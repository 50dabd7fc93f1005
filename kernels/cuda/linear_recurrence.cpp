// Torch glue of the linear recurrence CUDA kernels (kernels/cuda/linear_recurrence.cu): device
// guard, current stream and allocation (outputs and the chunked scan's workspace), for the
// tensors the op (kernels/linear_recurrence.cpp) has checked. Built only with a CUDA-enabled
// Torch.
#include "kernels/linear_recurrence.h"

#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/cuda/linear_recurrence_launch.h"
#include "kernels/cuda/torch_glue.h"

namespace recurlab::kernels {
namespace {

using at::Tensor;
namespace kc = recurlab::kernels::cuda;

// The fields the forward's and the backward's launch arguments share. Returns the chunked
// scan's workspace (undefined for the walk), which must outlive the launch.
template <typename Args>
Tensor setSharedArgs(Args& args, const detail::LinearRecurrenceTensors& in,
                     const LinearRecurrenceOptions& opt) {
  kc::LinearRecurrenceCudaGeometry& g = args.geometry;
  g.length = in.a.size(0);
  g.batch = in.a.size(1);
  g.hidden_size = opt.hidden_size;
  g.bidirectional = opt.bidirectional;
  g.chunk_length = opt.chunk_length;
  args.scalar = kc::cudaScalarOf(in.a);
  args.a = in.a.data_ptr();
  args.h0 = kc::dataOrNull(in.h0);
  args.mask_pad = detail::padBytes(in.mask_pad);
  Tensor workspace;
  if (g.workspaceElements() > 0)
    workspace = kc::emptyAccumulators({g.workspaceElements()}, in.a);
  args.workspace = kc::dataOrNull(workspace);
  return workspace;
}

}  // namespace

LinearRecurrenceForwardResult detail::linearRecurrenceCudaForward(
    const detail::LinearRecurrenceTensors& in, const LinearRecurrenceOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.a.device());
  LinearRecurrenceForwardResult res;
  res.h = at::empty(in.a.sizes(), in.a.options());
  res.last_h = at::empty({in.a.size(1), opt.outputSize()}, in.a.options());
  kc::LinearRecurrenceCudaForwardArgs a;
  const Tensor workspace = setSharedArgs(a, in, opt);
  a.b = in.b.data_ptr();
  a.h = res.h.data_ptr();
  a.last_h = res.last_h.data_ptr();
  kc::launchLinearRecurrenceForward(a, kc::currentStream());
  return res;
}

LinearRecurrenceBackwardResult detail::linearRecurrenceCudaBackward(
    const detail::BackwardTensors& grads, const detail::LinearRecurrenceTensors& in,
    const LinearRecurrenceOptions& opt) {
  const c10::cuda::CUDAGuard device_guard(in.a.device());
  LinearRecurrenceBackwardResult res;
  res.grad_a = at::empty(in.a.sizes(), in.a.options());
  res.grad_b = at::empty(in.a.sizes(), in.a.options());
  res.grad_h0 = at::empty({in.a.size(1), opt.outputSize()}, in.a.options());
  kc::LinearRecurrenceCudaBackwardArgs a;
  const Tensor workspace = setSharedArgs(a, in, opt);
  a.h = grads.c.data_ptr();
  a.grad_h = kc::dataOrNull(grads.grad_h);
  a.grad_last_h = kc::dataOrNull(grads.grad_last_c);
  a.grad_a = res.grad_a.data_ptr();
  a.grad_b = res.grad_b.data_ptr();
  a.grad_h0 = res.grad_h0.data_ptr();
  kc::launchLinearRecurrenceBackward(a, kc::currentStream());
  return res;
}

}  // namespace recurlab::kernels
