#pragma once
// A language-modelling corpus: three symbol streams (train, valid, test) over one vocabulary
// built from the training split. Formats:
//   words  whitespace tokens, one "<eos>" per line (awd-lstm-lm's data.py rule: a last line
//          without '\n' counts when it is non-empty *or* whitespace only, so PTB char's final
//          "\n " adds one <eos>, as in the published pipelines). PTB word and PTB char
//          (characters separated by spaces, '_' between words) are both this format.
//   chars  every UTF-8 character a symbol, '\n' included (any plain-text corpus).
//   bytes  every byte a symbol (enwik8: one file, first 90M bytes train, next 5M valid, last 5M
//          test).
// A symbol of valid/test never seen in training maps to an explicit unknown symbol "<unk>"
// (added to the vocabulary only when needed) and is counted.
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments {

enum class LmCorpusFormat { Words, Chars, Bytes };

struct LmCorpusFiles {
  LmCorpusFormat format = LmCorpusFormat::Words;
  std::string train, valid, test;  // paths; Bytes with one `train` file = the enwik8 split
  int64_t max_train_symbols = 0;   // > 0: keep the first N training symbols (quick runs)
};

struct LmCorpus {
  std::vector<std::string> vocabulary;  // id -> symbol (bytes: the byte's decimal value)
  std::vector<int64_t> train, valid, test;
  int64_t unknown_id = -1;              // -1: no unknown symbol was needed
  int64_t unknown_valid = 0, unknown_test = 0;  // symbols of valid/test mapped to it
  int64_t size() const { return static_cast<int64_t>(vocabulary.size()); }
};

// Loads the files. Throws std::runtime_error naming the file (and line) on a missing file,
// an empty split, invalid UTF-8 (chars) or a Bytes corpus too small to split.
LmCorpus loadLmCorpus(const LmCorpusFiles& files);

// The symbols of a text in a format (no vocabulary): for tests and the fuzz target. `where`
// names the source in errors.
std::vector<std::string> lmSymbols(const std::string& text, LmCorpusFormat format,
                                   const std::string& where);

// enwik8's standard split (awd-lstm-lm prep_enwik8.py; Lei et al. 2018 App. B.4).
constexpr int64_t kEnwik8Bytes = 100000000, kEnwik8Train = 90000000, kEnwik8Valid = 5000000;

}  // namespace recurlab::experiments
