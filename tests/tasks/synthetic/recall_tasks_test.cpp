// The recall generators on hand-computed cases, and their samplers' invariants.
#include "tasks/synthetic/recall_tasks.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace recurlab::experiments {
namespace {

constexpr int64_t N = kNoTarget;

TEST(SyntheticRecall, MqarSequenceHasItsContextThenKeysAskedAtTheirSlots) {
  // Vocabulary 8: keys from 1..3, values from 4..7. Key 3 -> 5, key 1 -> 7; key 3 is asked in
  // query slot 1 (position 4 + 2), key 1 in slot 0 (position 4).
  const auto s = mqarSequence({3, 1}, {5, 7}, {1, 0}, 8);
  EXPECT_EQ(s.tokens, (std::vector<int64_t>{3, 5, 1, 7, 1, 0, 3, 0}));
  EXPECT_EQ(s.targets, (std::vector<int64_t>{N, N, N, N, 7, N, 5, N}));
  // Each question names where its value was shown: 7 at position 3, 5 at position 1.
  EXPECT_EQ(s.sources, (std::vector<int64_t>{N, N, N, N, 3, N, 1, N}));
}

TEST(SyntheticRecall, SampledMqarAsksEveryKeyOnceForTheValueItCameWith) {
  std::mt19937_64 rng(7);
  for (int example = 0; example < 20; ++example) {
    const auto s = sampleMqar(rng, 8192, 64, 4, 0.01);
    ASSERT_EQ(s.tokens.size(), 64u);
    std::map<int64_t, int64_t> value_of;
    for (int i = 0; i < 4; ++i) {
      EXPECT_GE(s.tokens[2 * i], 1);
      EXPECT_LT(s.tokens[2 * i], 4096);
      EXPECT_GE(s.tokens[2 * i + 1], 4096);
      EXPECT_LT(s.tokens[2 * i + 1], 8192);
      value_of[s.tokens[2 * i]] = s.tokens[2 * i + 1];
    }
    EXPECT_EQ(value_of.size(), 4u);  // distinct keys
    std::set<int64_t> asked;
    for (size_t t = 8; t < 64; ++t) {
      if (s.targets[t] == N) {
        EXPECT_EQ(s.tokens[t], 0);
        continue;
      }
      EXPECT_EQ((t - 8) % 2, 0u);
      EXPECT_EQ(s.targets[t], value_of.at(s.tokens[t]));
      asked.insert(s.tokens[t]);
    }
    EXPECT_EQ(asked.size(), 4u);
    for (size_t t = 0; t < 64; ++t)  // a question's source holds its answer
      EXPECT_EQ(s.sources[t] == N ? N : s.tokens[s.sources[t]], s.targets[t]);
  }
}

TEST(SyntheticRecall, MqarIsTheSameForTheSameSeed) {
  std::mt19937_64 a(3), b(3);
  EXPECT_EQ(sampleMqar(a, 100, 32, 4, 0.01).tokens, sampleMqar(b, 100, 32, 4, 0.01).tokens);
}

TEST(SyntheticRecall, MqarRefusesMorePairsThanTheLengthHolds) {
  std::mt19937_64 rng(1);
  EXPECT_THROW(sampleMqar(rng, 8192, 16, 5, 0.01), std::invalid_argument);
}

TEST(SyntheticRecall, SelectiveCopyAsksForTheDataTokensInOrderAtTheMarkers) {
  const auto s = selectiveCopySequence({5, 9}, {1, 3}, 5);
  EXPECT_EQ(s.tokens, (std::vector<int64_t>{0, 5, 0, 9, 0, 1, 1}));
  EXPECT_EQ(s.targets, (std::vector<int64_t>{N, N, N, N, N, 5, 9}));
  EXPECT_EQ(s.sources, (std::vector<int64_t>{N, N, N, N, N, 1, 3}));
}

TEST(SyntheticRecall, InductionAsksForTheTokenThatFollowedTheTrigger) {
  const auto s = inductionSequence({4, 4, 4, 4, 4}, 1, 7);
  EXPECT_EQ(s.tokens, (std::vector<int64_t>{4, 0, 7, 4, 4, 0}));
  EXPECT_EQ(s.targets, (std::vector<int64_t>{N, N, N, N, N, 7}));
  EXPECT_EQ(s.sources, (std::vector<int64_t>{N, N, N, N, N, 2}));
}

TEST(SyntheticRecall, SampledInductionHasTheTriggerTwiceOnly) {
  std::mt19937_64 rng(5);
  for (int example = 0; example < 20; ++example) {
    const auto s = sampleInduction(rng, 16, 12);
    int64_t triggers = 0, first = -1;
    for (size_t t = 0; t < s.tokens.size(); ++t)
      if (s.tokens[t] == 0 && triggers++ == 0) first = static_cast<int64_t>(t);
    EXPECT_EQ(triggers, 2);
    EXPECT_EQ(s.tokens.back(), 0);
    EXPECT_EQ(s.targets.back(), s.tokens[first + 1]);
  }
}

}  // namespace
}  // namespace recurlab::experiments
