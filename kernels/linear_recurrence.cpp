// The elementwise linear recurrence on any device: its argument checks, the shape rule that
// picks a sequential walk or a chunked scan, the raw kernels dispatched by a's device, and the
// one torch::autograd::Function over them.
#include "kernels/linear_recurrence.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <algorithm>
#include <string>

#include "kernels/device_dispatch.h"
#include "kernels/input_checks.h"
#include "kernels/mixed_precision.h"

namespace recurlab::kernels {
namespace {

using torch::Tensor;
constexpr const char* kName = "linear recurrence";

// The shape rule's constants (linear_recurrence.h says why each has its value).
constexpr int64_t kUnitsPerCpuRun = 64;  // kernels/cpu/column_blocks.h's kBlock
constexpr int64_t kCpuRunsForCores = 16;
constexpr int64_t kCpuScanWorkItems = 64;
constexpr int64_t kCudaColumnsForDevice = 16384;
constexpr int64_t kCudaScanThreads = 65536;
constexpr int64_t kMinScanLength = 256;
constexpr int64_t kMinChunkLength = 32;

int64_t ceilDiv(int64_t n, int64_t k) { return (n + k - 1) / k; }

void checkInputs(const Tensor& a, const Tensor& b, const Tensor& h0, const Tensor& mask_pad,
                 const LinearRecurrenceOptions& opt) {
  TORCH_CHECK(opt.hidden_size > 0, kName, ": hidden size must be positive, got ",
              opt.hidden_size);
  TORCH_CHECK(opt.chunk_length >= kChunkLengthByShape, kName,
              ": chunk_length must be -1 (by shape), 0 (sequential) or positive, got ",
              opt.chunk_length);
  const int64_t out = opt.outputSize();
  detail::checkU(kName, a, out,
                 "dirs·d for d = " + std::to_string(opt.hidden_size) +
                     (opt.bidirectional ? ", 2 directions" : ", 1 direction"));
  const int64_t L = a.size(0), B = a.size(1);
  if (b.defined()) detail::checkLikeU(kName, a, b, "b", {L, B, out});
  detail::checkOptionalLikeU(kName, a, h0, "h0", {B, out});
  detail::checkPadMask(kName, a, mask_pad);
}

// opt with chunk_length resolved for a's shape and device.
LinearRecurrenceOptions resolved(const Tensor& a, LinearRecurrenceOptions opt) {
  if (opt.chunk_length == kChunkLengthByShape)
    opt.chunk_length = linearRecurrenceChunkLength(a.size(0), a.size(1), opt, a.is_cuda());
  return opt;
}

detail::LinearRecurrenceTensors contiguousTensors(const Tensor& a, const Tensor& b,
                                                  const Tensor& h0, const Tensor& mask_pad) {
  using detail::contiguousOrUndefined;
  return {a.contiguous(), contiguousOrUndefined(b), contiguousOrUndefined(h0),
          contiguousOrUndefined(mask_pad)};
}

LinearRecurrenceForwardResult forwardOnDevice(const detail::LinearRecurrenceTensors& in,
                                              const LinearRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.a, [&] { return detail::linearRecurrenceCpuForward(in, opt); },
      [&] { return detail::linearRecurrenceCudaForward(in, opt); });
}

LinearRecurrenceBackwardResult backwardOnDevice(const detail::BackwardTensors& grads,
                                                const detail::LinearRecurrenceTensors& in,
                                                const LinearRecurrenceOptions& opt) {
  return detail::dispatchByDevice(
      in.a, [&] { return detail::linearRecurrenceCpuBackward(grads, in, opt); },
      [&] { return detail::linearRecurrenceCudaBackward(grads, in, opt); });
}

}  // namespace

int64_t linearRecurrenceChunkLength(int64_t length, int64_t batch,
                                    const LinearRecurrenceOptions& opt, bool cuda) {
  if (length < kMinScanLength) return kSequentialWalk;
  if (cuda) {
    const int64_t columns = batch * opt.outputSize();
    if (columns >= kCudaColumnsForDevice || columns == 0) return kSequentialWalk;
    const int64_t chunks = ceilDiv(kCudaScanThreads, columns);
    return std::max(kMinChunkLength, ceilDiv(length, chunks));
  }
  const int64_t runs = batch * opt.directions() * ceilDiv(opt.hidden_size, kUnitsPerCpuRun);
  if (runs >= kCpuRunsForCores || runs == 0) return kSequentialWalk;
  const int64_t chunks = ceilDiv(kCpuScanWorkItems, runs);
  return std::max(kMinChunkLength, ceilDiv(length, chunks));
}

LinearRecurrenceForwardResult linearRecurrenceForward(const Tensor& a, const Tensor& b,
                                                      const Tensor& h0, const Tensor& mask_pad,
                                                      const LinearRecurrenceOptions& opt) {
  TORCH_CHECK(b.defined(), kName, ": b is required, got none");
  checkInputs(a, b, h0, mask_pad, opt);
  return forwardOnDevice(contiguousTensors(a, b, h0, mask_pad), resolved(a, opt));
}

LinearRecurrenceBackwardResult linearRecurrenceBackward(
    const Tensor& grad_h, const Tensor& grad_last_h, const Tensor& a, const Tensor& h0,
    const Tensor& h, const Tensor& mask_pad, const LinearRecurrenceOptions& opt) {
  checkInputs(a, Tensor(), h0, mask_pad, opt);
  detail::checkBackwardTensors(kName, a, grad_h, grad_last_h, h, opt.outputSize(),
                               opt.outputSize());
  return backwardOnDevice(detail::contiguousBackward(grad_h, grad_last_h, h),
                          contiguousTensors(a, Tensor(), h0, mask_pad), resolved(a, opt));
}

namespace {

// Checked once by linearRecurrence before apply(); its forward and backward trust their
// tensors (autograd hands backward gradients of the outputs' shapes, dtypes and devices).
class LinearRecurrenceFunction : public torch::autograd::Function<LinearRecurrenceFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, Tensor a,
                                                Tensor b, Tensor h0, Tensor mask_pad,
                                                int64_t hidden_size, bool bidirectional,
                                                int64_t chunk_length) {
    // Named for profilers (the LM report's kernel-vs-matmul share of step time).
    RECORD_FUNCTION("recurlab::linear_recurrence", std::vector<c10::IValue>());
    h0 = detail::emptyAsUndefined(h0);
    mask_pad = detail::emptyAsUndefined(mask_pad);
    const LinearRecurrenceOptions opt{hidden_size, bidirectional, chunk_length};
    LinearRecurrenceForwardResult res =
        forwardOnDevice(contiguousTensors(a, b, h0, mask_pad), opt);
    // The backward reads a, h0 and every state; b is not needed.
    ctx->save_for_backward({a, h0, res.h, mask_pad});
    ctx->saved_data["hidden_size"] = hidden_size;
    ctx->saved_data["bidirectional"] = bidirectional;
    ctx->saved_data["chunk_length"] = chunk_length;
    ctx->saved_data["h0_defined"] = h0.defined();
    return {res.h, res.last_h};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    RECORD_FUNCTION("recurlab::linear_recurrence_backward", std::vector<c10::IValue>());
    const auto s = ctx->get_saved_variables();
    const LinearRecurrenceOptions opt{ctx->saved_data["hidden_size"].toInt(),
                                      ctx->saved_data["bidirectional"].toBool(),
                                      ctx->saved_data["chunk_length"].toInt()};
    // s: a, h0, h, mask_pad (undefined ones saved as undefined).
    LinearRecurrenceBackwardResult g =
        backwardOnDevice(detail::contiguousBackward(grads[0], grads[1], s[2]),
                         contiguousTensors(s[0], Tensor(), s[1], s[3]), opt);
    const bool h0_defined = ctx->saved_data["h0_defined"].toBool();
    return {g.grad_a,  g.grad_b,  h0_defined ? g.grad_h0 : Tensor(), Tensor(),
            Tensor(), Tensor(), Tensor()};
  }
};

}  // namespace

std::vector<Tensor> linearRecurrence(const Tensor& a, const Tensor& b, const Tensor& h0,
                                     const Tensor& mask_pad, const LinearRecurrenceOptions& opt) {
  if (const auto type = detail::upcastComputeType(a, {b, h0})) {
    using detail::castFloating;
    return detail::castOutputs(linearRecurrence(castFloating(a, *type), castFloating(b, *type),
                                                castFloating(h0, *type), mask_pad, opt),
                               a.scalar_type());
  }
  TORCH_CHECK(b.defined(), kName, ": b is required, got none");
  checkInputs(a, b, h0, mask_pad, opt);
  const LinearRecurrenceOptions run = resolved(a, opt);
  return LinearRecurrenceFunction::apply(
      a, b, detail::undefinedAsEmpty(h0, a),
      detail::undefinedAsEmpty(mask_pad, a).to(torch::kBool), run.hidden_size, run.bidirectional,
      run.chunk_length);
}

}  // namespace recurlab::kernels
