#include "metrics/corpus_bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

constexpr int kMaxOrder = 4;

using NgramCounts = std::map<std::vector<std::string>, int64_t>;

NgramCounts countNgrams(const std::vector<std::string>& tokens) {
  NgramCounts counts;
  for (int n = 1; n <= kMaxOrder; ++n)
    for (size_t i = 0; i + n <= tokens.size(); ++i)
      ++counts[std::vector<std::string>(tokens.begin() + i, tokens.begin() + i + n)];
  return counts;
}

// sacreBLEU's my_log: log 0 is a huge negative number, so that a zero precision gives 0.
double safeLog(double x) { return x == 0 ? -9999999999.0 : std::log(x); }

double smoothValue(const BleuOptions& options) {
  if (options.smooth_value >= 0) return options.smooth_value;
  return options.smoothing == BleuSmoothing::Floor ? 0.1 : 1.0;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace

double BleuScore::ratio() const {
  return statistics.reference_length > 0
             ? static_cast<double>(statistics.hypothesis_length) / statistics.reference_length
             : 0.0;
}

std::vector<std::string> bleuTokens(const std::string& segment, const BleuOptions& options) {
  std::string text = options.lowercase ? pythonLower(segment) : segment;
  text = rstripPythonWhitespace(text);
  text = tokenizeForBleu(text, options.tokenizer, options.moses_language);
  return splitPythonWhitespace(text);
}

BleuStatistics segmentStatistics(const std::vector<std::string>& hypothesis,
                                 const std::vector<std::vector<std::string>>& references) {
  if (references.empty()) throw std::invalid_argument("BLEU: a segment without a reference");
  BleuStatistics stats;
  stats.hypothesis_length = static_cast<int64_t>(hypothesis.size());
  // Closest reference length, the shorter one on a tie; clipping counts: max over references.
  int64_t closest_diff = -1;
  NgramCounts reference_max;
  for (const auto& reference : references) {
    const auto length = static_cast<int64_t>(reference.size());
    const int64_t diff = std::abs(length - stats.hypothesis_length);
    if (closest_diff < 0 || diff < closest_diff ||
        (diff == closest_diff && length < stats.reference_length)) {
      closest_diff = diff;
      stats.reference_length = length;
    }
    for (const auto& [ngram, count] : countNgrams(reference)) {
      auto& best = reference_max[ngram];
      best = std::max(best, count);
    }
  }
  for (const auto& [ngram, count] : countNgrams(hypothesis)) {
    const auto found = reference_max.find(ngram);
    if (found != reference_max.end())
      stats.correct[ngram.size() - 1] += std::min(count, found->second);
  }
  for (int n = 1; n <= kMaxOrder; ++n)
    stats.total[n - 1] = std::max<int64_t>(0, stats.hypothesis_length - n + 1);
  return stats;
}

BleuScore scoreFromStatistics(const BleuStatistics& statistics, const BleuOptions& options) {
  BleuScore result;
  result.statistics = statistics;
  const auto c = statistics.hypothesis_length, r = statistics.reference_length;
  if (c < r) result.brevity_penalty = c > 0 ? std::exp(1.0 - static_cast<double>(r) / c) : 0.0;
  bool any_match = false;
  for (auto k : statistics.correct) any_match = any_match || k > 0;
  if (!any_match) return result;  // score 0 (sacreBLEU #141)

  std::array<double, kMaxOrder> correct, total;
  for (int n = 0; n < kMaxOrder; ++n) {
    correct[n] = static_cast<double>(statistics.correct[n]);
    total[n] = static_cast<double>(statistics.total[n]);
  }
  const double k = smoothValue(options);
  double exp_factor = 1.0;
  int effective_order = kMaxOrder;
  for (int n = 1; n <= kMaxOrder; ++n) {
    if (options.smoothing == BleuSmoothing::AddK && n > 1) {
      correct[n - 1] += k;
      total[n - 1] += k;
    }
    if (total[n - 1] == 0) break;  // the later precisions stay 0
    if (options.effective_order) effective_order = n;
    if (correct[n - 1] == 0) {
      if (options.smoothing == BleuSmoothing::Exp) {
        exp_factor *= 2;
        result.precisions[n - 1] = 100.0 / (exp_factor * total[n - 1]);
      } else if (options.smoothing == BleuSmoothing::Floor) {
        result.precisions[n - 1] = 100.0 * k / total[n - 1];
      }
    } else {
      result.precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1];
    }
  }
  double log_sum = 0;
  for (int n = 0; n < effective_order; ++n) log_sum += safeLog(result.precisions[n]);
  result.score = result.brevity_penalty * std::exp(log_sum / effective_order);
  return result;
}

BleuOptions tokenizedLowercasedBleuOptions(const std::string& language) {
  if (!mosesTokenizerSupports(language))
    throw std::invalid_argument("tokenized BLEU: no Moses tokenizer for language '" + language +
                                "'; expected de or en");
  BleuOptions options;
  options.lowercase = true;
  options.tokenizer = BleuTokenizer::Moses;
  options.moses_language = language;
  options.smoothing = BleuSmoothing::None;
  return options;
}

std::vector<BleuStatistics> bleuSegmentStatistics(
    const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  if (references.empty()) throw std::invalid_argument("BLEU needs at least one reference stream");
  for (size_t k = 0; k < references.size(); ++k)
    if (references[k].size() != hypotheses.size())
      throw std::invalid_argument("BLEU: the hypotheses have " +
                                  std::to_string(hypotheses.size()) + " lines but reference " +
                                  std::to_string(k + 1) + " has " +
                                  std::to_string(references[k].size()));
  std::vector<BleuStatistics> segments;
  segments.reserve(hypotheses.size());
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    std::vector<std::vector<std::string>> reference_tokens;
    for (const auto& stream : references) reference_tokens.push_back(bleuTokens(stream[i], options));
    segments.push_back(segmentStatistics(bleuTokens(hypotheses[i], options), reference_tokens));
  }
  return segments;
}

BleuStatistics sumStatistics(const std::vector<BleuStatistics>& segments) {
  BleuStatistics sum;
  for (const auto& stats : segments) {
    for (int n = 0; n < kMaxOrder; ++n) {
      sum.correct[n] += stats.correct[n];
      sum.total[n] += stats.total[n];
    }
    sum.hypothesis_length += stats.hypothesis_length;
    sum.reference_length += stats.reference_length;
  }
  return sum;
}

BleuScore corpusBleu(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references,
                     const BleuOptions& options) {
  return scoreFromStatistics(sumStatistics(bleuSegmentStatistics(hypotheses, references, options)),
                             options);
}

std::string bleuSignature(const BleuOptions& options, int64_t reference_count) {
  std::string smooth;
  switch (options.smoothing) {
    case BleuSmoothing::Exp: smooth = "exp"; break;
    case BleuSmoothing::Floor: smooth = "floor[" + fixed(smoothValue(options), 2) + "]"; break;
    case BleuSmoothing::AddK: smooth = "add-k[" + fixed(smoothValue(options), 2) + "]"; break;
    case BleuSmoothing::None: smooth = "none"; break;
  }
  return "nrefs:" + std::to_string(reference_count) +
         "|case:" + (options.lowercase ? "lc" : "mixed") +
         "|eff:" + (options.effective_order ? "yes" : "no") +
         "|tok:" + bleuTokenizerName(options.tokenizer, options.moses_language) + "|smooth:" + smooth +
         "|version:" + kSacreBleuVersion;
}

std::string formatBleu(const BleuScore& score, const std::string& signature, int decimals) {
  std::string precisions;
  for (int n = 0; n < kMaxOrder; ++n) {
    if (n > 0) precisions += "/";
    precisions += fixed(score.precisions[n], 1);
  }
  return "BLEU|" + signature + " = " + fixed(score.score, decimals) + " " + precisions +
         " (BP = " + fixed(score.brevity_penalty, 3) + " ratio = " + fixed(score.ratio(), 3) +
         " hyp_len = " + std::to_string(score.statistics.hypothesis_length) +
         " ref_len = " + std::to_string(score.statistics.reference_length) + ")";
}

}  // namespace recurlab::metrics
