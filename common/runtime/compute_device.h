#pragma once
// The device a run computes on, from what the user asked: `cpu`, `cuda` (device 0), `cuda:N`
// or `auto` (the first CUDA device when this LibTorch has CUDA and the machine a GPU, else the
// CPU). A CUDA request that cannot be met is one line saying why: a CPU-only LibTorch (which
// one, and how to build with a CUDA one, docs/gpu.md), no GPU, or no device N.
#include <string>

namespace recurlab {

// "cpu" or "cuda:N". Throws std::invalid_argument naming `option` (e.g. "--device") and the
// value when the request is malformed or cannot be met on this build and machine.
std::string resolveComputeDevice(const std::string& requested, const std::string& option);

// Whether `device` (as resolveComputeDevice returns it) is a CUDA device.
bool isCudaDevice(const std::string& device);

}  // namespace recurlab
