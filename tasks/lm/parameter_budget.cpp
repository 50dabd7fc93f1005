#include "tasks/lm/parameter_budget.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace recurlab::experiments {
namespace {

// The width nearest the budget under `count`: the first width at or over the budget by
// doubling (or max_width), bisection below it (counts are monotone in the width apart from
// single widths), then the neighbours.
int64_t nearestWidth(const std::function<int64_t(int64_t)>& count, int64_t budget,
                     int64_t max_width) {
  int64_t hi = 1;
  while (hi < max_width && count(hi) < budget) hi = std::min(hi * 2, max_width);
  int64_t lo = hi / 2 < 1 ? 1 : hi / 2;
  while (hi - lo > 1) {  // invariant (monotone parts): count(lo) < budget <= count(hi)
    const int64_t mid = lo + (hi - lo) / 2;
    (count(mid) < budget ? lo : hi) = mid;
  }
  int64_t best = lo;
  for (int64_t w = std::max<int64_t>(1, lo - 2); w <= std::min(max_width, lo + 3); ++w)
    if (std::llabs(count(w) - budget) < std::llabs(count(best) - budget)) best = w;
  return best;
}

// The quadratic through the counts at widths w0, w0+1, w0+2, checked at w0+3: a w² + b w + c
// with integer 2a, so that the prediction is exact. nullopt when the fourth count disagrees.
std::optional<std::function<int64_t(int64_t)>> quadraticCount(
    const std::function<int64_t(int64_t)>& parameters_at, int64_t w0) {
  std::array<int64_t, 4> p{};
  for (int i = 0; i < 4; ++i) p[static_cast<size_t>(i)] = parameters_at(w0 + i);
  const int64_t d1 = p[1] - p[0], d2 = p[2] - p[1];
  const int64_t two_a = d2 - d1;  // second difference
  if (p[3] - p[2] - d2 != two_a) return std::nullopt;
  // count(w) = p0 + d1 (w - w0) + two_a (w - w0)(w - w0 - 1) / 2, exact in integers.
  return [=](int64_t w) {
    const int64_t k = w - w0;
    return p[0] + d1 * k + two_a * (k * (k - 1) / 2);
  };
}

}  // namespace

BudgetFit fitWidthToBudget(const std::function<int64_t(int64_t)>& parameters_at, int64_t budget,
                           double tolerance, const std::string& key, int64_t max_width,
                           int64_t probe_from) {
  if (budget < 1) throw std::invalid_argument(key + ": the budget must be a positive count");
  int64_t counted = 0;
  auto real = [&](int64_t w) {
    ++counted;
    return parameters_at(w);
  };
  BudgetFit best;
  const int64_t w0 = std::max<int64_t>(1, probe_from);
  const auto predicted = w0 + 3 <= max_width ? quadraticCount(real, w0) : std::nullopt;
  if (predicted) {
    best.width = nearestWidth(*predicted, budget, max_width);
    best.parameters = real(best.width);
  }
  if (!predicted || best.parameters != (*predicted)(best.width)) {
    best.width = nearestWidth(real, budget, max_width);
    best.parameters = real(best.width);
  }
  best.relative_error = static_cast<double>(best.parameters - budget) / static_cast<double>(budget);
  best.models_counted = counted;
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
