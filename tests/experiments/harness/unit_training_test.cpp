// The glue every task's runUnit uses between the harness and the Trainer.
#include "experiments/harness/unit_training.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "tests/support/temp_root.h"

namespace fs = std::filesystem;
using namespace recurlab::experiments;

TEST(UnitTraining, TrainerContextCarriesTheUnitsLogGroupCheckpointsProgressAndFingerprint) {
  const fs::path dir = recurlab::testing::perProcessTempPath("recurlab_unit_training_");
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    Hdf5RunLog log((dir / "log.h5").string(), Hdf5RunLog::Mode::Create);
    UnitContext unit{log, "units/u0", {}, 7, CheckpointStore((dir / "ck").string()), "", {}, nullptr};
    int progress_calls = 0;
    unit.progress = [&](const std::string&, double) { ++progress_calls; };
    const TrainerContext tc = trainerContextFor(unit, "{\"model\":\"sru\"}");
    EXPECT_EQ(tc.log, &log);
    EXPECT_EQ(tc.group, "units/u0");
    EXPECT_EQ(tc.checkpoints.dir(), (dir / "ck").string());
    EXPECT_EQ(tc.fingerprint, "{\"model\":\"sru\"}");
    EXPECT_EQ(tc.data_parallel, nullptr);
    ASSERT_TRUE(tc.progress);
    tc.progress("epoch 1", 0.5);
    EXPECT_EQ(progress_calls, 1);
  }
  fs::remove_all(dir);
}

TEST(UnitTraining, UnitResultHasTheOutcomesCountsAndTimes) {
  TrainOutcome o;
  o.diverged = true;
  o.resumed = true;
  o.stop_reason = "non-finite training loss";
  o.epochs = 4;
  o.steps = 120;
  o.best_epoch = 3;
  o.train_seconds = 10.0;
  o.final_lr = 0.25;
  o.best["dev_acc"] = 0.8;
  const UnitResult r = unitResultOf(o);
  EXPECT_TRUE(r.diverged);
  EXPECT_EQ(r.stop_reason, "non-finite training loss");
  EXPECT_EQ(r.counts.at("epochs"), 4);
  EXPECT_EQ(r.counts.at("steps"), 120);
  EXPECT_EQ(r.counts.at("best_epoch"), 3);
  EXPECT_EQ(r.counts.at("resumed_from_checkpoint"), 1);
  EXPECT_DOUBLE_EQ(r.metrics.at("train_seconds"), 10.0);
  EXPECT_DOUBLE_EQ(r.metrics.at("seconds_per_epoch"), 2.5);
  EXPECT_DOUBLE_EQ(r.metrics.at("final_lr"), 0.25);
  EXPECT_DOUBLE_EQ(bestMetric(o, "dev_acc", -1), 0.8);
  EXPECT_DOUBLE_EQ(bestMetric(o, "test_acc", -1), -1);
  EXPECT_TRUE(std::isnan(bestMetric(o, "test_acc", NAN)));

  TrainOutcome none;  // no epoch finished: no division by zero
  EXPECT_DOUBLE_EQ(unitResultOf(none).metrics.at("seconds_per_epoch"), 0.0);
  EXPECT_EQ(unitResultOf(none).counts.at("resumed_from_checkpoint"), 0);
}
