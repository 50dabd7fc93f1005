#include "metrics/paired_bleu.h"

namespace recurlab::metrics {

SegmentStatistics bleuStatisticsAsNumbers(const BleuStatistics& s) {
  SegmentStatistics v = {static_cast<double>(s.hypothesis_length),
                         static_cast<double>(s.reference_length)};
  for (auto c : s.correct) v.push_back(static_cast<double>(c));
  for (auto t : s.total) v.push_back(static_cast<double>(t));
  return v;
}

BleuStatistics bleuStatisticsFromNumbers(const SegmentStatistics& v) {
  BleuStatistics s;
  s.hypothesis_length = static_cast<int64_t>(v.at(0));
  s.reference_length = static_cast<int64_t>(v.at(1));
  for (int n = 0; n < 4; ++n) {
    s.correct[n] = static_cast<int64_t>(v.at(2 + n));
    s.total[n] = static_cast<int64_t>(v.at(6 + n));
  }
  return s;
}

std::vector<PairedResult> pairedBleuTest(const std::vector<std::vector<std::string>>& systems,
                                         const std::vector<std::vector<std::string>>& references,
                                         const BleuOptions& bleu, const PairedTestOptions& test) {
  std::vector<std::vector<SegmentStatistics>> statistics;
  for (const auto& hypotheses : systems) {
    std::vector<SegmentStatistics> segments;
    for (const auto& s : bleuSegmentStatistics(hypotheses, references, bleu))
      segments.push_back(bleuStatisticsAsNumbers(s));
    statistics.push_back(std::move(segments));
  }
  return runPairedTest(statistics,
                       [bleu](const SegmentStatistics& sums) {
                         return scoreFromStatistics(bleuStatisticsFromNumbers(sums), bleu).score;
                       },
                       test);
}

}  // namespace recurlab::metrics
