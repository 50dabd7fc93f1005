#include "experiments/training/loss_scaler.h"

#include <stdexcept>

#include "experiments/training/checkpoint_fields.h"

namespace recurlab::experiments {

LossScaler::LossScaler(bool enabled, LossScalerOptions options)
    : enabled_(enabled), options_(options), scale_(enabled ? options.initial_scale : 1.0) {
  if (!(options_.initial_scale > 0) || !(options_.growth_factor > 1) ||
      !(options_.backoff_factor > 0 && options_.backoff_factor < 1) || options_.growth_interval < 1)
    throw std::invalid_argument("loss scaler: expected initial_scale > 0, growth_factor > 1, "
                                "0 < backoff_factor < 1 and growth_interval >= 1");
}

torch::Tensor LossScaler::scale(const torch::Tensor& loss) const {
  return enabled_ ? loss * scale_ : loss;
}

bool LossScaler::unscale(const std::vector<torch::Tensor>& parameters) {
  if (!enabled_) return true;
  torch::NoGradGuard no_grad;
  torch::Tensor overflow;  // summed on the device, read once below
  const double inverse = 1.0 / scale_;
  for (const auto& p : parameters) {
    if (!p.grad().defined()) continue;
    auto& g = p.mutable_grad();
    if (g.is_sparse()) g = g.coalesce();
    g.mul_(inverse);
    const auto values = g.is_sparse() ? g._values() : g;
    const auto bad = values.isfinite().logical_not().any();
    overflow = overflow.defined() ? overflow.logical_or(bad) : bad;
  }
  return !overflow.defined() || !overflow.item<bool>();
}

void LossScaler::update(bool finite) {
  if (!enabled_) return;
  if (!finite) {
    ++skipped_steps_;
    growth_tracker_ = 0;
    scale_ *= options_.backoff_factor;
    return;
  }
  if (++growth_tracker_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    growth_tracker_ = 0;
  }
}

void LossScaler::writeTo(CheckpointFields& fields) const {
  fields.setReal("loss_scaler.scale", scale_);
  fields.setInteger("loss_scaler.growth_tracker", growth_tracker_);
  fields.setInteger("loss_scaler.skipped_steps", skipped_steps_);
}

void LossScaler::restoreFrom(const CheckpointFields& fields) {
  if (!fields.hasReal("loss_scaler.scale")) return;
  scale_ = fields.real("loss_scaler.scale");
  growth_tracker_ = fields.integer("loss_scaler.growth_tracker");
  skipped_steps_ = fields.integer("loss_scaler.skipped_steps");
}

}  // namespace recurlab::experiments
