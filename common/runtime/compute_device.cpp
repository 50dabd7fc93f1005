#include "common/runtime/compute_device.h"

#include <torch/cuda.h>

#include <cctype>
#include <stdexcept>

#include "common/runtime/torch_build.h"

namespace recurlab {
namespace {

// The N of "cuda:N", or -1 when the text is not a device number.
int deviceIndex(const std::string& digits) {
  if (digits.empty() || digits.size() > 4) return -1;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoi(digits);
}

}  // namespace

std::string resolveComputeDevice(const std::string& requested, const std::string& option) {
  if (requested == "cpu") return "cpu";
  const bool with_cuda = torchBuiltWithCuda();
  const int devices = with_cuda ? static_cast<int>(torch::cuda::device_count()) : 0;
  if (requested == "auto") return devices > 0 ? "cuda:0" : "cpu";
  int index = -1;
  if (requested == "cuda") index = 0;
  else if (requested.rfind("cuda:", 0) == 0) index = deviceIndex(requested.substr(5));
  if (index < 0)
    throw std::invalid_argument(option + " " + requested +
                                ": expected cpu, cuda, cuda:N (N = 0, 1, ...) or auto");
  if (!with_cuda)
    throw std::invalid_argument(
        option + " " + requested + ": this build uses LibTorch " + torchVersion() +
        ", CPU-only (no CUDA); rebuild against a CUDA LibTorch (cmake -S . -B build "
        "-DCMAKE_PREFIX_PATH=\"$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')\", "
        "docs/gpu.md) or use " + option + " cpu");
  if (devices == 0)
    throw std::invalid_argument(option + " " + requested + ": LibTorch " + torchVersion() +
                                " has CUDA but this machine shows no CUDA device (driver, "
                                "CUDA_VISIBLE_DEVICES?); use " + option + " cpu");
  if (index >= devices)
    throw std::invalid_argument(option + " " + requested + ": this machine has " +
                                std::to_string(devices) + " CUDA device" +
                                (devices == 1 ? "" : "s") + " (cuda:0 .. cuda:" +
                                std::to_string(devices - 1) + ")");
  return "cuda:" + std::to_string(index);
}

bool isCudaDevice(const std::string& device) { return device.rfind("cuda", 0) == 0; }

}  // namespace recurlab
