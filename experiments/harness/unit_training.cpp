#include "experiments/harness/unit_training.h"

#include <utility>

namespace recurlab::experiments {

TrainerContext trainerContextFor(const UnitContext& unit, std::string fingerprint) {
  TrainerContext tc;
  tc.log = &unit.log;
  tc.group = unit.group;
  tc.checkpoints = unit.checkpoints;
  tc.fingerprint = std::move(fingerprint);
  tc.progress = unit.progress;
  tc.data_parallel = unit.data_parallel;
  tc.execution = unit.execution;
  return tc;
}

UnitResult unitResultOf(const TrainOutcome& outcome) {
  UnitResult r;
  r.diverged = outcome.diverged;
  r.stop_reason = outcome.stop_reason;
  r.counts["epochs"] = outcome.epochs;
  r.counts["steps"] = outcome.steps;
  r.counts["best_epoch"] = outcome.best_epoch;
  r.counts["resumed_from_checkpoint"] = outcome.resumed ? 1 : 0;
  r.metrics["train_seconds"] = outcome.train_seconds;
  r.metrics["seconds_per_epoch"] =
      outcome.epochs ? outcome.train_seconds / static_cast<double>(outcome.epochs) : 0.0;
  r.metrics["final_lr"] = outcome.final_lr;
  if (outcome.loss_scaling) {
    r.counts["loss_scale_skipped_steps"] = outcome.skipped_steps;
    r.metrics["final_loss_scale"] = outcome.loss_scale;
  }
  return r;
}

double bestMetric(const TrainOutcome& outcome, const std::string& name, double missing) {
  const auto it = outcome.best.find(name);
  return it == outcome.best.end() ? missing : it->second;
}

}  // namespace recurlab::experiments
