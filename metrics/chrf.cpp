#include "metrics/chrf.h"

#include <stdexcept>
#include <unordered_map>

#include "metrics/corpus_bleu.h"
#include "metrics/unicode_text.h"

namespace recurlab::metrics {
namespace {

template <typename Key>
using Counts = std::unordered_map<Key, int64_t>;

// The n-gram counts of every order: characters (code points) then words.
struct SegmentNgrams {
  std::vector<Counts<std::u32string>> characters;
  std::vector<Counts<std::string>> words;
};

bool isAsciiPunctuation(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

// Words with one ASCII punctuation character split off the end, or else off the start.
std::vector<std::string> wordsWithPunctuationSplit(const std::string& segment) {
  std::vector<std::string> words;
  for (const auto& word : splitPythonWhitespace(segment)) {
    const std::u32string w = decodeUtf8(word);
    if (w.size() == 1) {
      words.push_back(word);
    } else if (isAsciiPunctuation(w.back())) {
      words.push_back(encodeUtf8(w.substr(0, w.size() - 1)));
      words.push_back(encodeUtf8(w.substr(w.size() - 1)));
    } else if (isAsciiPunctuation(w.front())) {
      words.push_back(encodeUtf8(w.substr(0, 1)));
      words.push_back(encodeUtf8(w.substr(1)));
    } else {
      words.push_back(word);
    }
  }
  return words;
}

SegmentNgrams extractNgrams(const std::string& raw, const ChrfOptions& options) {
  const std::string segment = options.lowercase ? pythonLower(raw) : raw;
  SegmentNgrams ngrams;
  std::u32string characters;
  if (options.whitespace) {
    characters = decodeUtf8(segment);
  } else {
    for (const auto& piece : splitPythonWhitespace(segment)) characters += decodeUtf8(piece);
  }
  for (int n = 1; n <= options.char_order; ++n) {
    Counts<std::u32string> counts;
    for (size_t i = 0; i + n <= characters.size(); ++i) ++counts[characters.substr(i, n)];
    ngrams.characters.push_back(std::move(counts));
  }
  if (options.word_order > 0) {
    const auto words = wordsWithPunctuationSplit(segment);
    for (int n = 1; n <= options.word_order; ++n) {
      Counts<std::string> counts;
      for (size_t i = 0; i + n <= words.size(); ++i) {
        std::string key = words[i];
        for (int k = 1; k < n; ++k) key += " " + words[i + k];
        ++counts[key];
      }
      ngrams.words.push_back(std::move(counts));
    }
  }
  return ngrams;
}

template <typename Key>
void appendMatchStatistics(const Counts<Key>& hypothesis, const Counts<Key>& reference,
                           ChrfStatistics& out) {
  int64_t hypothesis_count = 0, reference_count = 0, matches = 0;
  for (const auto& [ngram, count] : hypothesis) {
    hypothesis_count += count;
    const auto found = reference.find(ngram);
    if (found != reference.end()) matches += std::min(count, found->second);
  }
  for (const auto& entry : reference) reference_count += entry.second;
  // No hypothesis n-grams count where the reference has none of this order.
  out.push_back(reference.empty() ? 0 : hypothesis_count);
  out.push_back(reference_count);
  out.push_back(matches);
}

}  // namespace

double chrfFromStatistics(const ChrfStatistics& statistics, const ChrfOptions& options) {
  const int orders = options.char_order + options.word_order;
  if (static_cast<int>(statistics.size()) != 3 * orders)
    throw std::invalid_argument("chrF: statistics of " + std::to_string(statistics.size()) +
                                " counts for " + std::to_string(orders) + " orders");
  constexpr double kEps = 1e-16;
  const double factor = static_cast<double>(options.beta) * options.beta;
  double eps_score = 0, average_precision = 0, average_recall = 0;
  int effective_order = 0;
  for (int i = 0; i < orders; ++i) {
    const auto hypothesis = statistics[3 * i], reference = statistics[3 * i + 1],
               matches = statistics[3 * i + 2];
    const double precision = hypothesis > 0 ? static_cast<double>(matches) / hypothesis : kEps;
    const double recall = reference > 0 ? static_cast<double>(matches) / reference : kEps;
    const double denominator = factor * precision + recall;
    eps_score += denominator > 0 ? (1 + factor) * precision * recall / denominator : kEps;
    if (hypothesis > 0 && reference > 0) {
      average_precision += precision;
      average_recall += recall;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return 100 * eps_score / orders;
  if (effective_order == 0) return 0.0;
  average_precision /= effective_order;
  average_recall /= effective_order;
  if (average_precision + average_recall == 0) return 0.0;
  double score = (1 + factor) * average_precision * average_recall;
  score /= factor * average_precision + average_recall;
  return 100 * score;
}

ChrfStatistics chrfSegmentStatistics(const std::string& hypothesis,
                                     const std::vector<std::string>& references,
                                     const ChrfOptions& options) {
  if (references.empty()) throw std::invalid_argument("chrF: a segment without a reference");
  const auto hypothesis_ngrams = extractNgrams(hypothesis, options);
  ChrfStatistics best;
  double best_score = -1;
  for (const auto& reference : references) {
    const auto reference_ngrams = extractNgrams(reference, options);
    ChrfStatistics stats;
    for (int n = 0; n < options.char_order; ++n)
      appendMatchStatistics(hypothesis_ngrams.characters[n], reference_ngrams.characters[n], stats);
    for (int n = 0; n < options.word_order; ++n)
      appendMatchStatistics(hypothesis_ngrams.words[n], reference_ngrams.words[n], stats);
    const double score = chrfFromStatistics(stats, options);
    if (score > best_score) {
      best_score = score;
      best = std::move(stats);
    }
  }
  return best;
}

std::vector<ChrfStatistics> chrfSegmentStatistics(
    const std::vector<std::string>& hypotheses,
    const std::vector<std::vector<std::string>>& references, const ChrfOptions& options) {
  if (options.char_order < 0 || options.word_order < 0 || options.char_order + options.word_order < 1)
    throw std::invalid_argument("chrF: the character and word orders must be >= 0, not both 0");
  if (references.empty()) throw std::invalid_argument("chrF needs at least one reference stream");
  for (size_t k = 0; k < references.size(); ++k)
    if (references[k].size() != hypotheses.size())
      throw std::invalid_argument("chrF: the hypotheses have " + std::to_string(hypotheses.size()) +
                                  " lines but reference " + std::to_string(k + 1) + " has " +
                                  std::to_string(references[k].size()));
  std::vector<ChrfStatistics> segments;
  segments.reserve(hypotheses.size());
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    std::vector<std::string> segment_references;
    for (const auto& stream : references) segment_references.push_back(stream[i]);
    segments.push_back(chrfSegmentStatistics(hypotheses[i], segment_references, options));
  }
  return segments;
}

ChrfScore corpusChrf(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references,
                     const ChrfOptions& options) {
  ChrfScore result;
  result.statistics.assign(3 * (options.char_order + options.word_order), 0);
  for (const auto& stats : chrfSegmentStatistics(hypotheses, references, options))
    for (size_t k = 0; k < stats.size(); ++k) result.statistics[k] += stats[k];
  result.score = chrfFromStatistics(result.statistics, options);
  return result;
}

std::string chrfName(const ChrfOptions& options) {
  return "chrF" + std::to_string(options.beta) + std::string(options.word_order, '+');
}

std::string chrfSignature(const ChrfOptions& options, int64_t reference_count) {
  return "nrefs:" + std::to_string(reference_count) +
         "|case:" + (options.lowercase ? "lc" : "mixed") +
         "|eff:" + (options.eps_smoothing ? "no" : "yes") +
         "|nc:" + std::to_string(options.char_order) + "|nw:" + std::to_string(options.word_order) +
         "|space:" + (options.whitespace ? "yes" : "no") + "|version:" + kSacreBleuVersion;
}

}  // namespace recurlab::metrics
