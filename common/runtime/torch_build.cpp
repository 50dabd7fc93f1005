#include "common/runtime/torch_build.h"

#include <ATen/Version.h>
#include <ATen/autocast_mode.h>
#include <c10/util/string_utils.h>

namespace recurlab {

std::string torchBlasLibrary() {
  const std::string config = at::show_config();
  const std::string key = "BLAS_INFO=";
  const auto at = config.find(key);
  if (at == std::string::npos) return "";
  const auto begin = at + key.size();
  const auto end = config.find_first_of(", \n", begin);
  return config.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string torchVersion() { return TORCH_VERSION; }

bool torchBuiltWithCuda() { return at::show_config().find("USE_CUDA=ON") != std::string::npos; }

#if TORCH_VERSION_MAJOR >= 2

bool autocastEnabled(c10::DeviceType device) { return at::autocast::is_autocast_enabled(device); }

void setAutocastEnabled(c10::DeviceType device, bool enabled) {
  at::autocast::set_autocast_enabled(device, enabled);
}

c10::ScalarType autocastDtype(c10::DeviceType device) {
  return at::autocast::get_autocast_dtype(device);
}

void setAutocastDtype(c10::DeviceType device, c10::ScalarType dtype) {
  at::autocast::set_autocast_dtype(device, dtype);
}

OptimizerStateKey optimizerStateKey(c10::TensorImpl* parameter) { return parameter; }

#else

bool autocastEnabled(c10::DeviceType device) {
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                         : at::autocast::is_cpu_enabled();
}

void setAutocastEnabled(c10::DeviceType device, bool enabled) {
  if (device == c10::DeviceType::CUDA)
    at::autocast::set_enabled(enabled);
  else
    at::autocast::set_cpu_enabled(enabled);
}

c10::ScalarType autocastDtype(c10::DeviceType device) {
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
}

void setAutocastDtype(c10::DeviceType device, c10::ScalarType dtype) {
  if (device == c10::DeviceType::CUDA)
    at::autocast::set_autocast_gpu_dtype(dtype);
  else
    at::autocast::set_autocast_cpu_dtype(dtype);
}

OptimizerStateKey optimizerStateKey(c10::TensorImpl* parameter) {
  return c10::guts::to_string(parameter);
}

#endif

}  // namespace recurlab
