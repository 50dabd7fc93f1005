#pragma once
// The arithmetic a run trains in (--precision). fp32: everything in float32. bf16 / fp16:
// LibTorch's autocast runs the matmuls, convolutions and attention products in bfloat16 /
// float16 and keeps reductions and losses in float32 (Micikevicius et al., 2018, "Mixed
// Precision Training", sections 3.1 and 3.3), while the weights and the optimizer's state stay
// float32 (the master copy, section 3.1). fp16 needs loss scaling (loss_scaler.h); bf16 has
// float32's exponent range and does not. The fused recurrences take the reduced-precision
// inputs: the CUDA kernels compute them with float32 accumulation, the CPU loops are
// float32/float64 only, so on the CPU an op up-casts its inputs to float32 and casts its outputs
// back (kernels/mixed_precision.h). LibTorch 1.13's CPU autocast knows bfloat16 only: fp16 on
// the CPU is refused.
#include <torch/torch.h>

#include <string>

namespace recurlab::experiments {

enum class Precision { Fp32, Bf16, Fp16 };

// "fp32", "bf16" or "fp16"; anything else is an error naming `source` (e.g. "--precision").
Precision parsePrecision(const std::string& text, const std::string& source);
std::string precisionName(Precision precision);

// Throws std::invalid_argument, one line naming `option`, when `precision` cannot run on
// `device` ("cpu" or "cuda:N"): fp16 on the CPU.
void checkPrecisionOnDevice(Precision precision, const std::string& device,
                            const std::string& option);

// Autocast on for the scope (nothing for fp32) on the device type of `device`, restored after.
class AutocastScope {
 public:
  AutocastScope(Precision precision, const torch::Device& device);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false, cuda_ = false, was_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

}  // namespace recurlab::experiments
