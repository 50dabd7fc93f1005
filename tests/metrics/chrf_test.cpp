// chrF / chrF++ against sacreBLEU 2.6.0's own test expectations (test/test_chrf.py) and a
// hand-computed chrF++ case.
#include "metrics/chrf.h"

#include <gtest/gtest.h>

using namespace recurlab::metrics;

namespace {
double chrf(const std::vector<std::string>& hyp, const std::vector<std::string>& ref,
            const ChrfOptions& options) {
  return corpusChrf(hyp, {ref}, options).score;
}
ChrfOptions beta3(bool eps) {
  ChrfOptions o;
  o.beta = 3;
  o.eps_smoothing = eps;
  return o;
}
}  // namespace

TEST(Chrf, SacreBleuEpsilonSmoothingCases) {
  const auto o = beta3(true);
  EXPECT_NEAR(chrf({"abcdefg"}, {"hijklmnop"}, o), 0.0, 1e-4);
  EXPECT_NEAR(chrf({""}, {"reference"}, o), 0.0, 1e-4);
  EXPECT_NEAR(chrf({"aa"}, {"ab"}, o), 8.3333, 1e-4);
  EXPECT_NEAR(chrf({"a", "b"}, {"a", "c"}, o), 8.3333, 1e-4);
  EXPECT_NEAR(chrf({"a"}, {"a"}, o), 16.6667, 1e-4);
  EXPECT_NEAR(chrf({"a b c"}, {"abc"}, o), 50.0, 1e-4);
  EXPECT_NEAR(chrf({" risk assessment must be made of those who are qualified and expertise in the "
                    "sector - these are the scientists ."},
                   {"risk assessment has to be undertaken by those who are qualified and expert in "
                    "that area - that is the scientists ."},
                   o),
              63.361730, 1e-4);
  EXPECT_NEAR(chrf({" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
                   {"Das Verh\xC3\xA4ltnis zwischen Obama und Netanyahu ist nicht gerade "
                    "freundschaftlich."},
                   o),
              64.1302698, 1e-4);
}

TEST(Chrf, SacreBleuEffectiveOrderCases) {
  const auto o = beta3(false);  // sacreBLEU 2.x's default smoothing
  EXPECT_NEAR(chrf({"a"}, {"a"}, o), 100.0, 1e-4);
  EXPECT_NEAR(chrf({""}, {"reference"}, o), 0.0, 1e-4);
  EXPECT_NEAR(chrf({"a b c"}, {"abc"}, o), 100.0, 1e-4);
  EXPECT_NEAR(chrf({"a", "b"}, {"a", "c"}, o), 50.0, 1e-4);
  EXPECT_NEAR(chrf({"aa"}, {"ab"}, o), 25.0, 1e-4);
}

TEST(Chrf, SacreBleuWhitespaceKeptCases) {
  auto o = beta3(false);
  o.whitespace = true;
  EXPECT_NEAR(chrf({"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
                   {"Das Verh\xC3\xA4ltnis zwischen Obama und Netanyahu ist nicht gerade "
                    "freundschaftlich."},
                   o),
              67.3481606, 1e-4);
}

TEST(Chrf, SacreBleuSentenceLevelCzechCase) {
  ChrfOptions o;  // beta 2, as sentence_chrf's default, with epsilon smoothing
  o.eps_smoothing = true;
  EXPECT_NEAR(chrf({"Lapali po dechu, jejich \xC5\xBEivoty skon\xC4\x8Dily d\xC5\x99\xC3\xADv, "
                    "ne\xC5\xBE skute\xC4\x8Dn\xC4\x9B za\xC4\x8D" "aly."},
                   {"Lapali po dechu a pak jejich \xC5\xBEivot skon\xC4\x8Dil - d\xC5\x99\xC3\xADv, "
                    "ne\xC5\xBE skute\xC4\x8Dn\xC4\x9B mohl za\xC4\x8D\xC3\xADt, p\xC5\x99ipomn\xC4\x9Bli."},
                   o),
              57.15704367, 1e-4);
}

TEST(Chrf, ChrfPlusPlusWordNgramsHandComputed) {
  // Character order 1, word orders 1-2, beta 1: "a b." vs "a b". Characters a b . vs a b:
  // P 2/3, R 1. Words (the final '.' split off) a b . vs a b: P 2/3, R 1; bigrams "a b" "b ."
  // vs "a b": P 1/2, R 1. Mean P = 11/18, R = 1; F1 = 2PR/(P+R) = 22/29.
  ChrfOptions o;
  o.char_order = 1;
  o.word_order = 2;
  o.beta = 1;
  const auto s = corpusChrf({"a b."}, {{"a b"}}, o);
  EXPECT_NEAR(s.score, 100.0 * 22 / 29, 1e-9);
  EXPECT_EQ(s.statistics, (ChrfStatistics{3, 2, 2, 3, 2, 2, 2, 1, 1}));
  EXPECT_EQ(chrfName(o), "chrF1++");
}

TEST(Chrf, BestReferencePerSegmentAndSignature) {
  ChrfOptions o;
  // The second reference matches exactly: it is the one used.
  EXPECT_NEAR(corpusChrf({"a cat"}, {{"the dog"}, {"a cat"}}, o).score, 100.0, 1e-9);
  EXPECT_EQ(chrfName(o), "chrF2");
  EXPECT_EQ(chrfSignature(o, 1), "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0");
  o.word_order = 2;
  EXPECT_EQ(chrfName(o), "chrF2++");
  EXPECT_THROW(corpusChrf({"a", "b"}, {{"a"}}, o), std::invalid_argument);
}
