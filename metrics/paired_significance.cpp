#include "metrics/paired_significance.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace recurlab::metrics {
namespace {

// A uniform integer in [0, n) by rejection, the same on every platform (unlike
// std::uniform_int_distribution, whose algorithm the standard leaves open).
uint64_t uniformBelow(std::mt19937_64& rng, uint64_t n) {
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t r = rng();
    if (r >= threshold) return r % n;
  }
}

void addInto(SegmentStatistics& sum, const SegmentStatistics& x) {
  for (size_t k = 0; k < sum.size(); ++k) sum[k] += x[k];
}

SegmentStatistics sumAll(const std::vector<SegmentStatistics>& segments, size_t width) {
  SegmentStatistics sum(width, 0.0);
  for (const auto& s : segments) addInto(sum, s);
  return sum;
}

double pValue(const std::vector<double>& statistics, double real_difference) {
  int64_t exceeding = 0;
  for (double s : statistics) exceeding += s > real_difference ? 1 : 0;
  return static_cast<double>(exceeding + 1) / static_cast<double>(statistics.size() + 1);
}

}  // namespace

void meanAndConfidenceInterval(std::vector<double> scores, double& mean, double& half_width) {
  if (scores.empty()) throw std::invalid_argument("a confidence interval needs at least one score");
  std::sort(scores.begin(), scores.end());
  const size_t n = scores.size(), lower = n / 40, upper = n - lower - 1;
  half_width = 0.5 * (scores[upper] - scores[lower]);
  double total = 0;
  for (double s : scores) total += s;
  mean = total / static_cast<double>(n);
}

int64_t pairedTestSamples(const PairedTestOptions& options) {
  if (options.samples > 0) return options.samples;
  return options.test == PairedTest::BootstrapResampling ? 1000 : 10000;
}

std::vector<PairedResult> runPairedTest(const std::vector<std::vector<SegmentStatistics>>& systems,
                                        const ScoreFromSums& score, const PairedTestOptions& options) {
  if (systems.size() < 2) throw std::invalid_argument("a paired test needs a baseline and at least one system");
  const size_t segments = systems[0].size();
  if (segments == 0) throw std::invalid_argument("a paired test needs at least one segment");
  const size_t width = systems[0][0].size();
  for (const auto& system : systems) {
    if (system.size() != segments)
      throw std::invalid_argument("paired test: systems of " + std::to_string(segments) + " and " +
                                  std::to_string(system.size()) + " segments");
    for (const auto& s : system)
      if (s.size() != width) throw std::invalid_argument("paired test: statistics of different lengths");
  }
  const int64_t samples = pairedTestSamples(options);
  std::vector<PairedResult> results(systems.size());
  for (size_t s = 0; s < systems.size(); ++s) results[s].score = score(sumAll(systems[s], width));

  if (options.test == PairedTest::BootstrapResampling) {
    // One resample of segment indices serves every system, the baseline included.
    std::vector<std::vector<double>> resampled(systems.size(), std::vector<double>(samples));
    std::mt19937_64 rng(options.seed);
    std::vector<size_t> indices(segments);
    for (int64_t j = 0; j < samples; ++j) {
      for (auto& index : indices) index = uniformBelow(rng, segments);
      for (size_t s = 0; s < systems.size(); ++s) {
        SegmentStatistics sum(width, 0.0);
        for (size_t index : indices) addInto(sum, systems[s][index]);
        resampled[s][j] = score(sum);
      }
    }
    for (size_t s = 0; s < systems.size(); ++s)
      meanAndConfidenceInterval(resampled[s], results[s].mean, results[s].ci);
    for (size_t s = 1; s < systems.size(); ++s) {
      std::vector<double> differences(samples);
      double mean_difference = 0;
      for (int64_t j = 0; j < samples; ++j) {
        differences[j] = std::abs(resampled[s][j] - resampled[0][j]);
        mean_difference += differences[j];
      }
      mean_difference /= static_cast<double>(samples);
      for (auto& d : differences) d -= mean_difference;  // centred: the null hypothesis
      results[s].has_p_value = true;
      results[s].p_value = pValue(differences, std::abs(results[0].score - results[s].score));
    }
  } else {
    for (size_t s = 1; s < systems.size(); ++s) {
      std::mt19937_64 rng(options.seed);  // the same swaps for every system, as sacreBLEU
      std::vector<double> differences(samples);
      for (int64_t j = 0; j < samples; ++j) {
        SegmentStatistics a(width, 0.0), b(width, 0.0);
        uint64_t bits = 0;
        for (size_t i = 0; i < segments; ++i) {
          if (i % 64 == 0) bits = rng();
          const bool swap = (bits >> (i % 64)) & 1;
          addInto(swap ? b : a, systems[0][i]);
          addInto(swap ? a : b, systems[s][i]);
        }
        differences[j] = std::abs(score(a) - score(b));
      }
      results[s].has_p_value = true;
      results[s].p_value = pValue(differences, std::abs(results[0].score - results[s].score));
    }
  }
  return results;
}

}  // namespace recurlab::metrics
