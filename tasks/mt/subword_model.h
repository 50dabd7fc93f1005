#pragma once
// Joint source/target subwords with Debian's libsentencepiece (Kudo & Richardson 2018): a BPE
// or unigram model trained on the training text of both languages, on every sentence (no
// sampling, no shuffling) and single-threaded: sentencepiece's trainer then draws no random
// number, so the same text and options give the same model and there is no seed to give
// (MtSubwordModel.SameFileInEveryProcessAndForEverySeed shows it), written into the run folder and
// loaded again on resume. Special ids are fixed by the model: pad 0, unk 1, bos 2, eos 3.
// sentencepiece runs behind a small C shim loaded with dlopen (sentencepiece/sentencepiece_shim.h
// says why): librecurlab_sentencepiece.so beside the executable, or in the build folder.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct SubwordOptions {
  std::string type = "bpe";          // bpe or unigram
  int64_t vocabulary_size = 8000;    // pieces, the four special ids included
  double character_coverage = 1.0;   // 1: every character of the training text is a piece
};

class SubwordModel {
 public:
  // Loads a model file; a missing or unreadable file is an error naming it.
  static SubwordModel load(const std::string& path);
  // Trains on `sentences` and writes the model to `path` (atomically, via a temporary).
  static SubwordModel train(const std::vector<std::string>& sentences, const SubwordOptions& options,
                            const std::string& path);
  // `path` when it exists (checked against `options`: a model of another size or with other
  // special ids is an error naming the file and both values), else trained and written there.
  static SubwordModel loadOrTrain(const std::vector<std::string>& sentences,
                                  const SubwordOptions& options, const std::string& path);

  // Empty when subword models can be used in this build, else why not (an AddressSanitizer
  // build cannot load the sentencepiece module).
  static std::string unavailableReason();

  SubwordModel(SubwordModel&&) noexcept;
  SubwordModel& operator=(SubwordModel&&) noexcept;
  ~SubwordModel();

  std::vector<int64_t> encode(const std::string& text) const;
  std::string decode(const std::vector<int64_t>& ids) const;  // detokenized text
  int64_t size() const;
  int64_t padId() const;
  int64_t unkId() const;
  int64_t bosId() const;
  int64_t eosId() const;
  const std::string& path() const { return path_; }

 private:
  SubwordModel() = default;
  struct Handle;  // the sentencepiece processor behind the shim (sentencepiece/)
  std::unique_ptr<Handle> handle_;
  std::string path_;
};

}  // namespace recurlab::experiments
