#pragma once
// One example of a synthetic capability task (docs/synthetic.md): the input tokens and, at
// the positions the task asks about, the answer; every other position has kNoTarget. Inputs
// never hold an answer after the position that asks for it, so an encoder that looks ahead
// gains nothing by it.
#include <cstdint>
#include <vector>

namespace recurlab::experiments {

constexpr int64_t kNoTarget = -1;

struct SyntheticSequence {
  std::vector<int64_t> tokens;
  std::vector<int64_t> targets;  // the same length; kNoTarget where nothing is asked
  // Recall tasks only (the answer stands in the input): at each asked position, the position
  // where its answer was shown, kNoTarget elsewhere. Empty where answers are computed (the
  // state-tracking tasks).
  std::vector<int64_t> sources;
};

}  // namespace recurlab::experiments
