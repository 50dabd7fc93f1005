#include "analysis/sample_statistics.h"

#include <algorithm>
#include <cmath>

namespace recurlab::analysis {

double mean(const std::vector<double>& xs) {
  if (xs.empty()) return NAN;
  double s = 0;
  for (double x : xs) s += x;
  return s / static_cast<double>(xs.size());
}

double median(std::vector<double> xs) {
  if (xs.empty()) return NAN;
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

}  // namespace recurlab::analysis
