// Paired bootstrap resampling and approximate randomization with sacreBLEU 2.x's semantics:
// the cases whose outcome does not depend on the random draws.
#include "metrics/paired_significance.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "metrics/corpus_bleu.h"

using namespace recurlab::metrics;

namespace {

// Statistics (matches, length) per segment; the score is the match rate in percent.
std::vector<SegmentStatistics> segments(const std::vector<int>& matches) {
  std::vector<SegmentStatistics> out;
  for (int m : matches) out.push_back({static_cast<double>(m), 1.0});
  return out;
}
const ScoreFromSums kMatchRate = [](const SegmentStatistics& s) { return 100 * s[0] / s[1]; };

std::vector<int> alternating(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i % 2);
  return v;
}

}  // namespace

TEST(PairedSignificance, DefaultsFollowSacreBleu) {
  EXPECT_EQ(pairedTestSamples({PairedTest::BootstrapResampling, 0, 12345}), 1000);
  EXPECT_EQ(pairedTestSamples({PairedTest::ApproximateRandomization, 0, 12345}), 10000);
  EXPECT_EQ(PairedTestOptions{}.seed, 12345u);
}

TEST(PairedSignificance, ConfidenceIntervalDropsTheOuterFortieths) {
  // 100 scores 0..99 in any order: n/40 = 2 dropped on each side, (97 - 2) / 2 = 47.5.
  std::vector<double> scores;
  for (int i = 99; i >= 0; --i) scores.push_back(i);
  double mean = 0, half_width = 0;
  meanAndConfidenceInterval(scores, mean, half_width);
  EXPECT_DOUBLE_EQ(mean, 49.5);
  EXPECT_DOUBLE_EQ(half_width, 47.5);
  // Fewer than 40 scores: nothing dropped.
  meanAndConfidenceInterval({3, 1, 2}, mean, half_width);
  EXPECT_DOUBLE_EQ(half_width, 1.0);
}

TEST(PairedSignificance, AnIdenticalSystemGetsTheSmallestCountAndTheBaselinesInterval) {
  // No resample or trial has |delta| > 0 = the real |delta|: p = 1 / (n + 1), as in sacreBLEU.
  const auto base = segments(alternating(40));
  const auto bs = runPairedTest({base, base}, kMatchRate, {PairedTest::BootstrapResampling, 200, 12345});
  ASSERT_EQ(bs.size(), 2u);
  EXPECT_FALSE(bs[0].has_p_value);
  EXPECT_TRUE(bs[1].has_p_value);
  EXPECT_DOUBLE_EQ(bs[1].p_value, 1.0 / 201);
  EXPECT_DOUBLE_EQ(bs[0].score, 50.0);
  EXPECT_DOUBLE_EQ(bs[1].mean, bs[0].mean);
  EXPECT_DOUBLE_EQ(bs[1].ci, bs[0].ci);
  EXPECT_GT(bs[0].ci, 0.0);
  const auto ar = runPairedTest({base, base}, kMatchRate, {PairedTest::ApproximateRandomization, 300, 12345});
  EXPECT_DOUBLE_EQ(ar[1].p_value, 1.0 / 301);
}

TEST(PairedSignificance, ConstantSegmentsHaveAZeroInterval) {
  const auto all_right = segments(std::vector<int>(30, 1));
  const auto r = runPairedTest({all_right, all_right}, kMatchRate, {PairedTest::BootstrapResampling, 100, 7});
  EXPECT_DOUBLE_EQ(r[0].mean, 100.0);
  EXPECT_DOUBLE_EQ(r[0].ci, 0.0);
}

TEST(PairedSignificance, AClearlyBetterSystemIsSignificantAndANoisyTieIsNot) {
  const auto base = segments(alternating(60));
  const auto better = segments(std::vector<int>(60, 1));
  for (auto test : {PairedTest::BootstrapResampling, PairedTest::ApproximateRandomization}) {
    const auto r = runPairedTest({base, better}, kMatchRate, {test, 1000, 12345});
    EXPECT_DOUBLE_EQ(r[1].score, 100.0);
    EXPECT_LT(r[1].p_value, 0.01) << static_cast<int>(test);
    // The same score from other segments: a swap of right and wrong halves.
    std::vector<int> shifted = alternating(61);
    shifted.erase(shifted.begin());
    const auto tie = runPairedTest({base, segments(shifted)}, kMatchRate, {test, 1000, 12345});
    EXPECT_DOUBLE_EQ(tie[1].score, 50.0);
    EXPECT_GT(tie[1].p_value, 0.2) << static_cast<int>(test);
  }
}

TEST(PairedSignificance, FixedSeedGivesIdenticalResults) {
  const auto base = segments(alternating(25));
  auto other_matches = alternating(25);
  other_matches[0] = 1;
  other_matches[2] = 1;
  const auto other = segments(other_matches);
  for (auto test : {PairedTest::BootstrapResampling, PairedTest::ApproximateRandomization}) {
    const auto a = runPairedTest({base, other}, kMatchRate, {test, 500, 12345});
    const auto b = runPairedTest({base, other}, kMatchRate, {test, 500, 12345});
    EXPECT_EQ(a[1].p_value, b[1].p_value);
    EXPECT_EQ(a[1].mean, b[1].mean);
    EXPECT_EQ(a[1].ci, b[1].ci);
  }
}

TEST(PairedSignificance, WorksOnBleuStatistics) {
  // BLEU's sufficient statistics resampled; the real scores are corpus BLEU's.
  const std::vector<std::string> refs = {"the cat sat on a mat", "A man is riding a bicycle."};
  const std::vector<std::string> base = {"the cat sat on the mat", "A man rides a bike."};
  const auto stats = [&](const std::vector<std::string>& hyps) {
    std::vector<SegmentStatistics> out;
    for (const auto& s : bleuSegmentStatistics(hyps, {refs})) {
      SegmentStatistics v = {double(s.hypothesis_length), double(s.reference_length)};
      for (auto c : s.correct) v.push_back(double(c));
      for (auto t : s.total) v.push_back(double(t));
      out.push_back(v);
    }
    return out;
  };
  const ScoreFromSums bleu = [](const SegmentStatistics& v) {
    BleuStatistics s;
    s.hypothesis_length = int64_t(v[0]);
    s.reference_length = int64_t(v[1]);
    for (int n = 0; n < 4; ++n) s.correct[n] = int64_t(v[2 + n]), s.total[n] = int64_t(v[6 + n]);
    return scoreFromStatistics(s, {}).score;
  };
  const auto r = runPairedTest({stats(base), stats(refs)}, bleu, {PairedTest::BootstrapResampling, 100, 12345});
  EXPECT_NEAR(r[0].score, corpusBleu(base, {refs}).score, 1e-12);
  EXPECT_NEAR(r[1].score, 100.0, 1e-9);
}

TEST(PairedSignificance, BadInputIsAnError) {
  const auto base = segments({1, 0});
  EXPECT_THROW(runPairedTest({base}, kMatchRate, {}), std::invalid_argument);
  EXPECT_THROW(runPairedTest({base, segments({1})}, kMatchRate, {}), std::invalid_argument);
  EXPECT_THROW(runPairedTest({segments({}), segments({})}, kMatchRate, {}), std::invalid_argument);
}
