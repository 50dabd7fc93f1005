#include "tasks/lm/lm_kept_model.h"

#include <torch/torch.h>

#include <fstream>
#include <stdexcept>

#include "experiments/data/symbol_json.h"
#include "experiments/kept_model/kept_model.h"
#include "tasks/lm/lm_config.h"
#include "tasks/lm/lm_task.h"

namespace recurlab::experiments {

std::string lmFormatName(LmCorpusFormat format) {
  switch (format) {
    case LmCorpusFormat::Words: return "words";
    case LmCorpusFormat::Chars: return "chars";
    case LmCorpusFormat::Bytes: return "bytes";
  }
  return "words";
}

void writeLmVocabulary(const std::vector<std::string>& symbols, int64_t unknown_id,
                       const std::string& path) {
  std::ofstream out(path);
  out << nlohmann::json{{"symbols", symbolsToJson(symbols)}, {"unknown_id", unknown_id}}.dump()
      << "\n";
  if (!out) throw std::runtime_error(path + ": cannot be written");
}

namespace {

// The symbols of a vocabulary.json that writeLmVocabulary wrote, and its unknown_id.
std::vector<std::string> readLmVocabulary(const std::string& path, int64_t& unknown_id) {
  try {
    std::ifstream in(path);
    const auto vocabulary = nlohmann::json::parse(in);
    auto symbols = symbolsFromJson(vocabulary.at("symbols"), path + ": symbols");
    unknown_id = vocabulary.at("unknown_id").get<int64_t>();
    return symbols;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not an LM vocabulary (" + e.what() + ")");
  }
}

}  // namespace

std::vector<int64_t> KeptLanguageModel::encode(const std::string& text, const std::string& where) const {
  std::vector<int64_t> out;
  for (const auto& s : lmSymbols(text, format, where)) {
    const auto it = ids.find(s);
    if (it != ids.end()) {
      out.push_back(it->second);
    } else if (unknown_id >= 0) {
      out.push_back(unknown_id);
    } else {
      throw std::runtime_error(where + ": symbol '" + s +
                               "' is not in the model's vocabulary (which has no <unk>)");
    }
  }
  return out;
}

std::string KeptLanguageModel::decode(const std::vector<int64_t>& sequence) const {
  std::string text;
  for (const auto id : sequence) {
    const std::string& s = symbols.at(static_cast<size_t>(id));
    if (format == LmCorpusFormat::Bytes) {
      text += static_cast<char>(std::stoi(s));
    } else if (format == LmCorpusFormat::Chars) {
      text += s;
    } else if (s == "<eos>") {
      text += "\n";
    } else {
      if (!text.empty() && text.back() != '\n') text += " ";
      text += s;
    }
  }
  return text;
}

KeptLanguageModel loadKeptLanguageModel(const std::string& dir) {
  const auto kept = openKeptModel(dir, "lm", {kLmVocabularyFile});
  const std::string config_path = kept.path("config.json");
  KeptLanguageModel m;
  m.symbols = readLmVocabulary(kept.path(kLmVocabularyFile), m.unknown_id);
  for (size_t i = 0; i < m.symbols.size(); ++i) m.ids.emplace(m.symbols[i], static_cast<int64_t>(i));
  try {
    const auto& c = kept.config;
    if (c.at("vocabulary").get<int64_t>() != static_cast<int64_t>(m.symbols.size()))
      throw std::runtime_error(kept.path(kLmVocabularyFile) + ": " + std::to_string(m.symbols.size()) +
                               " symbols, the model's vocabulary has " +
                               std::to_string(c.at("vocabulary").get<int64_t>()));
    const std::string format = c.at("format").get<std::string>();
    m.format = format == "words" ? LmCorpusFormat::Words
               : format == "chars" ? LmCorpusFormat::Chars : LmCorpusFormat::Bytes;
    m.metric = c.at("metric").get<std::string>();
    const auto options = LmOptions::fromJson(c.at("lm"), config_path + ": lm");
    m.bptt = options.bptt;
    m.eval_batch_size = options.eval_batch_size;
    m.lm = LanguageModel(buildLanguageModel(c, options.model(static_cast<int64_t>(m.symbols.size())), 0));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(config_path + ": not an LM config (" + e.what() + ")");
  }
  loadKeptWeights(*m.lm, kept);
  m.lm->eval();
  return m;
}

namespace {

KeptModel openKeptModelOfCorpus(const std::string& dir, const std::vector<std::string>& vocabulary,
                                int64_t unknown_id, LmCorpusFormat format) {
  auto kept = openKeptModel(dir, "lm", {kLmVocabularyFile});
  const std::string config_path = kept.path("config.json");
  const std::string vocabulary_path = kept.path(kLmVocabularyFile);
  const std::string kept_format = kept.config.value("format", std::string());
  if (kept_format != lmFormatName(format))
    throw std::runtime_error(config_path + ": a model of " + kept_format +
                             ", this corpus is read as " + lmFormatName(format));
  int64_t kept_unknown = -1;
  const auto symbols = readLmVocabulary(vocabulary_path, kept_unknown);
  if (symbols.size() != vocabulary.size())
    throw std::runtime_error(vocabulary_path + ": " + std::to_string(symbols.size()) +
                             " symbols, this corpus has " + std::to_string(vocabulary.size()) +
                             " (a model of another corpus)");
  for (size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i] != vocabulary[i])
      throw std::runtime_error(vocabulary_path + ": symbol " + std::to_string(i) + " is '" +
                               symbols[i] + "', this corpus's is '" + vocabulary[i] +
                               "' (a model of another corpus)");
  if (kept_unknown != unknown_id)
    throw std::runtime_error(vocabulary_path + ": unknown_id " + std::to_string(kept_unknown) +
                             ", this corpus's is " + std::to_string(unknown_id));
  return kept;
}

}  // namespace

void checkKeptModelFitsCorpus(const std::string& dir, const std::vector<std::string>& vocabulary,
                              int64_t unknown_id, LmCorpusFormat format) {
  openKeptModelOfCorpus(dir, vocabulary, unknown_id, format);
}

nlohmann::json initializeFromKeptModel(LanguageModelImpl& lm, const std::string& dir,
                                       const std::vector<std::string>& vocabulary,
                                       int64_t unknown_id, LmCorpusFormat format) {
  const auto kept = openKeptModelOfCorpus(dir, vocabulary, unknown_id, format);
  loadKeptWeights(lm, kept);
  return kept.manifest;
}

}  // namespace recurlab::experiments
