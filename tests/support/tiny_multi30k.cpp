#include "tests/support/tiny_multi30k.h"

#include <fstream>
#include <stdexcept>
#include <vector>

#include "tasks/mt/parallel_corpus.h"
#include "tasks/mt/subword_model.h"

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

nlohmann::json tinyMtConfig() {
  return nlohmann::json::parse(R"({
    "seed": 3,
    "data": {"train": ["train.en", "train.de"], "valid": ["valid.en", "valid.de"],
             "test": ["test.en", "test.de"], "max_length": 60},
    "subwords": {"type": "bpe", "vocabulary_size": 300},
    "train": {"max_epochs": 2, "lr": 0.003, "schedule": "inverse_sqrt", "warmup_steps": 5,
              "beta2": 0.998, "max_tokens": 600, "label_smoothing": 0.1},
    "decode": {"beam": 3, "average_last": 2, "max_length_b": 5, "max_length_a": 1.0},
    "models": {"tiny": {"model": "transformer",
                        "config": {"encoder_layers": 1, "decoder_layers": 2, "d_model": 16,
                                   "heads": 2, "ffn_hidden": 16, "dropout": 0.1}}}
  })");
}

nlohmann::json tinyMtRunConfig() {
  return nlohmann::json::parse(R"({
    "experiment": "mt", "seed": 3,
    "data": {"train": ["train.en", "train.de"], "valid": ["valid.en", "valid.de"],
             "test": ["test.en", "test.de"], "max_length": 60},
    "subwords": {"type": "bpe", "vocabulary_size": 300},
    "train": {"max_epochs": 2, "lr": 0.003, "schedule": "inverse_sqrt", "warmup_steps": 5,
              "beta2": 0.998, "max_tokens": 200, "label_smoothing": 0.1,
              "checkpoint_every_steps": 2},
    "decode": {"beam": 3, "average_last": 2, "max_length_b": 5, "max_length_a": 1.0,
               "test_every_epoch": "none", "batch_sentences": 4},
    "models": {"tiny": {"model": "transformer",
                        "config": {"encoder_layers": 1, "decoder_layers": 1, "d_model": 16,
                                   "heads": 2, "ffn_hidden": 16, "dropout": 0.0}}}
  })");
}

}  // namespace recurlab::testing
