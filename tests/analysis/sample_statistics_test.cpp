// The reports' sample summaries on hand-computed samples.
#include "analysis/sample_statistics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace recurlab::analysis {
namespace {

TEST(SampleStatistics, MeanOfHandComputedSamples) {
  EXPECT_DOUBLE_EQ(mean({1, 2, 6}), 3.0);
  EXPECT_DOUBLE_EQ(mean({-0.5}), -0.5);
  EXPECT_TRUE(std::isnan(mean({})));
}

TEST(SampleStatistics, MedianOfOddAndEvenCountsInAnyOrder) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
  EXPECT_DOUBLE_EQ(median({2, 2, 9, 2}), 2.0);
  EXPECT_TRUE(std::isnan(median({})));
}

}  // namespace
}  // namespace recurlab::analysis
