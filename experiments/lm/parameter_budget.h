#pragma once
// Sizing a model's hidden width to a parameter budget. A model's trainable parameter count is
// a quadratic in its width for every encoder of the registry (weights width x width and
// width x input, biases and norms width, the embedding and the softmax fixed or width x
// vocabulary), so four small models (widths 8..11) give the quadratic, the fourth checking the
// fit of the first three; the nearest width is then solved from it, and only the chosen width's
// count is taken from a model of full size. Where the counts are not that quadratic (a layer
// whose shape changes with its width, e.g. an SRU drops its skip matrix when its input width
// equals its width, and the chosen width is such a one) the search falls back to counting real
// models (doubling, bisection, neighbours).
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
                           int64_t max_width = 1 << 15);

}  // namespace recurlab::experiments
