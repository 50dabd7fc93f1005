#include "kernels/cpu/column_blocks.h"

#include <torch/torch.h>

#include <sstream>
#include <string>

namespace recurlab::kernels::detail {
namespace {

std::string shapeOf(const at::Tensor& t) {
  std::ostringstream s;
  s << t.sizes();
  return s.str();
}

}  // namespace

void checkTimeMajorU(const char* kernel, const at::Tensor& u, int64_t columns,
                     const char* layout) {
  TORCH_CHECK(u.defined(), kernel, ": U is undefined");
  TORCH_CHECK(u.dim() == 3, kernel, ": U must be (length, batch, columns), got shape ",
              shapeOf(u));
  TORCH_CHECK(u.scalar_type() == torch::kFloat || u.scalar_type() == torch::kDouble, kernel,
              ": U must be float32 or float64 on the CPU kernel, got ", u.scalar_type());
  TORCH_CHECK(u.size(2) == columns, kernel, ": U has ", u.size(2), " columns, expected ",
              columns, " (", layout, ")");
}

void checkLike(const char* kernel, const at::Tensor& u, const at::Tensor& t, const char* name,
               std::vector<int64_t> shape) {
  TORCH_CHECK(t.scalar_type() == u.scalar_type(), kernel, ": ", name, " has dtype ",
              t.scalar_type(), " but U has ", u.scalar_type());
  TORCH_CHECK(t.device() == u.device(), kernel, ": ", name, " is on ", t.device(),
              " but U is on ", u.device());
  TORCH_CHECK(t.sizes() == c10::IntArrayRef(shape), kernel, ": ", name, " has shape ",
              shapeOf(t), ", expected ", c10::IntArrayRef(shape));
}

void checkPadMask(const char* kernel, const at::Tensor& mask_pad, int64_t L, int64_t B) {
  if (!mask_pad.defined()) return;
  TORCH_CHECK(mask_pad.scalar_type() == torch::kBool || mask_pad.scalar_type() == torch::kUInt8,
              kernel, ": mask_pad must be bool or uint8 (nonzero = pad), got ",
              mask_pad.scalar_type());
  TORCH_CHECK(mask_pad.sizes() == c10::IntArrayRef({L, B}), kernel,
              ": mask_pad (nonzero = pad) has shape ", shapeOf(mask_pad), ", expected [", L,
              ", ", B, "] (length, batch)");
}

at::Tensor contiguousOrUndefined(const at::Tensor& t) { return t.defined() ? t.contiguous() : t; }

at::Tensor padAsBytes(const at::Tensor& mask_pad) {
  return mask_pad.defined() ? mask_pad.to(torch::kUInt8).contiguous() : mask_pad;
}

}  // namespace recurlab::kernels::detail
