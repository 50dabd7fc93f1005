#pragma once
// The learning rate at an optimizer step for the step-wise schedules (noam, inverse_sqrt);
// constant and plateau schedules return the base lr (plateau halving is epoch-wise, in the
// Trainer). See OptimizerOptions::schedule.
#include <cstdint>

#include "experiments/training/optimizer_options.h"

namespace recurlab::experiments {

// True for schedules that set the lr before every step.
bool stepwiseSchedule(const OptimizerOptions& o);

// lr for optimizer step `step` (1-based) of a step-wise schedule.
double scheduledLearningRate(const OptimizerOptions& o, int64_t step);

}  // namespace recurlab::experiments
