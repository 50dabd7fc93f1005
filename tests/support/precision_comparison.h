#pragma once
// One task's TrainingModel trained twice from one seed, in fp32 and in bf16 (CPU autocast), for
// the tests that check each task's bf16 training stays near its fp32 training.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "experiments/training/trainer.h"

namespace recurlab::testing {

struct PrecisionLosses {
  std::vector<double> fp32, bf16;  // train_loss of each epoch
  experiments::TrainOutcome fp32_outcome, bf16_outcome;
};

// `make` builds a fresh model (it seeds torch itself); checkpoints off.
PrecisionLosses trainInBothPrecisions(
    const std::function<std::unique_ptr<experiments::TrainingModel>()>& make,
    const experiments::OptimizerOptions& optimizer, experiments::TrainerOptions loop,
    uint64_t seed);

// Every epoch's bf16 loss within `relative` of the fp32 one, and not identical to it (autocast
// did run in bfloat16).
void expectBf16Near(const PrecisionLosses& losses, double relative);

}  // namespace recurlab::testing
