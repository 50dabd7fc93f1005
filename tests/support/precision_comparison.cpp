#include "tests/support/precision_comparison.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/log/hdf5_run_log.h"
#include "tests/support/op_inputs.h"
#include "tests/support/temp_root.h"

namespace recurlab::testing {

const char* const kRecurrenceOps[2] = {"recurlab::sru_recurrence",
                                       "recurlab::qrnn_pooling_recurrence"};

namespace {

// One precision's run: its epoch losses, first step's loss and outcome.
struct PrecisionRun {
  std::vector<double> losses;
  double first_step = 0;
  experiments::TrainOutcome outcome;
};

PrecisionRun trainIn(const char* precision,
                     const std::function<std::unique_ptr<experiments::TrainingModel>()>& make,
                     const experiments::OptimizerOptions& optimizer,
                     const experiments::TrainerOptions& loop, uint64_t seed,
                     experiments::Hdf5RunLog& log) {
  auto model = make();
  experiments::TrainerContext context;
  context.log = &log;
  context.group = std::string("/") + precision;
  context.execution.precision = precision;
  PrecisionRun run;
  run.outcome = experiments::train(*model, optimizer, loop, seed, context);
  run.losses = log.readTable(context.group + "/epochs").column("train_loss");
  const auto steps = log.readTable(context.group + "/steps").column("train_loss");
  run.first_step = steps.empty() ? NAN : steps.front();
  return run;
}

}  // namespace

PrecisionLosses trainInBothPrecisions(
    const std::function<std::unique_ptr<experiments::TrainingModel>()>& make,
    const experiments::OptimizerOptions& optimizer, experiments::TrainerOptions loop,
    uint64_t seed) {
  loop.checkpoints = false;
  loop.log_every_steps = 1;
  TempRoot tmp("recurlab_precision_comparison");
  experiments::Hdf5RunLog log((tmp.root / "log.h5").string(), experiments::Hdf5RunLog::Mode::Create);
  const PrecisionRun fp32 = trainIn("fp32", make, optimizer, loop, seed, log);
  OpInputs recurrences({kRecurrenceOps[0], kRecurrenceOps[1]});
  const PrecisionRun bf16 = trainIn("bf16", make, optimizer, loop, seed, log);
  PrecisionLosses losses;
  losses.fp32 = fp32.losses;
  losses.bf16 = bf16.losses;
  losses.fp32_first_step = fp32.first_step;
  losses.bf16_first_step = bf16.first_step;
  losses.fp32_steps = fp32.outcome.steps;
  losses.bf16_steps = bf16.outcome.steps;
  losses.bf16_skipped_steps = bf16.outcome.skipped_steps;
  losses.diverged = fp32.outcome.diverged || bf16.outcome.diverged;
  losses.stop_reason = fp32.outcome.stop_reason + " / " + bf16.outcome.stop_reason;
  losses.bf16_recurrence_calls = recurrences.callCount();
  losses.bf16_recurrence_calls_not_float32 = recurrences.callsNotInFloat32();
  return losses;
}

void expectBf16Near(const PrecisionLosses& losses, double relative, double moved_tolerances) {
  ASSERT_FALSE(losses.fp32.empty());
  ASSERT_EQ(losses.fp32.size(), losses.bf16.size());
  EXPECT_FALSE(losses.diverged) << losses.stop_reason;
  // A comparison within `relative` means something only if fp32 trained well past it.
  const double last = losses.fp32.back();
  EXPECT_GE(std::abs(losses.fp32_first_step - last), moved_tolerances * relative * std::abs(last))
      << "fp32 moved from " << losses.fp32_first_step << " (step 1) to " << last
      << " (last epoch): less than " << moved_tolerances << " times the tolerance";
  EXPECT_EQ(losses.bf16_steps, losses.fp32_steps) << "bf16 took other steps than fp32";
  EXPECT_EQ(losses.bf16_skipped_steps, 0) << "bf16 skipped steps";
  EXPECT_GT(losses.bf16_recurrence_calls, 0) << "no recurrence ran in the bf16 training";
  EXPECT_EQ(losses.bf16_recurrence_calls_not_float32, 0)
      << "of " << losses.bf16_recurrence_calls << " recurrence calls in bf16, these received U "
      << "in another dtype than float32 (no up-cast)";
  for (size_t e = 0; e < losses.fp32.size(); ++e) {
    EXPECT_TRUE(std::isfinite(losses.bf16[e])) << "epoch " << e + 1;
    EXPECT_NEAR(losses.bf16[e], losses.fp32[e], relative * std::abs(losses.fp32[e]))
        << "epoch " << e + 1;
  }
  EXPECT_NE(losses.bf16, losses.fp32) << "bf16 computed exactly what fp32 did: no autocast?";
}

}  // namespace recurlab::testing
