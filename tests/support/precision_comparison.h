#pragma once
// One task's TrainingModel trained twice from one seed, in fp32 and in bf16 (CPU autocast), for
// the tests that check each task's bf16 training stays near its fp32 training. The comparison
// can fail for a bf16 path that barely trains: fp32 must move from its first step's loss by
// several times the tolerance, bf16 must take every step fp32 took, and its recurrences must
// have received their input in float32 (the autocast up-cast; tests/support/op_inputs.h).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiments/training/trainer.h"

namespace recurlab::testing {

// The RECORD_FUNCTION names of the fused recurrences that up-cast under autocast.
extern const char* const kRecurrenceOps[2];

struct PrecisionLosses {
  std::vector<double> fp32, bf16;  // train_loss of each epoch
  double fp32_first_step = 0, bf16_first_step = 0;  // the loss of step 1, before any update
  int64_t fp32_steps = 0, bf16_steps = 0;
  int64_t bf16_skipped_steps = 0;
  bool diverged = false;
  std::string stop_reason;
  // The bf16 run's recurrence calls, and those that received U in another dtype than float32.
  int64_t bf16_recurrence_calls = 0, bf16_recurrence_calls_not_float32 = 0;
};

// `make` builds a fresh model (it seeds torch itself); checkpoints off, a steps row every step.
PrecisionLosses trainInBothPrecisions(
    const std::function<std::unique_ptr<experiments::TrainingModel>()>& make,
    const experiments::OptimizerOptions& optimizer, experiments::TrainerOptions loop,
    uint64_t seed);

// Expects that fp32's last epoch loss moved from its first step's by at least
// `moved_tolerances` times the tolerance (`relative` of that loss), that bf16 took as many steps
// and skipped none, that its recurrences ran in float32, and that every epoch's bf16 loss is
// within `relative` of the fp32 one and not identical to it (autocast did run in bfloat16).
void expectBf16Near(const PrecisionLosses& losses, double relative, double moved_tolerances = 3);

}  // namespace recurlab::testing
