#include "analysis/number_format.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace recurlab::analysis {

std::string formatNumber(double value, int significant) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const double a = std::fabs(value);
  if (value == 0.0) return "0";
  if (a >= 1e-3 && a < 1e5) {
    const int digits_before = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
    int decimals = significant - digits_before;
    if (a < 1) decimals = significant - static_cast<int>(std::floor(std::log10(a))) - 1;
    if (decimals < 0) decimals = 0;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  } else {
    std::snprintf(buf, sizeof buf, "%.*e", significant - 1, value);
  }
  return buf;
}

std::string formatWithError(double value, double error) {
  if (!std::isfinite(error) || error <= 0) return formatNumber(value);
  const int exp = static_cast<int>(std::floor(std::log10(error)));
  const double lead = error / std::pow(10.0, exp);
  const int place = lead < 2 ? exp - 1 : exp;  // last decimal place shown
  const int decimals = place < 0 ? -place : 0;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.*f ± %.*f", decimals, value, decimals, error);
  return buf;
}

std::string formatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return "–";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string formatCount(long long value) {
  const std::string digits = std::to_string(value < 0 ? -static_cast<unsigned long long>(value)
                                                      : static_cast<unsigned long long>(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string formatPercent(double fraction, int decimals) { return formatFixed(100 * fraction, decimals); }

}  // namespace recurlab::analysis
