#pragma once
// Sizing a model's hidden width to a parameter budget: the width whose trainable parameter
// count is nearest the budget, found by doubling then bisection on `parameters_at(width)`
// (which builds the model, so every count is the real one), then the neighbours checked
// (counts need not be monotone: an SRU layer drops its skip matrix when its input width
// equals its width).
#include <cstdint>
#include <functional>
#include <string>

namespace recurlab::experiments {

struct BudgetFit {
  int64_t width = 0;
  int64_t parameters = 0;
  double relative_error = 0;  // (parameters - budget) / budget
};

// Throws std::invalid_argument naming `key` when no width in [1, max_width] comes within
// `tolerance` (relative) of `budget`.
BudgetFit fitWidthToBudget(const std::function<int64_t(int64_t width)>& parameters_at,
                           int64_t budget, double tolerance, const std::string& key,
                           int64_t max_width = 1 << 15);

}  // namespace recurlab::experiments
