#include "tasks/qa/qa_examples.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "metrics/unicode_text.h"

namespace recurlab::experiments::qa {

QaTokens tokenizeDataset(const SquadDataset& data) {
  QaTokens t;
  for (const auto& p : data.paragraphs) t.paragraphs.push_back(tokenizeText(p.context));
  for (const auto& q : data.questions) t.questions.push_back(tokenizeText(q.question));
  return t;
}

std::vector<float> paragraphFeatures(const std::vector<TextToken>& paragraph,
                                     const std::vector<TextToken>& question) {
  std::unordered_set<std::string> cased, lowered;
  for (const auto& t : question) {
    cased.insert(t.text);
    lowered.insert(metrics::pythonLower(t.text));
  }
  std::vector<std::string> lower(paragraph.size());
  std::unordered_map<std::string, int64_t> counts;
  for (size_t i = 0; i < paragraph.size(); ++i) ++counts[lower[i] = metrics::pythonLower(paragraph[i].text)];
  std::vector<float> f(paragraph.size() * kParagraphFeatures);
  const double n = static_cast<double>(std::max<size_t>(paragraph.size(), 1));
  for (size_t i = 0; i < paragraph.size(); ++i) {
    f[i * 3 + 0] = cased.count(paragraph[i].text) ? 1.0f : 0.0f;
    f[i * 3 + 1] = lowered.count(lower[i]) ? 1.0f : 0.0f;
    f[i * 3 + 2] = static_cast<float>(static_cast<double>(counts[lower[i]]) / n);
  }
  return f;
}

std::pair<int64_t, int64_t> targetSpan(const SquadQuestion& question,
                                       const std::vector<TextToken>& paragraph) {
  for (const auto& a : question.answers) {
    if (!a.matches || a.truncated) continue;
    const auto span = alignSpan(paragraph, a.byte_begin, a.byte_end);
    if (span.first >= 0) return span;
  }
  return {-1, -1};
}

QaExample makeExample(const SquadDataset& data, const QaTokens& tokens, int64_t question,
                      const Vocabulary& vocabulary) {
  const auto& q = data.questions.at(static_cast<size_t>(question));
  const auto& p = tokens.paragraphs.at(static_cast<size_t>(q.paragraph));
  const auto& qt = tokens.questions.at(static_cast<size_t>(question));
  QaExample x;
  x.question = question;
  x.paragraph = q.paragraph;
  for (const auto& t : p) x.paragraph_ids.push_back(vocabulary.id(t.text));
  for (const auto& t : qt) x.question_ids.push_back(vocabulary.id(t.text));
  x.features = paragraphFeatures(p, qt);
  std::tie(x.start, x.end) = targetSpan(q, p);
  return x;
}

Vocabulary buildQaVocabulary(const SquadDataset& data, const QaTokens& tokens,
                             const std::vector<int64_t>& questions, int64_t min_count,
                             int64_t* question_words) {
  std::map<std::string, int64_t> q_counts, all_counts;
  std::set<int64_t> paragraphs;
  for (const auto qi : questions) {
    for (const auto& t : tokens.questions[static_cast<size_t>(qi)]) {
      ++q_counts[t.text];
      ++all_counts[t.text];
    }
    paragraphs.insert(data.questions[static_cast<size_t>(qi)].paragraph);
  }
  for (const auto p : paragraphs)
    for (const auto& t : tokens.paragraphs[static_cast<size_t>(p)]) ++all_counts[t.text];
  // Sorted by count, then by word: independent of hash order.
  auto byCount = [](const std::map<std::string, int64_t>& m) {
    std::vector<std::pair<std::string, int64_t>> v(m.begin(), m.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
  };
  Vocabulary vocabulary;
  for (const auto& [w, c] : byCount(q_counts))
    if (all_counts[w] >= min_count) vocabulary.add(w);
  if (question_words) *question_words = vocabulary.size() - 2;
  for (const auto& [w, c] : byCount(all_counts))
    if (c >= min_count) vocabulary.add(w);
  return vocabulary;
}

}  // namespace recurlab::experiments::qa
