#include "experiments/training/plateau_tracker.h"

#include <gtest/gtest.h>

namespace recurlab::experiments {
namespace {

TEST(PlateauTracker, HalvesAfterLrPatienceAndStopsAfterPatience) {
  PlateauTracker t(/*patience=*/5, /*lr_patience=*/2);
  EXPECT_TRUE(t.observe(0.5).improved);
  EXPECT_TRUE(t.observe(0.6).improved);
  auto d = t.observe(0.6);  // equal is not better
  EXPECT_FALSE(d.improved);
  EXPECT_FALSE(d.decay_lr);
  d = t.observe(0.55);
  EXPECT_TRUE(d.decay_lr);   // 2 epochs without improvement
  EXPECT_FALSE(t.observe(0.59).decay_lr);
  EXPECT_TRUE(t.observe(0.58).decay_lr);  // count restarts after each decay
  d = t.observe(0.5);
  EXPECT_TRUE(d.stop);  // 5 epochs since the best
  EXPECT_EQ(t.bestEpoch(), 2);
  EXPECT_DOUBLE_EQ(t.best(), 0.6);
}

}  // namespace
}  // namespace recurlab::experiments
