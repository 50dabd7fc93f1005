// libFuzzer target: any bytes given to loadWordVectors, in every format (auto-detected, and
// forced word2vec binary / word2vec text / GloVe text), either load a consistent table or
// throw std::runtime_error.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "experiments/data/word_vectors.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments;
  const auto& path = recurlab::fuzz::writeFuzzInput(data, size);
  for (const auto format : {WordVectorFormat::Auto, WordVectorFormat::Word2VecBinary,
                            WordVectorFormat::Word2VecText, WordVectorFormat::GloveText}) {
    try {
      WordVectorLoadOptions options;
      options.format = format;
      const auto v = loadWordVectors(path, options);
      if (v.dim <= 0 || v.values.size() != v.words.size() * static_cast<size_t>(v.dim) ||
          v.index.size() != v.words.size())
        std::abort();
      for (int64_t i = 0; i < v.size(); ++i)
        if (v.find(v.words[static_cast<size_t>(i)]) != i) std::abort();
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
