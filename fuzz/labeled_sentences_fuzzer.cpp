// libFuzzer target: any bytes given to readLabeledSentences either load (every label in
// 0..K-1, every sentence non-empty) or throw std::runtime_error; nothing else may happen.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "tasks/classification/labeled_sentences.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments;
  const auto& path = recurlab::fuzz::writeFuzzInput(data, size);
  for (const auto policy : {EmptySentencePolicy::Skip, EmptySentencePolicy::Error}) {
    try {
      const auto file = readLabeledSentences(path, 6, policy);
      for (const auto& e : file.examples)
        if (e.label < 0 || e.label >= 6 || e.tokens.empty()) std::abort();
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
