#pragma once
// The answer span of the DrQA reader (Chen et al. 2017, §3.1): the token pair (s, e) with
// s <= e <= s + max_len - 1 maximising p_start(s) * p_end(e); ties go to the smallest s, then
// the smallest e (row-major argmax, as DrQA's decode).
#include <cstdint>
#include <vector>

namespace recurlab::experiments::qa {

struct Span {
  int64_t start = -1, end = -1;
  double score = 0;
};

Span bestSpan(const std::vector<double>& start_probs, const std::vector<double>& end_probs,
              int64_t max_len = 15);

}  // namespace recurlab::experiments::qa
