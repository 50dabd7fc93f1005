#pragma once
// What `recurlab_speed` times: a forward+backward step of one layer at (length, hidden, batch).
// Models come from the encoder registry by name, plus two yardsticks that are not layers:
// "sru_matmul" (the SRU layer's three matmuls alone: its floor on this machine) and
// "sru_kernel" (the fused elementwise recurrence alone, for achieved bandwidth).
#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct SpeedModelSpec {
  std::string label;         // row name in tables, e.g. "gated_conv k=3"
  std::string encoder;       // registry name, or "sru_matmul" / "sru_kernel"
  std::string config_json;   // the encoder's options; hidden size is filled in per shape
};

// One prepared forward+backward step at a fixed shape (inputs allocated once).
class SpeedStep {
 public:
  virtual ~SpeedStep() = default;
  virtual void run() = 0;  // forward + backward, synchronized on CUDA
  // Bytes the elementwise kernel must read and write per step (0 when not meaningful).
  virtual double kernelBytes() const { return 0.0; }
};

// The default model list; `available` filters out encoders the registry does not know yet.
std::vector<SpeedModelSpec> defaultSpeedModels();
bool speedModelAvailable(const SpeedModelSpec& spec);

// The arithmetic of a timed step (--precision): fp32; tf32 (float32 with TF32 tensor-core
// matmuls, convolutions and RNNs: CUDA); bf16 and fp16 (autocast over float32 weights and
// inputs, as the tasks train; fp16 CUDA only). The two SRU yardsticks also take bf16/fp16
// tensors: the matmul floor at that precision, the kernel's bytes at its element size (on the
// CPU the op up-casts them to float32, as it does in training).
enum class SpeedPrecision { Fp32, Tf32, Bf16, Fp16 };
// "fp32", "tf32", "bf16" or "fp16" for `device` ("cpu" or "cuda..."); anything else, or tf32 or
// fp16 on the CPU, is an error naming --precision.
SpeedPrecision parseSpeedPrecision(const std::string& text, const std::string& device);

std::unique_ptr<SpeedStep> makeSpeedStep(const SpeedModelSpec& spec, int64_t length,
                                         int64_t hidden, int64_t batch,
                                         const std::string& device, uint64_t seed,
                                         SpeedPrecision precision = SpeedPrecision::Fp32);

}  // namespace recurlab::experiments
