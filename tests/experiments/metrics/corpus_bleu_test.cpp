// Corpus BLEU against the worked cases of reference-mt.md §1, each hand-computed and checked
// with sacreBLEU 2.6.0.
#include "experiments/metrics/corpus_bleu.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace recurlab::metrics;

namespace {
BleuScore bleu(const std::vector<std::string>& hyp, const std::vector<std::string>& ref,
               BleuOptions options = {}) {
  return corpusBleu(hyp, {ref}, options);
}
}  // namespace

TEST(CorpusBleu, E1OneSubstitution) {
  const auto s = bleu({"the cat sat on the mat"}, {"the cat sat on a mat"});
  EXPECT_NEAR(s.score, 100.0 * std::pow(1.0 / 12.0, 0.25), 1e-9);
  EXPECT_NEAR(s.score, 53.7285, 5e-5);
  EXPECT_EQ(s.statistics.correct, (std::array<int64_t, 4>{5, 3, 2, 1}));
  EXPECT_EQ(s.statistics.total, (std::array<int64_t, 4>{6, 5, 4, 3}));
  EXPECT_DOUBLE_EQ(s.brevity_penalty, 1.0);
}

TEST(CorpusBleu, E2ExpSmoothingAndBrevityPenalty) {
  const auto s = bleu({"A man rides a bike."}, {"A man is riding a bicycle."});
  EXPECT_EQ(s.statistics.hypothesis_length, 6);
  EXPECT_EQ(s.statistics.reference_length, 7);
  EXPECT_EQ(s.statistics.correct, (std::array<int64_t, 4>{4, 1, 0, 0}));
  EXPECT_NEAR(s.precisions[2], 100.0 / 8, 1e-12);
  EXPECT_NEAR(s.precisions[3], 100.0 / 12, 1e-12);
  EXPECT_NEAR(s.brevity_penalty, std::exp(-1.0 / 6.0), 1e-12);
  EXPECT_NEAR(s.score, 16.3412, 5e-5);
  EXPECT_EQ(formatBleu(s, bleuSignature({}, 1)),
            "BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 16.3 "
            "66.7/20.0/12.5/8.3 (BP = 0.846 ratio = 0.857 hyp_len = 6 ref_len = 7)");
}

TEST(CorpusBleu, E2OtherSmoothingsAndNoTokenization) {
  const std::vector<std::string> hyp = {"A man rides a bike."}, ref = {"A man is riding a bicycle."};
  BleuOptions floor;
  floor.smoothing = BleuSmoothing::Floor;
  EXPECT_NEAR(bleu(hyp, ref, floor).score, 8.69, 5e-3);
  EXPECT_EQ(bleuSignature(floor, 1),
            "nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:2.6.0");
  BleuOptions add_k;
  add_k.smoothing = BleuSmoothing::AddK;
  EXPECT_NEAR(bleu(hyp, ref, add_k).score, 27.48, 5e-3);
  BleuOptions none;
  none.smoothing = BleuSmoothing::None;
  EXPECT_EQ(bleu(hyp, ref, none).score, 0.0);
  BleuOptions raw;
  raw.tokenize = false;
  EXPECT_NEAR(bleu(hyp, ref, raw).score, 19.36, 5e-3);
}

TEST(CorpusBleu, E3EmptyHypothesisInAMultiSentenceCorpus) {
  const auto s = bleu({"Ein Hund läuft.", ""}, {"Ein Hund läuft.", "Zwei Männer spielen Fußball."});
  EXPECT_EQ(s.statistics.hypothesis_length, 4);
  EXPECT_EQ(s.statistics.reference_length, 9);
  for (double p : s.precisions) EXPECT_DOUBLE_EQ(p, 100.0);
  EXPECT_NEAR(s.score, 100.0 * std::exp(-1.25), 1e-9);
  EXPECT_EQ(formatBleu(s, "x").substr(0, 14), "BLEU|x = 28.7 ");
}

TEST(CorpusBleu, CorpusStatisticsAreSummedBeforeScoring) {
  // Mean of sentence scores would differ: the corpus sums matches and lengths first.
  const auto s = bleu({"the cat sat on the mat", "A man rides a bike."},
                      {"the cat sat on a mat", "A man is riding a bicycle."});
  EXPECT_EQ(s.statistics.correct, (std::array<int64_t, 4>{9, 4, 2, 1}));
  EXPECT_EQ(s.statistics.total, (std::array<int64_t, 4>{12, 10, 8, 6}));
  EXPECT_NEAR(s.brevity_penalty, std::exp(1.0 - 13.0 / 12.0), 1e-12);
  const double expected = std::exp(1.0 - 13.0 / 12.0) *
                          std::pow(9.0 / 12 * 4.0 / 10 * 2.0 / 8 * 1.0 / 6, 0.25) * 100;
  EXPECT_NEAR(s.score, expected, 1e-9);
}

TEST(CorpusBleu, ZeroMatchesAndEmptyCorporaScoreZero) {
  const auto none = bleu({"x y z w v"}, {"a b c d e"});
  EXPECT_EQ(none.score, 0.0);
  EXPECT_EQ(none.statistics.correct, (std::array<int64_t, 4>{0, 0, 0, 0}));
  EXPECT_EQ(bleu({""}, {"a b"}).score, 0.0);
  EXPECT_EQ(bleu({""}, {"a b"}).brevity_penalty, 0.0);
  // Shorter than four tokens: 0 even against itself, 100 with the effective order.
  EXPECT_EQ(bleu({"Ein Hund"}, {"Ein Hund"}).score, 0.0);
  BleuOptions effective;
  effective.effective_order = true;
  EXPECT_NEAR(bleu({"Ein Hund"}, {"Ein Hund"}, effective).score, 100.0, 1e-9);
}

TEST(CorpusBleu, ClipsAtTheReferenceCountAndPicksTheClosestReference) {
  // "the the the the" vs "the cat": unigram matches clipped at 1.
  const auto s = bleu({"the the the the"}, {"the cat"});
  EXPECT_EQ(s.statistics.correct[0], 1);
  // Two references of lengths 3 and 5 for a 4-token hypothesis: tie -> the shorter.
  const auto two = corpusBleu({"a b c d"}, {{"a b c"}, {"a b c d e"}});
  EXPECT_EQ(two.statistics.reference_length, 3);
  EXPECT_EQ(two.statistics.correct, (std::array<int64_t, 4>{4, 3, 2, 1}));
  EXPECT_EQ(bleuSignature({}, 2).substr(0, 8), "nrefs:2|");
}

TEST(CorpusBleu, LowercasedVariant) {
  BleuOptions lc;
  lc.lowercase = true;
  EXPECT_NEAR(bleu({"ZWEI MÄNNER SPIELEN FUSSBALL ."}, {"zwei männer spielen fussball."}, lc).score,
              100.0, 1e-9);
  EXPECT_LT(bleu({"ZWEI MÄNNER SPIELEN FUSSBALL ."}, {"zwei männer spielen fussball."}).score, 50);
  EXPECT_EQ(bleuSignature(lc, 1), "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0");
}

TEST(CorpusBleu, LineCountMismatchIsAnError) {
  try {
    bleu({"a", "b"}, {"a"});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2 lines"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("has 1"), std::string::npos) << e.what();
  }
}
