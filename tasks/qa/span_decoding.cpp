#include "tasks/qa/span_decoding.h"

#include <algorithm>
#include <stdexcept>

namespace recurlab::experiments::qa {

Span bestSpan(const std::vector<double>& start_probs, const std::vector<double>& end_probs,
              int64_t max_len) {
  if (start_probs.size() != end_probs.size())
    throw std::invalid_argument("bestSpan: start and end scores differ in length");
  if (max_len < 1) throw std::invalid_argument("bestSpan: max_len must be >= 1");
  const auto n = static_cast<int64_t>(start_probs.size());
  Span best;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t e = s; e < std::min(n, s + max_len); ++e) {
      const double score = start_probs[static_cast<size_t>(s)] * end_probs[static_cast<size_t>(e)];
      if (best.start < 0 || score > best.score) best = {s, e, score};
    }
  return best;
}

}  // namespace recurlab::experiments::qa
