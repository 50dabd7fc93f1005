#pragma once
// Sizing a model's hidden width to a parameter budget. A model's trainable parameter count is
// a quadratic in its width for every encoder of the registry (weights width x width and
// width x input, biases and norms width, the embedding and the softmax fixed or width x
// vocabulary) above the widths where a layer changes shape (an SRU drops its skip matrix when
// its input width equals its width and uses its projection only when narrower than its width).
// So four small models (widths probe_from..probe_from+3, above every such width the caller
// knows of) give the quadratic, the fourth checking the fit of the first three; the nearest
// width is solved from it, and only the chosen width's count is taken from a model of full size.
// Where that count disagrees with the quadratic, or the four do not fit one, the search counts
// real models (doubling, bisection, neighbours).
#include <cstdint>
#include <functional>
#include <string>

namespace recurlab::experiments {

struct BudgetFit {
  int64_t width = 0;
  int64_t parameters = 0;
  double relative_error = 0;  // (parameters - budget) / budget
  int64_t models_counted = 0;  // calls of parameters_at
};

// `parameters_at(width)`: the trainable parameters of the model at that width. Throws
// std::invalid_argument naming `key` when no width in [1, max_width] comes within `tolerance`
// (relative) of `budget`.
BudgetFit fitWidthToBudget(const std::function<int64_t(int64_t width)>& parameters_at,
                           int64_t budget, double tolerance, const std::string& key,
                           int64_t max_width = 1 << 15, int64_t probe_from = 8);

}  // namespace recurlab::experiments
