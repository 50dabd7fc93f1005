#include "experiments/lm/parameter_budget.h"

#include <cmath>
#include <stdexcept>

namespace recurlab::experiments {

BudgetFit fitWidthToBudget(const std::function<int64_t(int64_t)>& parameters_at, int64_t budget,
                           double tolerance, const std::string& key, int64_t max_width) {
  if (budget < 1) throw std::invalid_argument(key + ": the budget must be a positive count");
  auto fit = [&](int64_t w) {
    BudgetFit f;
    f.width = w;
    f.parameters = parameters_at(w);
    f.relative_error = static_cast<double>(f.parameters - budget) / static_cast<double>(budget);
    return f;
  };
  // Doubling: the first width at or over the budget (or max_width).
  int64_t hi = 1;
  while (hi < max_width && parameters_at(hi) < budget) hi = std::min(hi * 2, max_width);
  int64_t lo = hi / 2 < 1 ? 1 : hi / 2;
  while (hi - lo > 1) {  // invariant (monotone parts): p(lo) < budget <= p(hi)
    const int64_t mid = lo + (hi - lo) / 2;
    (parameters_at(mid) < budget ? lo : hi) = mid;
  }
  BudgetFit best = fit(lo);
  for (int64_t w = std::max<int64_t>(1, lo - 2); w <= std::min(max_width, lo + 3); ++w) {
    const auto f = fit(w);
    if (std::abs(f.relative_error) < std::abs(best.relative_error)) best = f;
  }
  if (std::abs(best.relative_error) > tolerance)
    throw std::invalid_argument(
        key + " = " + std::to_string(budget) + " cannot be met within " +
        std::to_string(static_cast<int>(std::lround(tolerance * 100))) + "%: the nearest width " +
        std::to_string(best.width) + " gives " + std::to_string(best.parameters) +
        " parameters (widths 1.." + std::to_string(max_width) +
        " tried; the embedding and softmax alone may exceed the budget)");
  return best;
}

}  // namespace recurlab::experiments
