// The state-tracking labels on hand-computed strings, and the samplers' sequences.
#include "tasks/synthetic/state_tracking_tasks.h"

#include <gtest/gtest.h>

namespace recurlab::experiments {
namespace {

constexpr int64_t N = kNoTarget;
using namespace arithmetic_token;

TEST(SyntheticStateTracking, ParityCountsTheOnes) {
  EXPECT_EQ(parityLabel({1, 0, 1, 1}), 1);
  EXPECT_EQ(parityLabel({1, 0, 0, 1}), 0);
  EXPECT_EQ(parityLabel({}), 0);
  const auto s = labelledString({1, 0, 1, 1}, 2, parityLabel({1, 0, 1, 1}));
  EXPECT_EQ(s.tokens, (std::vector<int64_t>{1, 0, 1, 1, 2}));
  EXPECT_EQ(s.targets, (std::vector<int64_t>{N, N, N, N, 1}));
}

TEST(SyntheticStateTracking, SampledParityIsLabelledByItsBits) {
  std::mt19937_64 rng(2);
  const auto s = sampleParity(rng, 9);
  ASSERT_EQ(s.tokens.size(), 10u);
  EXPECT_EQ(s.tokens.back(), 2);
  EXPECT_EQ(s.targets.back(), parityLabel({s.tokens.begin(), s.tokens.end() - 1}));
}

TEST(SyntheticStateTracking, CycleNavigationWrapsAroundFivePositions) {
  EXPECT_EQ(cycleLabel({1, 1, 2, 1, 1, 1, 1}), 0);  // +1 +1 -1 +1 +1 +1 +1 = 5
  EXPECT_EQ(cycleLabel({2}), 4);
  EXPECT_EQ(cycleLabel({0, 1, 0, 1}), 2);
}

TEST(SyntheticStateTracking, ArithmeticEvaluatesModFiveWithPrecedenceAndBrackets) {
  // (1+2)*3-4 = 5 -> 0
  EXPECT_EQ(arithmeticLabel({kOpen, 1, kPlus, 2, kClose, kTimes, 3, kMinus, 4}), 0);
  // 2-3*4+1 = -9 -> 1 (not (2-3)*4+1 = -3 -> 2)
  EXPECT_EQ(arithmeticLabel({2, kMinus, 3, kTimes, 4, kPlus, 1}), 1);
  EXPECT_EQ(arithmeticLabel({4, kTimes, 4, kTimes, 4}), 4);  // 64
  EXPECT_EQ(arithmeticLabel({3}), 3);
  EXPECT_THROW(arithmeticLabel({1, kPlus}), std::invalid_argument);
  EXPECT_THROW(arithmeticLabel({kOpen, 1}), std::invalid_argument);
}

TEST(SyntheticStateTracking, SampledExpressionsHaveTheLengthAskedAndParse) {
  std::mt19937_64 rng(4);
  for (int64_t length = 1; length <= 21; length += 2) {
    const auto e = sampleExpression(rng, length);
    EXPECT_EQ(static_cast<int64_t>(e.size()), length);
    EXPECT_NO_THROW(arithmeticLabel(e));
  }
  EXPECT_THROW(sampleExpression(rng, 4), std::invalid_argument);
  const auto s = sampleArithmetic(rng, 11);
  EXPECT_EQ(s.tokens.back(), kEquals);
  EXPECT_EQ(s.targets.back(), arithmeticLabel({s.tokens.begin(), s.tokens.end() - 1}));
}

TEST(SyntheticStateTracking, MajorityIsTheMostFrequentSymbolTheSmallestOnTies) {
  EXPECT_EQ(majorityLabel({0, 1, 1}, 2), 1);
  EXPECT_EQ(majorityLabel({1, 0}, 2), 0);
  EXPECT_EQ(majorityLabel({2, 2, 1, 0}, 3), 2);
}

}  // namespace
}  // namespace recurlab::experiments
