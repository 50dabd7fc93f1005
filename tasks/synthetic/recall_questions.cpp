#include "tasks/synthetic/recall_questions.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

RecallQuestions recallQuestions(const SyntheticSplit& split) {
  RecallQuestions q;
  if (!split.sources.defined()) return q;
  const auto targets = split.targets.contiguous(), sources = split.sources.contiguous();
  const int64_t rows = targets.size(0), length = targets.size(1);
  const int64_t* target = targets.data_ptr<int64_t>();
  const int64_t* source = sources.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* t = target + r * length;
    const int64_t* s = source + r * length;
    std::vector<int64_t> shown;  // the row's answer positions, each once, in order
    for (int64_t p = 0; p < length; ++p)
      if (t[p] != kNoTarget) {
        if (s[p] == kNoTarget || s[p] >= p)
          throw std::logic_error("recall questions: sequence " + std::to_string(r) +
                                 " asks at position " + std::to_string(p) +
                                 " for an answer not shown before it");
        shown.push_back(s[p]);
      }
    std::sort(shown.begin(), shown.end());
    shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
    for (int64_t p = 0; p < length; ++p)
      if (t[p] != kNoTarget) {
        const auto at = std::lower_bound(shown.begin(), shown.end(), s[p]) - shown.begin();
        q.item.push_back(at + 1);
        q.lag.push_back(p - s[p]);
      }
  }
  return q;
}

}  // namespace recurlab::experiments
