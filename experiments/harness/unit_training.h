#pragma once
// What every task's runUnit does around the one Trainer: the Trainer's context from the
// harness's unit context, and the unit result's common part from the Trainer's outcome.

#include <string>

#include "experiments/harness/task.h"
#include "experiments/training/trainer.h"

namespace recurlab::experiments {

// Tables under the unit's group, its checkpoints (ignored when `fingerprint` differs), its
// progress line and its data-parallel group.
TrainerContext trainerContextFor(const UnitContext& unit, std::string fingerprint);

// diverged, stop_reason; counts epochs, steps, best_epoch, resumed_from_checkpoint; metrics
// train_seconds, seconds_per_epoch, final_lr. Tasks add their own metrics.
UnitResult unitResultOf(const TrainOutcome& outcome);

// The metric `name` at the best epoch, or `missing` when the model never logged it.
double bestMetric(const TrainOutcome& outcome, const std::string& name, double missing);

}  // namespace recurlab::experiments
