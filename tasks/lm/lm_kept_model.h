#pragma once
// A language model kept by its unit (experiments/kept_model/kept_model.h): config.json holds
// the encoder, its config (the width fitted to the budget included), the "lm" keys, the
// vocabulary size, the corpus format and metric; vocabulary.json the symbols in id order.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "tasks/lm/language_model.h"
#include "tasks/lm/lm_corpus.h"

namespace recurlab::experiments {

inline constexpr const char* kLmVocabularyFile = "vocabulary.json";

std::string lmFormatName(LmCorpusFormat format);  // words, chars, bytes

// {"symbols": [...], "unknown_id": k or -1}
void writeLmVocabulary(const std::vector<std::string>& symbols, int64_t unknown_id,
                       const std::string& path);

struct KeptLanguageModel {
  LanguageModel lm{nullptr};
  std::vector<std::string> symbols;               // id -> symbol
  std::unordered_map<std::string, int64_t> ids;   // symbol -> id
  int64_t unknown_id = -1;
  LmCorpusFormat format = LmCorpusFormat::Words;
  std::string metric = "bpc";                     // bpc or ppl
  int64_t bptt = 100, eval_batch_size = 10;

  // The ids of `text` in the model's format; a symbol outside the vocabulary maps to <unk>
  // when the model has one, else it is an error naming `where` and the symbol.
  std::vector<int64_t> encode(const std::string& text, const std::string& where) const;
  // Text of ids: words joined by spaces with <eos> as a line end, characters and bytes as they are.
  std::string decode(const std::vector<int64_t>& ids) const;
};

// Opens, checks and loads a kept LM (errors name the file and what is wrong).
KeptLanguageModel loadKeptLanguageModel(const std::string& dir);

// Sets the weights of `lm`, freshly built for a unit, to those of the kept LM in `dir` (config
// key models.<name>.init_from: training goes on from a finished run's model). The kept model
// must have been trained on this corpus format with this vocabulary, symbol for symbol, and
// every parameter and buffer must match by name and shape (the same encoder, config and width).
// Errors name the folder's file and what differs. Returns the kept model's manifest.
nlohmann::json initializeFromKeptModel(LanguageModelImpl& lm, const std::string& dir,
                                       const std::vector<std::string>& vocabulary,
                                       int64_t unknown_id, LmCorpusFormat format);

// The checks of initializeFromKeptModel that need no model: `dir` is a kept LM of this corpus
// format and vocabulary (the run checks every init_from before its first unit starts).
void checkKeptModelFitsCorpus(const std::string& dir, const std::vector<std::string>& vocabulary,
                              int64_t unknown_id, LmCorpusFormat format);

}  // namespace recurlab::experiments
