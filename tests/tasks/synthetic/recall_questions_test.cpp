// Which item each recall question asks for and how far back, on hand-computed splits, on every
// recall task's sampled data, and nothing for the state-tracking tasks.
#include "tasks/synthetic/recall_questions.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tasks/synthetic/recall_tasks.h"

namespace recurlab::experiments {
namespace {

constexpr int64_t N = kNoTarget;

torch::Tensor longs(const std::vector<int64_t>& values, int64_t rows) {
  return torch::tensor(values, torch::kInt64).view({rows, -1});
}

TEST(RecallQuestions, ItemIsTheAnswersPlaceAmongThoseShownAndLagItsDistance) {
  // Row 0 is the MQAR sequence of keys 3, 1 with values 5, 7 (recall_tasks_test): key 1 (the
  // second pair, value at 3) asked at 4, key 3 (the first, value at 1) at 6. Row 1 asks one
  // question about an answer at 0, from position 7.
  SyntheticSplit split;
  split.tokens = longs({3, 5, 1, 7, 1, 0, 3, 0, /**/ 2, 0, 0, 0, 0, 0, 0, 2}, 2);
  split.targets = longs({N, N, N, N, 7, N, 5, N, /**/ N, N, N, N, N, N, N, 9}, 2);
  split.sources = longs({N, N, N, N, 3, N, 1, N, /**/ N, N, N, N, N, N, N, 0}, 2);
  const auto q = recallQuestions(split);
  EXPECT_EQ(q.item, (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(q.lag, (std::vector<int64_t>{1, 5, 7}));
}

TEST(RecallQuestions, AnAnswerNamesTheItemOfTheShownAnswerItEqualsOrNone) {
  // Row 0: MQAR with values 5, 7 (items 1, 2), asked for 7 then 5; row 1 selective copying of
  // 4, 4, 6 (items 1-3, two alike), asked for each in turn.
  SyntheticSplit split;
  split.tokens = longs({3, 5, 1, 7, 1, 3, /**/ 4, 4, 6, 1, 1, 1}, 2);
  split.targets = longs({N, N, N, N, 7, 5, /**/ N, N, N, 4, 4, 6}, 2);
  split.sources = longs({N, N, N, N, 3, 1, /**/ N, N, N, 0, 1, 2}, 2);
  // Right (item 2); 7 for 5, the other pair's value (item 2); right on the first 4 (item 1); 6
  // for the second 4 (item 3); a 4 for the 6 (the earliest 4: item 1).
  EXPECT_EQ(answeredItems(split, {7, 7, 4, 6, 4}), (std::vector<int64_t>{2, 2, 1, 3, 1}));
  // Right twice; 9, shown nowhere (0); right on the second 4 (its own item 2, not the earliest
  // 4's 1); 3, a key of row 0 but none of row 1's answers (0).
  EXPECT_EQ(answeredItems(split, {7, 5, 9, 4, 3}), (std::vector<int64_t>{2, 1, 0, 2, 0}));
  EXPECT_THROW(answeredItems(split, {7, 5, 9}), std::invalid_argument);
  EXPECT_THROW(answeredItems(split, {7, 5, 9, 4, 3, 1}), std::invalid_argument);
}

TEST(RecallQuestions, EveryRecallTasksSampledQuestionsPointBackToTheirAnswer) {
  for (const std::string kind : {"mqar", "selective_copy", "induction"}) {
    SCOPED_TRACE(kind);
    const auto spec = SyntheticTaskSpec::fromJson(
        kind, {{"kind", kind}, {"vocabulary", 64}, {"train_length", 24}, {"test_length", 24},
               {"test_min_length", 16}, {"train_examples", 3}, {"test_examples", 30}},
        "test");
    const auto data = makeSyntheticData(spec, 5);
    EXPECT_FALSE(data.train.sources.defined());  // only the test split is scored per question
    const auto& split = data.test;
    const auto q = recallQuestions(split);
    const auto asked = split.targets.ne(N);
    ASSERT_EQ(static_cast<int64_t>(q.item.size()), asked.sum().item<int64_t>());
    // The answer stands `lag` positions before its question; items run 1..the row's questions.
    const auto positions = asked.nonzero();
    const int64_t per_row = spec.kind == "induction" ? 1 : spec.test.count;
    for (size_t i = 0; i < q.item.size(); ++i) {
      const int64_t row = positions[i][0].item<int64_t>(), at = positions[i][1].item<int64_t>();
      ASSERT_GE(q.lag[i], 1);
      EXPECT_EQ(split.tokens[row][at - q.lag[i]].item<int64_t>(), split.targets[row][at].item<int64_t>());
      EXPECT_GE(q.item[i], 1);
      EXPECT_LE(q.item[i], per_row);
    }
  }
}

TEST(RecallQuestions, StateTrackingTasksHaveNone) {
  const auto spec = SyntheticTaskSpec::fromJson(
      "p", {{"kind", "parity"}, {"train_length", 12}, {"train_examples", 8}}, "test");
  EXPECT_TRUE(recallQuestions(makeSyntheticData(spec, 1).test).empty());
}

TEST(RecallQuestions, AQuestionWhoseAnswerWasNotShownBeforeItIsRefused) {
  SyntheticSplit split;
  split.tokens = longs({1, 2, 3}, 1);
  split.targets = longs({N, N, 3}, 1);
  split.sources = longs({N, N, 2}, 1);  // the answer at the question itself
  EXPECT_THROW(recallQuestions(split), std::logic_error);
}

}  // namespace
}  // namespace recurlab::experiments
