#pragma once
// Paired significance tests between MT systems as sacreBLEU 2.x runs them (Koehn 2004,
// "Statistical Significance Tests for Machine Translation Evaluation"; Riezler and Maxwell
// 2005, approximate randomization; Clark et al. 2011, MultEval): the first system is the
// baseline, every other one is compared with it on resamples of the segments' sufficient
// statistics, so any corpus metric works (BLEU, chrF).
// - Paired bootstrap resampling (default 1000 resamples): the same resampled segment sets
//   score the baseline and every system; each system's bootstrap mean and 95% confidence
//   half-width (half the distance between the 2.5% and 97.5% order statistics, sacreBLEU's
//   n//40 rule); p = (1 + #{resamples whose centred |delta| exceeds the real |delta|}) / (1 + n).
// - Paired approximate randomization (default 10000 trials): each trial swaps each segment
//   between the two systems with probability 1/2; p = (1 + #{trials whose |delta| exceeds the
//   real |delta|}) / (1 + n). No confidence interval (sacreBLEU's command line gives none).
// The random numbers come from a fixed-seed 64-bit Mersenne Twister (seed 12345 by default,
// sacreBLEU's), not from numpy's generator: results are deterministic, and p-values agree with
// sacreBLEU's within their resampling noise, not digit for digit.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace recurlab::metrics {

enum class PairedTest { BootstrapResampling, ApproximateRandomization };

struct PairedTestOptions {
  PairedTest test = PairedTest::BootstrapResampling;
  int64_t samples = 0;  // 0: 1000 resamples (bootstrap) or 10000 trials (randomization)
  uint64_t seed = 12345;
};

// One segment's sufficient statistics, as numbers that add up over segments.
using SegmentStatistics = std::vector<double>;
// The corpus score from summed statistics.
using ScoreFromSums = std::function<double(const SegmentStatistics& sums)>;

struct PairedResult {
  double score = 0;       // on the real test set
  double mean = 0;        // bootstrap mean (bootstrap only)
  double ci = 0;          // 95% confidence half-width around the mean (bootstrap only)
  bool has_p_value = false;  // false for the baseline
  double p_value = 0;
};

// sacreBLEU's estimate_ci: the mean of `scores`, and half the distance between the
// (n/40)-th smallest and the (n/40)-th largest (the 95% interval's half-width).
void meanAndConfidenceInterval(std::vector<double> scores, double& mean, double& half_width);

int64_t pairedTestSamples(const PairedTestOptions& options);

// systems[s][i]: system s's statistics of segment i; systems[0] is the baseline. Every system
// needs the same number of segments (at least one) and statistics of one length.
std::vector<PairedResult> runPairedTest(const std::vector<std::vector<SegmentStatistics>>& systems,
                                        const ScoreFromSums& score, const PairedTestOptions& options);

}  // namespace recurlab::metrics
