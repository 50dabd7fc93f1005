#pragma once
// What each question of a recall task asks for, so that accuracy can be split by it: which of
// the answers the sequence showed (its item: 1 for the first shown, as MQAR's first key-value
// pair) and how far back it was shown (its lag: positions from the answer to the question).
// A mixer that keeps only the last pair it read recalls item D and none before it; one whose
// memory fades recalls short lags only.
#include <cstdint>
#include <vector>

#include "tasks/synthetic/synthetic_task_spec.h"

namespace recurlab::experiments {

struct RecallQuestions {
  // One per asked position of the split, row by row and in position order within a row (the
  // order of SequenceScores::question_correct).
  std::vector<int64_t> item, lag;
  bool empty() const { return item.empty(); }
};

// Empty for a split without sources (the state-tracking tasks).
RecallQuestions recallQuestions(const SyntheticSplit& split);

// What each answer given was, as an item: for `predictions` (one per asked position, in the
// order above), the item of the sequence's shown answer the prediction equals, 0 where it is
// none of them. A right answer is its question's own item; a wrong answer that is another
// pair's value (a binding error) is that pair's item, the earliest where tokens repeat
// (selective copying; MQAR's values in a sequence are distinct). Empty without sources.
std::vector<int64_t> answeredItems(const SyntheticSplit& split,
                                   const std::vector<int64_t>& predictions);

}  // namespace recurlab::experiments
