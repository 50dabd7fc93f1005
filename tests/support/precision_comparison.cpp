#include "tests/support/precision_comparison.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/log/hdf5_run_log.h"
#include "tests/support/temp_root.h"

namespace recurlab::testing {

PrecisionLosses trainInBothPrecisions(
    const std::function<std::unique_ptr<experiments::TrainingModel>()>& make,
    const experiments::OptimizerOptions& optimizer, experiments::TrainerOptions loop,
    uint64_t seed) {
  loop.checkpoints = false;
  TempRoot tmp("recurlab_precision_comparison");
  experiments::Hdf5RunLog log((tmp.root / "log.h5").string(), experiments::Hdf5RunLog::Mode::Create);
  PrecisionLosses losses;
  for (const char* precision : {"fp32", "bf16"}) {
    auto model = make();
    experiments::TrainerContext context;
    context.log = &log;
    context.group = std::string("/") + precision;
    context.execution.precision = precision;
    auto outcome = experiments::train(*model, optimizer, loop, seed, context);
    auto column = log.readTable(context.group + "/epochs").column("train_loss");
    if (precision == std::string("fp32")) {
      losses.fp32 = std::move(column);
      losses.fp32_outcome = std::move(outcome);
    } else {
      losses.bf16 = std::move(column);
      losses.bf16_outcome = std::move(outcome);
    }
  }
  return losses;
}

void expectBf16Near(const PrecisionLosses& losses, double relative) {
  ASSERT_FALSE(losses.fp32.empty());
  ASSERT_EQ(losses.fp32.size(), losses.bf16.size());
  EXPECT_FALSE(losses.fp32_outcome.diverged || losses.bf16_outcome.diverged)
      << losses.bf16_outcome.stop_reason;
  for (size_t e = 0; e < losses.fp32.size(); ++e) {
    EXPECT_TRUE(std::isfinite(losses.bf16[e])) << "epoch " << e + 1;
    EXPECT_NEAR(losses.bf16[e], losses.fp32[e], relative * std::abs(losses.fp32[e]))
        << "epoch " << e + 1;
  }
  EXPECT_NE(losses.bf16, losses.fp32) << "bf16 computed exactly what fp32 did: no autocast?";
}

}  // namespace recurlab::testing
