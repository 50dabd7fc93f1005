#pragma once
// Paired significance tests of BLEU between MT systems (metrics/paired_significance.h
// on BLEU's sufficient statistics): the first system is the baseline.
#include <string>
#include <vector>

#include "metrics/corpus_bleu.h"
#include "metrics/paired_significance.h"

namespace recurlab::metrics {

// A segment's BLEU statistics as the numbers the tests add up: hypothesis and reference
// lengths, then the clipped matches and the totals of orders 1-4.
SegmentStatistics bleuStatisticsAsNumbers(const BleuStatistics& statistics);
BleuStatistics bleuStatisticsFromNumbers(const SegmentStatistics& numbers);

// systems[s]: system s's hypotheses (systems[0] the baseline); references[k][i]: the k-th
// reference of segment i. Line counts as corpusBleu checks them.
std::vector<PairedResult> pairedBleuTest(const std::vector<std::vector<std::string>>& systems,
                                         const std::vector<std::vector<std::string>>& references,
                                         const BleuOptions& bleu, const PairedTestOptions& test);

}  // namespace recurlab::metrics
