#pragma once
// The summaries the reports take of a sample of numbers (repetitions, rounds, seeds, epochs).
#include <vector>

namespace recurlab::analysis {

// The arithmetic mean; NaN for an empty sample.
double mean(const std::vector<double>& xs);

// The middle value (the mean of the two middle ones for an even count); NaN for an empty sample.
double median(std::vector<double> xs);

}  // namespace recurlab::analysis
