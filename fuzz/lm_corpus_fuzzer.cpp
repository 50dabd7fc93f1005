// libFuzzer target: any bytes given to loadLmCorpus as a training file, in every format, either
// load (every id within the vocabulary, the vocabulary free of duplicates, unknowns counted) or
// throw std::runtime_error; nothing else may happen.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "tasks/lm/lm_corpus.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments;
  const auto& path = recurlab::fuzz::writeFuzzInput(data, size);
  for (const auto format : {LmCorpusFormat::Words, LmCorpusFormat::Chars, LmCorpusFormat::Bytes}) {
    LmCorpusFiles files;
    files.format = format;
    files.train = path;
    files.valid = path;  // held-out = train: no unknowns possible
    files.test = "/dev/null";  // empty: always an error naming it
    try {
      loadLmCorpus(files);
      std::abort();  // the empty test split must have been refused
    } catch (const std::runtime_error&) {
    }
    files.test = path;
    try {
      const auto c = loadLmCorpus(files);
      if (c.unknown_valid || c.unknown_test || c.unknown_id >= 0) std::abort();
      if (std::set<std::string>(c.vocabulary.begin(), c.vocabulary.end()).size() != c.vocabulary.size())
        std::abort();
      for (const auto* split : {&c.train, &c.valid, &c.test})
        for (int64_t id : *split)
          if (id < 0 || id >= c.size()) std::abort();
      if (c.train != c.valid) std::abort();
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
