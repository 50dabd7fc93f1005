#include "tasks/qa/squad_dataset.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "tasks/qa/json_document.h"
#include "metrics/unicode_text.h"

namespace recurlab::experiments::qa {
namespace {

using nlohmann::json;

[[noreturn]] void layoutError(const std::string& name, const std::string& where,
                              const std::string& expected, const json* got) {
  throw std::runtime_error(name + ": " + where + ": expected " + expected +
                           (got ? ", found " + std::string(got->type_name()) : ", missing"));
}

const json& member(const json& object, const char* key, json::value_t type,
                   const std::string& name, const std::string& where, const char* expected) {
  const auto it = object.find(key);
  const std::string at = where + "." + key;
  if (it == object.end()) layoutError(name, at, expected, nullptr);
  const bool ok = type == json::value_t::number_integer
                      ? it->is_number_integer()
                      : it->type() == type;
  if (!ok) layoutError(name, at, expected, &*it);
  return *it;
}

// One answer of a question: its text and where it starts; it matches when the context holds
// the text there (counted in d.mismatched_answers otherwise), and is truncated when it ends
// past `cut_byte` (d.truncated_answers).
SquadAnswer parseAnswer(const json& a, const std::string& where, const std::string& name,
                        const std::string& context, int64_t cut_byte, SquadDataset& d) {
  if (!a.is_object()) layoutError(name, where, "an answer object", &a);
  SquadAnswer answer;
  answer.text = member(a, "text", json::value_t::string, name, where, "the answer text")
                    .get<std::string>();
  answer.char_start = member(a, "answer_start", json::value_t::number_integer, name, where,
                             "an integer (code points)").get<int64_t>();
  const int64_t begin = metrics::byteOffsetOfCodePoint(context, answer.char_start);
  if (begin >= 0 &&
      context.compare(static_cast<size_t>(begin), answer.text.size(), answer.text) == 0) {
    answer.matches = true;
    answer.byte_begin = begin;
    answer.byte_end = begin + static_cast<int64_t>(answer.text.size());
    if (answer.byte_end > cut_byte) {
      answer.truncated = true;
      ++d.truncated_answers;
    }
  } else {
    ++d.mismatched_answers;
  }
  return answer;
}

}  // namespace

SquadDataset parseSquad(const std::string& bytes, const std::string& name,
                        const SquadLoadOptions& options) {
  const json root = parseJsonDocument(bytes, name);
  if (!root.is_object()) layoutError(name, "top level", "an object with \"data\"", &root);
  SquadDataset d;
  d.path = name;
  if (root.contains("version") && root["version"].is_string())
    d.version = root["version"].get<std::string>();
  const auto& data = member(root, "data", json::value_t::array, name, "top level",
                            "a list of articles");
  std::unordered_set<std::string> ids;
  for (size_t a = 0; a < data.size(); ++a) {
    const std::string wa = "data[" + std::to_string(a) + "]";
    if (!data[a].is_object()) layoutError(name, wa, "an article object", &data[a]);
    d.titles.push_back(data[a].contains("title") && data[a]["title"].is_string()
                           ? data[a]["title"].get<std::string>() : "");
    const auto& paragraphs = member(data[a], "paragraphs", json::value_t::array, name, wa,
                                    "a list of paragraphs");
    for (size_t p = 0; p < paragraphs.size(); ++p) {
      const std::string wp = wa + ".paragraphs[" + std::to_string(p) + "]";
      if (!paragraphs[p].is_object()) layoutError(name, wp, "a paragraph object", &paragraphs[p]);
      SquadParagraph para;
      para.article = static_cast<int64_t>(a);
      para.context = member(paragraphs[p], "context", json::value_t::string, name, wp,
                            "the context string").get<std::string>();
      int64_t cut_byte = static_cast<int64_t>(para.context.size());
      const auto chars = static_cast<int64_t>(metrics::decodeUtf8(para.context).size());
      para.original_chars = chars;
      if (options.max_context_chars > 0 && chars > options.max_context_chars) {
        cut_byte = metrics::byteOffsetOfCodePoint(para.context, options.max_context_chars);
        ++d.truncated_contexts;
      }
      const auto paragraph_index = static_cast<int64_t>(d.paragraphs.size());
      const auto& qas = member(paragraphs[p], "qas", json::value_t::array, name, wp,
                               "a list of questions");
      for (size_t q = 0; q < qas.size(); ++q) {
        const std::string wq = wp + ".qas[" + std::to_string(q) + "]";
        if (!qas[q].is_object()) layoutError(name, wq, "a question object", &qas[q]);
        SquadQuestion question;
        question.paragraph = paragraph_index;
        question.id = member(qas[q], "id", json::value_t::string, name, wq, "the id string")
                          .get<std::string>();
        if (!ids.insert(question.id).second)
          throw std::runtime_error(name + ": " + wq + ".id: question id " + question.id +
                                   " appears twice");
        question.question = member(qas[q], "question", json::value_t::string, name, wq,
                                   "the question string").get<std::string>();
        const auto& answers = member(qas[q], "answers", json::value_t::array, name, wq,
                                     "a list of answers");
        bool mismatch = false;
        for (size_t k = 0; k < answers.size(); ++k) {
          SquadAnswer answer = parseAnswer(answers[k], wq + ".answers[" + std::to_string(k) + "]",
                                           name, para.context, cut_byte, d);
          mismatch = mismatch || !answer.matches;
          question.answers.push_back(std::move(answer));
          ++d.answers;
        }
        if (mismatch) d.mismatched_ids.push_back(question.id);
        d.questions.push_back(std::move(question));
      }
      para.context.resize(static_cast<size_t>(cut_byte));
      d.paragraphs.push_back(std::move(para));
    }
  }
  return d;
}

SquadDataset loadSquad(const std::string& path, const SquadLoadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot open (run scripts/get-data.sh squad)");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return parseSquad(bytes.str(), path, options);
}

void writeSquadSubset(const SquadDataset& data, const std::vector<int64_t>& questions,
                      const std::string& path) {
  // Contexts as loaded (a truncated one stays truncated); the official evaluator reads only
  // the answer texts.
  json out_data = json::array();
  std::map<int64_t, std::vector<int64_t>> by_paragraph;  // in question order per paragraph
  std::vector<int64_t> paragraph_order;
  for (const auto q : questions) {
    const auto p = data.questions.at(static_cast<size_t>(q)).paragraph;
    if (!by_paragraph.count(p)) paragraph_order.push_back(p);
    by_paragraph[p].push_back(q);
  }
  int64_t last_article = -1;
  for (const auto p : paragraph_order) {
    const auto& para = data.paragraphs.at(static_cast<size_t>(p));
    if (para.article != last_article) {
      out_data.push_back({{"title", data.titles.at(static_cast<size_t>(para.article))},
                          {"paragraphs", json::array()}});
      last_article = para.article;
    }
    json qas = json::array();
    for (const auto q : by_paragraph[p]) {
      const auto& question = data.questions[static_cast<size_t>(q)];
      json answers = json::array();
      for (const auto& a : question.answers)
        answers.push_back({{"answer_start", a.char_start}, {"text", a.text}});
      qas.push_back({{"answers", answers}, {"question", question.question}, {"id", question.id}});
    }
    out_data.back()["paragraphs"].push_back({{"context", para.context}, {"qas", qas}});
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out << json{{"data", out_data}, {"version", data.version.empty() ? "1.1" : data.version}}.dump();
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace recurlab::experiments::qa
