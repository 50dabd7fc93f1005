#include "experiments/training/learning_rate_schedule.h"

#include <algorithm>
#include <cmath>

namespace recurlab::experiments {

bool stepwiseSchedule(const OptimizerOptions& o) {
  return o.schedule == "noam" || o.schedule == "inverse_sqrt";
}

double scheduledLearningRate(const OptimizerOptions& o, int64_t step) {
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  const double w = static_cast<double>(o.warmup_steps);
  if (o.schedule == "noam")
    return o.lr / std::sqrt(static_cast<double>(o.model_dim)) *
           std::min(1.0 / std::sqrt(s), s * std::pow(w, -1.5));
  if (o.schedule == "inverse_sqrt") return o.lr * std::min(s / w, std::sqrt(w / s));
  return o.lr;
}

bool decaysBeforeEpoch(const OptimizerOptions& o, int64_t epoch) {
  return o.schedule == "milestones" &&
         std::find(o.lr_decay_epochs.begin(), o.lr_decay_epochs.end(), epoch) != o.lr_decay_epochs.end();
}

}  // namespace recurlab::experiments
