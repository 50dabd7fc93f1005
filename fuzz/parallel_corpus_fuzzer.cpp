// libFuzzer target: any bytes, cut in two at a position the first byte picks and written as a
// source and a target file (plain, or gzip-named when they start with the gzip magic), either
// load as a parallel corpus (equal line counts, no blank side kept, line numbers increasing)
// or throw std::runtime_error; nothing else may happen.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tasks/mt/parallel_corpus.h"
#include "fuzz/fuzz_input_file.h"

namespace {

std::string writeFile(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace recurlab::experiments;
  if (size == 0) return 0;
  const size_t cut = 1 + (size - 1) * data[0] / 255;
  const auto& base = recurlab::fuzz::writeFuzzInput(data + 1, cut - 1);
  const bool gz = cut >= 3 && data[1] == 0x1f && data[2] == 0x8b;
  std::string source = base;
  if (gz) {
    source = base + ".src.gz";
    writeFile(source, data + 1, cut - 1);
  }
  const std::string target = writeFile(base + (gz ? ".tgt.gz" : ".tgt"), data + cut, size - cut);
  for (const auto policy : {EmptyLinePolicy::Skip, EmptyLinePolicy::Error}) {
    try {
      const auto corpus = loadParallelCorpus(source, target, policy);
      int64_t previous = 0;
      for (const auto& p : corpus.pairs) {
        if (p.line <= previous || p.line > corpus.lines) std::abort();
        if (p.source.find_first_not_of(" \t") == std::string::npos) std::abort();
        if (p.target.find_first_not_of(" \t") == std::string::npos) std::abort();
        previous = p.line;
      }
      if (static_cast<int64_t>(corpus.pairs.size()) + corpus.empty_pairs != corpus.lines)
        std::abort();
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
