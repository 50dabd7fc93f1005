#include "tasks/qa/squad_evaluation.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "tasks/qa/json_document.h"
#include "metrics/unicode_text.h"

namespace recurlab::experiments::qa {
namespace {

bool isAsciiPunctuation(char c) {
  static const std::string kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  return kPunctuation.find(c) != std::string::npos;
}

// re.sub(r'\b(a|an|the)\b', ' ', text): leftmost matches, alternatives tried in order, word
// boundaries judged on the original text.
std::u32string removeArticles(const std::u32string& t) {
  auto word = [&](int64_t i) {
    return i >= 0 && i < static_cast<int64_t>(t.size()) && metrics::isPythonWordChar(t[static_cast<size_t>(i)]);
  };
  auto boundary = [&](int64_t i) { return word(i - 1) != word(i); };
  static const std::u32string kArticles[] = {U"a", U"an", U"the"};
  std::u32string out;
  const auto n = static_cast<int64_t>(t.size());
  int64_t i = 0;
  while (i < n) {
    int64_t matched = 0;
    if (boundary(i))
      for (const auto& article : kArticles) {
        const auto len = static_cast<int64_t>(article.size());
        if (i + len <= n && t.compare(static_cast<size_t>(i), article.size(), article) == 0 &&
            boundary(i + len)) {
          matched = len;
          break;
        }
      }
    if (matched > 0) {
      out.push_back(U' ');
      i += matched;
    } else {
      out.push_back(t[static_cast<size_t>(i)]);
      ++i;
    }
  }
  return out;
}

std::vector<std::u32string> splitPythonSpace(const std::u32string& t) {
  std::vector<std::u32string> words;
  std::u32string current;
  for (char32_t c : t) {
    if (metrics::isPythonWhitespace(c)) {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

}  // namespace

std::vector<std::string> answerTokens(const std::string& s) {
  std::string lowered = metrics::pythonLower(s);
  std::string no_punct;
  // ASCII bytes never occur inside a multi-byte UTF-8 sequence, so bytes can be filtered.
  for (char c : lowered)
    if (!isAsciiPunctuation(c)) no_punct.push_back(c);
  std::vector<std::string> out;
  for (const auto& w : splitPythonSpace(removeArticles(metrics::decodeUtf8(no_punct))))
    out.push_back(metrics::encodeUtf8(w));
  return out;
}

std::string normalizeAnswer(const std::string& s) {
  std::string out;
  for (const auto& w : answerTokens(s)) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool exactMatch(const std::string& prediction, const std::string& truth) {
  return normalizeAnswer(prediction) == normalizeAnswer(truth);
}

double tokenF1(const std::string& prediction, const std::string& truth) {
  const auto p = answerTokens(prediction);
  const auto g = answerTokens(truth);
  std::unordered_map<std::string, int64_t> counts;
  for (const auto& w : g) ++counts[w];
  int64_t same = 0;
  for (const auto& w : p) {
    auto it = counts.find(w);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++same;
    }
  }
  if (same == 0) return 0.0;
  const double precision = 1.0 * static_cast<double>(same) / static_cast<double>(p.size());
  const double recall = 1.0 * static_cast<double>(same) / static_cast<double>(g.size());
  return (2 * precision * recall) / (precision + recall);
}

SquadScore evaluateSquad(const SquadDataset& data, const std::vector<int64_t>& questions,
                         const std::map<std::string, std::string>& predictions) {
  SquadScore s;
  double em = 0, f1 = 0;
  for (const auto q : questions) {
    const auto& question = data.questions.at(static_cast<size_t>(q));
    ++s.total;
    const auto it = predictions.find(question.id);
    if (it == predictions.end()) {
      ++s.missing;
      s.missing_ids.push_back(question.id);
      continue;
    }
    double best_em = 0, best_f1 = 0;
    for (const auto& a : question.answers) {
      best_em = std::max(best_em, exactMatch(it->second, a.text) ? 1.0 : 0.0);
      best_f1 = std::max(best_f1, tokenF1(it->second, a.text));
    }
    em += best_em;
    f1 += best_f1;
  }
  if (s.total > 0) {
    s.exact_match = 100.0 * em / static_cast<double>(s.total);
    s.f1 = 100.0 * f1 / static_cast<double>(s.total);
  }
  return s;
}

SquadScore evaluateSquad(const SquadDataset& data,
                         const std::map<std::string, std::string>& predictions) {
  std::vector<int64_t> all(data.questions.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return evaluateSquad(data, all, predictions);
}

std::map<std::string, std::string> loadPredictions(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the predictions file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const nlohmann::json j = parseJsonDocument(bytes.str(), path);
  if (!j.is_object())
    throw std::runtime_error(path + ": expected a JSON object {\"question id\": \"answer\"}, found " +
                             std::string(j.type_name()));
  std::map<std::string, std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_string())
      throw std::runtime_error(path + ": the prediction for id " + it.key() +
                               " is not a string but " + it->type_name());
    out[it.key()] = it->get<std::string>();
  }
  return out;
}

void writePredictions(const std::map<std::string, std::string>& predictions,
                      const std::string& path) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [id, text] : predictions) j[id] = text;
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!out) throw std::runtime_error(path + ": write failed");
}

std::string pythonFloat(double x) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, x);
  std::string s(buffer, r.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string officialScoreLine(const SquadScore& score) {
  return "{\"exact_match\": " + pythonFloat(score.exact_match) + ", \"f1\": " +
         pythonFloat(score.f1) + "}";
}

}  // namespace recurlab::experiments::qa
