#pragma once
// Dynamic loss scaling for float16 training (Micikevicius et al., 2018, "Mixed Precision
// Training", section 3.2): the loss is multiplied by a scale S before backward so that small
// gradients stay above float16's smallest normal number; the gradients are divided by S before
// clipping and the update. A step whose gradients hold an inf or NaN (overflow) is skipped and S
// multiplied by the backoff factor; after `growth_interval` finite steps in a row S grows by
// the growth factor. Scales are powers of two by default, so scaling and unscaling are exact.
// Checking the gradients costs one device-to-host read per step (the step must know whether to
// skip), as in PyTorch's GradScaler.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace recurlab::experiments {

class CheckpointFields;

struct LossScalerOptions {
  double initial_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;  // finite steps in a row before the scale grows
};

class LossScaler {
 public:
  // A disabled scaler (fp32, bf16) scales by 1 and never skips.
  explicit LossScaler(bool enabled = false, LossScalerOptions options = {});

  bool enabled() const { return enabled_; }
  // The loss to call backward() on: loss x scale.
  torch::Tensor scale(const torch::Tensor& loss) const;
  // Divides the gradients of `parameters` by the scale, in place; true when every one is finite
  // (the step may be taken).
  bool unscale(const std::vector<torch::Tensor>& parameters);
  // After each step's unscale: an overflow skips it (counted) and backs off, else the scale
  // grows once growth_interval finite steps followed each other.
  void update(bool finite);

  double scaleValue() const { return scale_; }
  int64_t skippedSteps() const { return skipped_steps_; }
  int64_t finiteStepsInARow() const { return growth_tracker_; }

  // Checkpoint fields loss_scaler.scale, loss_scaler.growth_tracker, loss_scaler.skipped_steps.
  void writeTo(CheckpointFields& fields) const;
  // Takes them back; a checkpoint without them (written before loss scaling existed, or in fp32)
  // leaves the scaler as it is.
  void restoreFrom(const CheckpointFields& fields);

 private:
  bool enabled_;
  LossScalerOptions options_;
  double scale_;
  int64_t growth_tracker_ = 0;
  int64_t skipped_steps_ = 0;
};

}  // namespace recurlab::experiments
