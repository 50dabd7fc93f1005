#pragma once
// A language model kept by its unit (experiments/kept_model/kept_model.h): config.json holds
// the encoder, its config (the width fitted to the budget included), the "lm" keys, the
// vocabulary size, the corpus format and metric; vocabulary.json the symbols in id order.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "experiments/lm/language_model.h"
#include "experiments/lm/lm_corpus.h"

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

}  // namespace recurlab::experiments
