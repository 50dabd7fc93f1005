#include "kernels/mixed_precision.h"

#include "common/runtime/torch_build.h"

namespace recurlab::kernels::detail {

std::optional<at::ScalarType> autocastComputeType(const at::Tensor& u,
                                                  std::initializer_list<at::Tensor> others) {
  const bool cuda = u.is_cuda();
  if (!autocastEnabled(u.device().type())) return std::nullopt;
  const at::ScalarType u_type = u.scalar_type();
  bool mixed = false;
  for (const auto& t : others)
    if (t.defined() && t.is_floating_point() && t.scalar_type() != u_type) mixed = true;
  const bool reduced = u_type == at::kHalf || u_type == at::kBFloat16;
  if (cuda) return mixed ? std::optional<at::ScalarType>(u_type) : std::nullopt;
  if (!mixed && !reduced) return std::nullopt;
  return at::kFloat;
}

std::optional<at::ScalarType> upcastComputeType(const at::Tensor& u,
                                                std::initializer_list<at::Tensor> others) {
  if (const auto type = autocastComputeType(u, others)) return type;
  const bool reduced = u.scalar_type() == at::kHalf || u.scalar_type() == at::kBFloat16;
  if (u.is_cpu() && reduced) return at::kFloat;
  return std::nullopt;
}

at::Tensor castFloating(const at::Tensor& t, at::ScalarType type) {
  return t.defined() && t.is_floating_point() ? t.to(type) : t;
}

std::vector<at::Tensor> castOutputs(std::vector<at::Tensor> outputs, at::ScalarType type) {
  for (auto& o : outputs)
    if (o.defined() && o.is_floating_point()) o = o.to(type);
  return outputs;
}

}  // namespace recurlab::kernels::detail
