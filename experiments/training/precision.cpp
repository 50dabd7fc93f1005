#include "experiments/training/precision.h"

#include <ATen/autocast_mode.h>

#include "common/runtime/torch_build.h"

#include <stdexcept>

namespace recurlab::experiments {

Precision parsePrecision(const std::string& text, const std::string& source) {
  if (text == "fp32") return Precision::Fp32;
  if (text == "bf16") return Precision::Bf16;
  if (text == "fp16") return Precision::Fp16;
  throw std::invalid_argument(source + ": expected fp32, bf16 or fp16, got '" + text + "'");
}

std::string precisionName(Precision precision) {
  switch (precision) {
    case Precision::Bf16: return "bf16";
    case Precision::Fp16: return "fp16";
    case Precision::Fp32: break;
  }
  return "fp32";
}

void checkPrecisionOnDevice(Precision precision, const std::string& device,
                            const std::string& option) {
  if (precision == Precision::Fp16 && device == "cpu")
    throw std::invalid_argument(option + " fp16: LibTorch's CPU autocast has no float16 "
                                "(bfloat16 only); on the CPU use " + option + " bf16 or fp32, "
                                "fp16 needs --device cuda");
}

AutocastScope::AutocastScope(Precision precision, const torch::Device& device)
    : active_(precision != Precision::Fp32), cuda_(device.is_cuda()) {
  if (!active_) return;
  const at::ScalarType dtype = precision == Precision::Bf16 ? at::kBFloat16 : at::kHalf;
  const auto type = cuda_ ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
  was_enabled_ = autocastEnabled(type);
  previous_dtype_ = autocastDtype(type);
  setAutocastDtype(type, dtype);
  setAutocastEnabled(type, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // The outermost scope drops the cast weights it cached (one cast per weight per forward).
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  const auto type = cuda_ ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
  setAutocastEnabled(type, was_enabled_);
  setAutocastDtype(type, previous_dtype_);
}

}  // namespace recurlab::experiments
