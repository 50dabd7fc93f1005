#include "tests/support/tiny_multi30k.h"

#include <fstream>
#include <stdexcept>
#include <vector>

#include "experiments/mt/parallel_corpus.h"
#include "experiments/mt/subword_model.h"

namespace recurlab::testing {
namespace {

const std::string kMulti30k = "../shared/data/multi30k";

}  // namespace

std::string tinyMulti30kUnavailableReason() {
  if (!std::filesystem::exists(kMulti30k + "/val.en.gz")) return "no " + kMulti30k;
  return experiments::SubwordModel::unavailableReason();
}

void writeTinyMulti30k(const std::filesystem::path& folder, const Multi30kSlices& slices) {
  std::filesystem::create_directories(folder);
  for (const char* language : {"en", "de"}) {
    const auto lines = experiments::readCorpusLines(kMulti30k + "/val." + language + ".gz");
    if (lines.size() < slices.train + slices.valid + slices.test)
      throw std::runtime_error(kMulti30k + "/val." + language + ".gz: " +
                               std::to_string(lines.size()) + " lines, fewer than the slices");
    size_t next = 0;
    for (const auto& [split, count] : {std::pair<const char*, size_t>{"train", slices.train},
                                       {"valid", slices.valid},
                                       {"test", slices.test}}) {
      std::ofstream out(folder / (std::string(split) + "." + language));
      for (size_t end = next + count; next < end; ++next) out << lines[next] << "\n";
    }
  }
}

}  // namespace recurlab::testing
