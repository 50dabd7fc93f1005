#include "common/runtime/torch_build.h"

#include <ATen/Version.h>
#include <torch/version.h>

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

}  // namespace recurlab
