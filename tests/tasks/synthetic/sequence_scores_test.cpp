// The suite's metric: a model that copies the answer scores 100% on every task's data, and a
// hand-computed case of accuracy over asked positions against exact match per sequence.
#include "tasks/synthetic/sequence_scores.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tasks/synthetic/synthetic_task_spec.h"

namespace recurlab::experiments {
namespace {

constexpr int64_t N = kNoTarget;

torch::Tensor longs(const std::vector<int64_t>& values, int64_t rows) {
  return torch::tensor(values, torch::kInt64).view({rows, -1});
}

// What an oracle predicts: the target where one is asked, token 0 elsewhere.
torch::Tensor copiedAnswers(const torch::Tensor& targets) { return targets.clamp_min(0); }

TEST(SyntheticScores, AModelThatCopiesTheAnswerGetsEverythingRightOnEveryTask) {
  for (const auto& kind : syntheticTaskKinds()) {
    SCOPED_TRACE(kind);
    const int64_t test_length = kind == "arithmetic" ? 15 : 24;  // odd for expressions
    nlohmann::json json = {{"kind", kind}, {"train_length", kind == "arithmetic" ? 9 : 16},
                           {"test_length", test_length},
                           {"train_examples", 5}, {"dev_examples", 3}, {"test_examples", 4}};
    if (kind == "mqar") json["vocabulary"] = 64;
    const auto spec = SyntheticTaskSpec::fromJson(kind, json, "test");
    const auto data = makeSyntheticData(spec, 11);
    // Selective copying appends a marker per data token (8 by default), the state-tracking
    // tasks their query token.
    const int64_t extra = kind == "selective_copy" ? 8 : kind == "mqar" || kind == "induction" ? 0 : 1;
    EXPECT_EQ(data.test.length(), test_length + extra);
    for (const auto* split : {&data.train, &data.dev, &data.test}) {
      const auto scores = scorePredictions(copiedAnswers(split->targets), split->targets);
      EXPECT_DOUBLE_EQ(scores.accuracy(), 1.0);
      EXPECT_DOUBLE_EQ(scores.exactMatch(), 1.0);
      EXPECT_LT(split->targets.max().item<int64_t>(), spec.outputClasses());
      EXPECT_LT(split->tokens.max().item<int64_t>(), spec.inputVocabulary());
    }
  }
}

TEST(SyntheticScores, AccuracyCountsAskedPositionsExactMatchCountsSequences) {
  const auto targets = longs({N, 3, N, 4, N, 5, 6, N}, 2);
  // Sequence 0 right at both asked positions; sequence 1 wrong at its second one (6 -> 2), and
  // wrong where nothing is asked (which does not count).
  const auto predictions = longs({0, 3, 0, 4, 9, 5, 2, 9}, 2);
  const auto s = scorePredictions(predictions, targets);
  EXPECT_EQ(s.correct, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(s.asked, (std::vector<int64_t>{2, 2}));
  EXPECT_DOUBLE_EQ(s.accuracy(), 0.75);
  EXPECT_DOUBLE_EQ(s.exactMatch(), 0.5);
  EXPECT_EQ(s.perSequenceAccuracy(), (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(s.question_correct, (std::vector<uint8_t>{1, 1, 1, 0}));  // row by row
  EXPECT_EQ(s.question_prediction, (std::vector<int64_t>{3, 4, 5, 2}));
  auto both = s;
  both.append(scorePredictions(longs({3, 0}, 1), longs({3, N}, 1)));
  EXPECT_EQ(both.question_correct, (std::vector<uint8_t>{1, 1, 1, 0, 1}));
  EXPECT_EQ(both.question_prediction, (std::vector<int64_t>{3, 4, 5, 2, 3}));
  EXPECT_EQ(both.asked, (std::vector<int64_t>{2, 2, 1}));
}

TEST(SyntheticScores, PredictionsAtTheAskedPositionsAreSpreadRowByRow) {
  const auto targets = longs({N, 3, N, 4, N, 5, 6, N}, 2);
  const auto spread = spreadAskedPredictions(longs({3, 1, 5, 6}, 1).view({-1}), targets);
  const auto s = scorePredictions(spread, targets);
  EXPECT_EQ(s.correct, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(spread.eq(targets).sum().item<int64_t>(), 3);  // never right where nothing is asked
}

TEST(SyntheticScores, DataAreTheSameForTheSameSeedAndDifferForAnother) {
  const auto spec = SyntheticTaskSpec::fromJson(
      "p", {{"kind", "parity"}, {"train_length", 12}, {"train_examples", 8}}, "test");
  const auto a = makeSyntheticData(spec, 1), b = makeSyntheticData(spec, 1), c = makeSyntheticData(spec, 2);
  EXPECT_TRUE(a.train.tokens.equal(b.train.tokens));
  EXPECT_FALSE(a.train.tokens.equal(c.train.tokens));
  EXPECT_FALSE(a.train.tokens.equal(a.dev.tokens.narrow(0, 0, 8)));
}

}  // namespace
}  // namespace recurlab::experiments
