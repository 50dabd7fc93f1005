// Corpus BLEU against worked cases, each hand-computed and checked
// with sacreBLEU 2.6.0.
#include "metrics/corpus_bleu.h"

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
  raw.tokenizer = BleuTokenizer::None;
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

// sacreBLEU's own expectations (test/test_bleu.py): three segments, two reference streams.
TEST(CorpusBleu, SacreBleuTwoReferenceCasesPerTokenizer) {
  const std::vector<std::string> hyps = {"The dog bit the man.", "It wasn't surprising.",
                                         "The man had just bitten him."};
  const std::vector<std::vector<std::string>> refs = {
      {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
      {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};
  EXPECT_NEAR(corpusBleu(hyps, refs).score, 48.530827, 1e-6);
  BleuOptions none, intl, no_smoothing;
  none.tokenizer = BleuTokenizer::None;
  intl.tokenizer = BleuTokenizer::Intl;
  no_smoothing.smoothing = BleuSmoothing::None;
  EXPECT_NEAR(corpusBleu(hyps, refs, none).score, 49.1919566, 1e-6);
  EXPECT_NEAR(corpusBleu(hyps, refs, intl).score, 43.91623493, 1e-6);
  EXPECT_NEAR(corpusBleu(hyps, refs, no_smoothing).score, 48.530827, 1e-6);
  EXPECT_EQ(corpusBleu({"", "", ""}, refs).score, 0.0);
}

// sacreBLEU's test/test_sentence_bleu.py: one Romanian sentence, sentence BLEU (effective order).
TEST(CorpusBleu, SacreBleuSentenceCasesPerTokenizerAndSmoothing) {
  const std::string ref = "produc\xC5\xA3ia de zah\xC4\x83r brut se exprim\xC4\x83 \xC3\xAEn zah\xC4\x83r alb;";
  const std::string hyp = "Produc\xC8\x9Bia de zah\xC4\x83r prim\xC4\x83 va fi exprimat\xC4\x83 \xC3\xAEn ceea "
                          "ce prive\xC8\x99te zah\xC4\x83rul alb;";
  const auto score = [&](BleuTokenizer tok, BleuSmoothing smoothing, double value, bool lc) {
    BleuOptions o;
    o.effective_order = true;
    o.tokenizer = tok;
    o.smoothing = smoothing;
    o.smooth_value = value;
    o.lowercase = lc;
    return corpusBleu({hyp}, {{ref}}, o).score;
  };
  const auto k13a = BleuTokenizer::k13a;
  EXPECT_NEAR(score(k13a, BleuSmoothing::Exp, -1, false), 8.493, 1e-3);
  EXPECT_NEAR(score(k13a, BleuSmoothing::None, -1, false), 0.0, 1e-3);
  EXPECT_NEAR(score(k13a, BleuSmoothing::Floor, -1, false), 4.51688, 1e-3);
  EXPECT_NEAR(score(k13a, BleuSmoothing::Floor, 0.5, false), 10.10, 1e-3);
  EXPECT_NEAR(score(k13a, BleuSmoothing::AddK, -1, false), 14.882, 1e-3);
  EXPECT_NEAR(score(k13a, BleuSmoothing::AddK, 2, false), 21.389, 1e-3);
  EXPECT_NEAR(score(BleuTokenizer::None, BleuSmoothing::Exp, -1, false), 7.347, 1e-3);
  EXPECT_NEAR(score(BleuTokenizer::Intl, BleuSmoothing::Exp, -1, false), 8.493, 1e-3);
  EXPECT_NEAR(score(BleuTokenizer::Char, BleuSmoothing::Exp, -1, false), 40.8759, 1e-3);
  EXPECT_NEAR(score(BleuTokenizer::Char, BleuSmoothing::Exp, -1, true), 42.0267, 1e-3);
}

// The tokenized lowercased BLEU of the Multi30k papers: Moses-tokenized, lowercased, no
// smoothing (multi-bleu.perl / fairseq's scorer). Tokens: ein hund läuft über die|eine &quot;
// grüne &quot; wiese . -> matches 9/10, 7/9, 5/8, 3/7, BP 1: 100 * (3/16)^(1/4).
TEST(CorpusBleu, TokenizedLowercasedBleuHandComputed) {
  const auto tokenized = tokenizedLowercasedBleuOptions("de");
  EXPECT_TRUE(tokenized.lowercase);
  EXPECT_EQ(tokenized.tokenizer, BleuTokenizer::Moses);
  EXPECT_EQ(tokenized.smoothing, BleuSmoothing::None);
  EXPECT_THROW(tokenizedLowercasedBleuOptions("fr"), std::invalid_argument);
  const std::vector<std::string> hyp = {"Ein HUND l\xC3\xA4uft \xC3\xBC" "ber die \xE2\x80\x9Egr\xC3\xBCne\xE2\x80\x9C Wiese."};
  const std::vector<std::string> ref = {"Ein Hund l\xC3\xA4uft \xC3\xBC" "ber eine \xE2\x80\x9Egr\xC3\xBCne\xE2\x80\x9C Wiese."};
  const auto s = corpusBleu(hyp, {ref}, tokenized);
  EXPECT_EQ(s.statistics.correct, (std::array<int64_t, 4>{9, 7, 5, 3}));
  EXPECT_EQ(s.statistics.total, (std::array<int64_t, 4>{10, 9, 8, 7}));
  EXPECT_NEAR(s.score, 100.0 * std::pow(3.0 / 16.0, 0.25), 1e-9);
  EXPECT_EQ(bleuSignature(tokenized, 1),
            "nrefs:1|case:lc|eff:no|tok:moses-de|smooth:none|version:2.6.0");
  // sacreBLEU's default on the same raw text differs (case, „ “ attached to words).
  EXPECT_LT(corpusBleu(hyp, {ref}).score, s.score - 10);
}
