#include "tasks/synthetic/recall_questions.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

namespace {

// The row's answer positions, each once, in order: item i + 1 stands at shown[i].
std::vector<int64_t> shownAnswers(const int64_t* target, const int64_t* source, int64_t length,
                                  int64_t row) {
  std::vector<int64_t> shown;
  for (int64_t p = 0; p < length; ++p)
    if (target[p] != kNoTarget) {
      if (source[p] == kNoTarget || source[p] >= p)
        throw std::logic_error("recall questions: sequence " + std::to_string(row) +
                               " asks at position " + std::to_string(p) +
                               " for an answer not shown before it");
      shown.push_back(source[p]);
    }
  std::sort(shown.begin(), shown.end());
  shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
  return shown;
}

// Calls visit(row, position, shown answers) for every asked position, row by row in order.
template <typename Visit>
void forEachQuestion(const SyntheticSplit& split, Visit visit) {
  const auto targets = split.targets.contiguous(), sources = split.sources.contiguous();
  const int64_t rows = targets.size(0), length = targets.size(1);
  const int64_t* target = targets.data_ptr<int64_t>();
  const int64_t* source = sources.data_ptr<int64_t>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* t = target + r * length;
    const int64_t* s = source + r * length;
    const auto shown = shownAnswers(t, s, length, r);
    for (int64_t p = 0; p < length; ++p)
      if (t[p] != kNoTarget) visit(r, p, s[p], shown);
  }
}

int64_t itemOf(const std::vector<int64_t>& shown, int64_t source) {
  return std::lower_bound(shown.begin(), shown.end(), source) - shown.begin() + 1;
}

}  // namespace

RecallQuestions recallQuestions(const SyntheticSplit& split) {
  RecallQuestions q;
  if (!split.sources.defined()) return q;
  forEachQuestion(split, [&](int64_t, int64_t p, int64_t source, const std::vector<int64_t>& shown) {
    q.item.push_back(itemOf(shown, source));
    q.lag.push_back(p - source);
  });
  return q;
}

std::vector<int64_t> answeredItems(const SyntheticSplit& split,
                                   const std::vector<int64_t>& predictions) {
  std::vector<int64_t> items;
  if (!split.sources.defined()) return items;
  const auto tokens = split.tokens.contiguous();
  const int64_t length = tokens.size(1);
  const int64_t* token = tokens.data_ptr<int64_t>();
  forEachQuestion(split, [&](int64_t r, int64_t, int64_t source, const std::vector<int64_t>& shown) {
    const size_t i = items.size();
    if (i >= predictions.size())
      throw std::invalid_argument("answered items: " + std::to_string(predictions.size()) +
                                  " predictions for more questions than that");
    const int64_t* row = token + r * length;
    int64_t item = 0;
    if (predictions[i] == row[source]) {
      item = itemOf(shown, source);
    } else {
      for (size_t k = 0; k < shown.size() && item == 0; ++k)
        if (row[shown[k]] == predictions[i]) item = static_cast<int64_t>(k) + 1;
    }
    items.push_back(item);
  });
  if (items.size() != predictions.size())
    throw std::invalid_argument("answered items: " + std::to_string(predictions.size()) +
                                " predictions for " + std::to_string(items.size()) + " questions");
  return items;
}

}  // namespace recurlab::experiments
