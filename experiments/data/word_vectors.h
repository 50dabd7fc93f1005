#pragma once
// Pretrained word vectors: word2vec binary (GoogleNews), word2vec text ("N D" header line,
// then "word v1 ... vD") and GloVe text (no header). The format is detected from the file.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace recurlab::experiments {

enum class WordVectorFormat { Auto, Word2VecBinary, Word2VecText, GloveText };

struct WordVectors {
  int64_t dim = 0;
  std::vector<std::string> words;              // in file order
  std::vector<float> values;                   // words.size() x dim, row-major
  std::unordered_map<std::string, int64_t> index;
  WordVectorFormat format = WordVectorFormat::Auto;  // the format that was read

  int64_t size() const { return static_cast<int64_t>(words.size()); }
  const float* vector(int64_t i) const { return values.data() + i * dim; }
  std::optional<int64_t> find(const std::string& word) const;
};

struct WordVectorLoadOptions {
  WordVectorFormat format = WordVectorFormat::Auto;
  // Keep only these words (the task's vocabulary), so that a 3M-word file stays small in
  // memory. Null keeps everything.
  const std::unordered_set<std::string>* vocabulary = nullptr;
  int64_t max_words = 0;  // stop after this many entries of the file (0 = all)
};

// Throws std::runtime_error naming the file and the line (text) or entry (binary) on
// malformed input: bad header, wrong number of values, non-numbers, truncated file.
// A word seen twice keeps its first vector.
WordVectors loadWordVectors(const std::string& path, const WordVectorLoadOptions& options = {});

std::string toString(WordVectorFormat format);

}  // namespace recurlab::experiments
