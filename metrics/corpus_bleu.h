#pragma once
// Corpus BLEU identical to sacreBLEU 2.6.0's default (Post 2018, "A Call for Clarity in
// Reporting BLEU Scores"): each segment lowercased (optionally, Python's str.lower()),
// rstripped, 13a-tokenized and split on Unicode whitespace; n-gram matches of orders 1-4
// clipped by the maximum count over the references, summed over the corpus with the closest
// reference length (the shorter on a tie); brevity penalty; smoothing "exp" by default.
// Torch-free: the `recurlab_bleu` tool and the MT task both use it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/bleu_tokenizer.h"

namespace recurlab::metrics {

enum class BleuSmoothing { Exp, Floor, AddK, None };

struct BleuOptions {
  bool lowercase = false;
  BleuSmoothing smoothing = BleuSmoothing::Exp;
  double smooth_value = -1;  // < 0: sacreBLEU's default (floor 0.1, add-k 1)
  bool effective_order = false;
  BleuTokenizer tokenizer = BleuTokenizer::k13a;  // sacreBLEU's -tok
  std::string moses_language = "en";              // for BleuTokenizer::Moses: de or en
};

struct BleuStatistics {
  std::array<int64_t, 4> correct{};  // clipped n-gram matches per order
  std::array<int64_t, 4> total{};     // hypothesis n-grams per order
  int64_t hypothesis_length = 0;
  int64_t reference_length = 0;
};

struct BleuScore {
  double score = 0;                   // in [0, 100]
  std::array<double, 4> precisions{};  // in percent, after smoothing
  double brevity_penalty = 1;
  BleuStatistics statistics;
  double ratio() const;               // hypothesis_length / reference_length
};

// The segment as sacreBLEU scores it: its tokens after lowercasing, rstrip and the tokenizer.
std::vector<std::string> bleuTokens(const std::string& segment, const BleuOptions& options);

// Sufficient statistics of one segment against its references (at least one).
BleuStatistics segmentStatistics(const std::vector<std::string>& hypothesis_tokens,
                                 const std::vector<std::vector<std::string>>& reference_tokens);

BleuStatistics sumStatistics(const std::vector<BleuStatistics>& segments);

BleuScore scoreFromStatistics(const BleuStatistics& statistics, const BleuOptions& options);

// The tokenized lowercased BLEU of the Multi30k papers (Moses normalization and tokenization
// for `language`, lowercased, no smoothing: multi-bleu.perl's and fairseq's scorer's numbers).
BleuOptions tokenizedLowercasedBleuOptions(const std::string& language);

// Each segment's statistics (for the paired tests, which resample segments). Line counts as
// corpusBleu checks them.
std::vector<BleuStatistics> bleuSegmentStatistics(
    const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references, const BleuOptions& options = {});

// Corpus BLEU of `hypotheses` against reference streams (references[k][i] is the k-th
// reference of segment i). Every stream must have as many lines as the hypotheses: otherwise
// std::invalid_argument naming the counts.
BleuScore corpusBleu(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references,
                     const BleuOptions& options = {});

// sacreBLEU's signature, e.g. "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0".
std::string bleuSignature(const BleuOptions& options, int64_t reference_count);

// sacreBLEU's text output: "BLEU|<signature> = 16.3 66.7/20.0/12.5/8.3 (BP = 0.846 ratio =
// 0.857 hyp_len = 6 ref_len = 7)", the score with `decimals` decimals (the CLI's -w, 1).
std::string formatBleu(const BleuScore& score, const std::string& signature, int decimals = 1);

// The sacreBLEU version whose scores these equal.
inline constexpr const char* kSacreBleuVersion = "2.6.0";

}  // namespace recurlab::metrics
