#include "common/runtime/torch_build.h"

#include <ATen/Context.h>
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

namespace {
constexpr at::Float32Op kTf32Ops[3] = {at::Float32Op::MATMUL, at::Float32Op::CONV, at::Float32Op::RNN};
}

CudaTf32Scope::CudaTf32Scope(bool allowed) {
  auto& context = at::globalContext();
  for (int i = 0; i < 3; ++i) {
    saved_[i] = static_cast<int>(context.float32Precision(at::Float32Backend::CUDA, kTf32Ops[i]));
    context.setFloat32Precision(at::Float32Backend::CUDA, kTf32Ops[i],
                                allowed ? at::Float32Precision::TF32 : at::Float32Precision::IEEE);
  }
}

CudaTf32Scope::~CudaTf32Scope() {
  for (int i = 0; i < 3; ++i)
    at::globalContext().setFloat32Precision(at::Float32Backend::CUDA, kTf32Ops[i],
                                            static_cast<at::Float32Precision>(saved_[i]));
}

bool cudaMatmulTf32Allowed() {
  return at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL) ==
         at::Float32Precision::TF32;
}

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

CudaTf32Scope::CudaTf32Scope(bool allowed) : saved_{0, 0, 0} {
  auto& context = at::globalContext();
  saved_[0] = context.allowTF32CuBLAS();
  saved_[1] = context.allowTF32CuDNN();  // convolutions and RNNs
  context.setAllowTF32CuBLAS(allowed);
  context.setAllowTF32CuDNN(allowed);
}

CudaTf32Scope::~CudaTf32Scope() {
  at::globalContext().setAllowTF32CuBLAS(saved_[0] != 0);
  at::globalContext().setAllowTF32CuDNN(saved_[1] != 0);
}

bool cudaMatmulTf32Allowed() { return at::globalContext().allowTF32CuBLAS(); }

#endif

}  // namespace recurlab
