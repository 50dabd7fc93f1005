#include "experiments/data/vocabulary_file.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>
#include <vector>

#include "experiments/data/symbol_json.h"

namespace recurlab::experiments {

void writeVocabularyFile(const Vocabulary& vocabulary, const std::string& path) {
  std::vector<std::string> words;
  for (int64_t i = 0; i < vocabulary.size(); ++i) words.push_back(vocabulary.word(i));
  std::ofstream out(path);
  out << nlohmann::json{{"words", symbolsToJson(words)}}.dump() << "\n";
  if (!out) throw std::runtime_error(path + ": cannot be written");
}

Vocabulary readVocabularyFile(const std::string& path) {
  Vocabulary vocabulary;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": missing or unreadable");
  std::vector<std::string> words;
  try {
    words = symbolsFromJson(nlohmann::json::parse(in).at("words"), path + ": words");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not a vocabulary file (" + e.what() + ")");
  }
  for (size_t i = 0; i < words.size(); ++i)
    if (vocabulary.add(words[i]) != static_cast<int64_t>(i))
      throw std::runtime_error(path + ": word " + std::to_string(i) + " '" + words[i] +
                               "' repeats or displaces <pad>/<unk>");
  return vocabulary;
}

}  // namespace recurlab::experiments
