#pragma once
// The learning rate at an optimizer step for the step-wise schedules (noam, inverse_sqrt), and
// the fixed epochs of the milestones schedule; constant and plateau schedules return the base
// lr (plateau and milestone decays are epoch-wise, in the Trainer). See OptimizerOptions::schedule.
#include <cstdint>

#include "experiments/training/optimizer_options.h"

namespace recurlab::experiments {

// True for schedules that set the lr before every step.
bool stepwiseSchedule(const OptimizerOptions& o);

// lr for optimizer step `step` (1-based) of a step-wise schedule.
double scheduledLearningRate(const OptimizerOptions& o, int64_t step);

// Whether an epoch-wise schedule with fixed epochs (milestones) decays the lr before `epoch`
// (1-based); false for every other schedule.
bool decaysBeforeEpoch(const OptimizerOptions& o, int64_t epoch);

}  // namespace recurlab::experiments
