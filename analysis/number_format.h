#pragma once
// The number formats every report and table uses.
#include <string>

namespace recurlab::analysis {

// `significant` digits, fixed notation in [1e-3, 1e5), scientific outside; "nan", "inf".
std::string formatNumber(double value, int significant = 3);
// "0.334 ± 0.002": the error with 1 significant digit (2 when it starts with 1), the value
// to the same decimal place.
std::string formatWithError(double value, double error);
// Fixed decimals ("76.1"); "–" when not finite.
std::string formatFixed(double value, int decimals = 1);
// A fraction as a percentage with fixed decimals (0.934 -> "93.4"); "–" when not finite.
std::string formatPercent(double fraction, int decimals = 1);
// An integer with thousands separators ("1,905,302"), as counts of parameters read best.
std::string formatCount(long long value);

}  // namespace recurlab::analysis
