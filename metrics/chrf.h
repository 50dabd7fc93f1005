#pragma once
// chrF (Popović 2015, "chrF: character n-gram F-score for automatic MT evaluation") and chrF++
// (Popović 2017, word n-grams of orders 1-2 added), equal to sacreBLEU 2.6.0's CHRF: character
// n-grams of orders 1..6 on code points with whitespace (Python's set) removed first, word
// n-grams after splitting one leading or trailing ASCII punctuation character off each word;
// per segment the reference with the best F-score; statistics summed over the corpus; F-beta
// (beta 2) of the precision and recall averaged over the orders that have both hypothesis and
// reference n-grams (sacreBLEU 2.x's default; `eps_smoothing` gives chrF++.py's instead).
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::metrics {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;  // 2 = chrF++
  int beta = 2;
  bool lowercase = false;       // Python's str.lower() first
  bool whitespace = false;      // keep whitespace inside character n-grams
  bool eps_smoothing = false;
};

// Per order (characters first, then words): hypothesis n-grams, reference n-grams, matches.
// Flattened as sacreBLEU keeps them: 3 * (char_order + word_order) counts.
using ChrfStatistics = std::vector<int64_t>;

struct ChrfScore {
  double score = 0;  // in [0, 100]
  ChrfStatistics statistics;
};

// Statistics of one segment against its references (at least one): the reference whose
// F-score is highest (the first on a tie).
ChrfStatistics chrfSegmentStatistics(const std::string& hypothesis,
                                     const std::vector<std::string>& references,
                                     const ChrfOptions& options);

// Each segment's statistics; line counts as corpusChrf checks them.
std::vector<ChrfStatistics> chrfSegmentStatistics(
    const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references, const ChrfOptions& options);

double chrfFromStatistics(const ChrfStatistics& statistics, const ChrfOptions& options);

// references[k][i] is the k-th reference of segment i; every stream as long as the
// hypotheses, else std::invalid_argument naming the counts.
ChrfScore corpusChrf(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references,
                     const ChrfOptions& options = {});

// "chrF2" or "chrF2++" (one '+' per word order).
std::string chrfName(const ChrfOptions& options);

// sacreBLEU's signature, e.g. "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0".
std::string chrfSignature(const ChrfOptions& options, int64_t reference_count);

}  // namespace recurlab::metrics
