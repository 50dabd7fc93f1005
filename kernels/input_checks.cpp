#include "kernels/input_checks.h"

#include <c10/util/Exception.h>

#include <string>

namespace recurlab::kernels::detail {
namespace {

thread_local int64_t checks_run = 0;

bool isCudaHalf(const at::Tensor& u) {
  return u.is_cuda() && (u.scalar_type() == at::kHalf || u.scalar_type() == at::kBFloat16);
}

void checkDevice(const char* op, const at::Tensor& u) {
  if (u.is_cpu()) return;
#ifdef RECURLAB_WITH_CUDA
  if (u.is_cuda()) return;
#else
  TORCH_CHECK(!u.is_cuda(), op, ": U is on ", u.device(),
              " but recurlab was built without its CUDA kernels (configure against a "
              "CUDA-enabled LibTorch, e.g. scripts/gpu-check.sh)");
#endif
  TORCH_CHECK(false, op, ": no kernel for tensors on ", u.device(), " (CPU or CUDA only)");
}

void checkSameTypeAndDevice(const char* op, const at::Tensor& u, const at::Tensor& t,
                            const char* name) {
  TORCH_CHECK(t.scalar_type() == u.scalar_type(), op, ": ", name, " has dtype ",
              t.scalar_type(), " but U has ", u.scalar_type());
  TORCH_CHECK(t.device() == u.device(), op, ": ", name, " is on ", t.device(), " but U is on ",
              u.device(), " (every tensor of one call must be on one device)");
}

}  // namespace

void checkU(const char* op, const at::Tensor& u, int64_t columns, const std::string& layout) {
  ++checks_run;
  TORCH_CHECK(u.defined(), op, ": U is undefined");
  checkDevice(op, u);
  TORCH_CHECK(u.dim() == 3, op, ": U must be (length, batch, columns), got shape ", u.sizes());
  TORCH_CHECK(u.scalar_type() == at::kFloat || u.scalar_type() == at::kDouble || isCudaHalf(u),
              op, ": U must be float32 or float64 (float16 and bfloat16 on CUDA only), got ",
              u.scalar_type(), " on ", u.device());
  TORCH_CHECK(u.size(2) == columns, op, ": U has ", u.size(2), " columns, expected ", columns,
              " (", layout, ")");
}

void checkLikeU(const char* op, const at::Tensor& u, const at::Tensor& t, const char* name,
                c10::IntArrayRef shape) {
  TORCH_CHECK(t.defined(), op, ": ", name, " is required, got none (expected shape ", shape,
              ")");
  checkSameTypeAndDevice(op, u, t, name);
  TORCH_CHECK(t.sizes() == shape, op, ": ", name, " has shape ", t.sizes(), ", expected ",
              shape);
}

void checkOptionalLikeU(const char* op, const at::Tensor& u, const at::Tensor& t,
                        const char* name, c10::IntArrayRef shape) {
  if (t.defined()) checkLikeU(op, u, t, name, shape);
}

void checkPadMask(const char* op, const at::Tensor& u, const at::Tensor& mask_pad) {
  if (!mask_pad.defined()) return;
  TORCH_CHECK(mask_pad.scalar_type() == at::kBool || mask_pad.scalar_type() == at::kByte, op,
              ": mask_pad must be bool or uint8 (nonzero = pad), got ", mask_pad.scalar_type());
  TORCH_CHECK(mask_pad.device() == u.device(), op, ": mask_pad is on ", mask_pad.device(),
              " but U is on ", u.device(), " (every tensor of one call must be on one device)");
  TORCH_CHECK(mask_pad.sizes() == u.sizes().slice(0, 2), op,
              ": mask_pad (nonzero = pad) has shape ", mask_pad.sizes(), ", expected ",
              u.sizes().slice(0, 2), " (length, batch)");
}

void checkBackwardTensors(const char* op, const at::Tensor& u, const at::Tensor& grad_h,
                          const at::Tensor& grad_last_c, const at::Tensor& c, int64_t h_size,
                          int64_t state_size) {
  const std::string backward = std::string(op) + " backward";
  const int64_t L = u.size(0), B = u.size(1);
  checkLikeU(backward.c_str(), u, c, "saved c", {L, B, state_size});
  checkOptionalLikeU(backward.c_str(), u, grad_h, "grad of h", {L, B, h_size});
  checkOptionalLikeU(backward.c_str(), u, grad_last_c, "grad of last c", {B, state_size});
}

int64_t inputChecksRun() { return checks_run; }

}  // namespace recurlab::kernels::detail
