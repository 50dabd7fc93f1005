#pragma once
// Input batches for the SRU variance study: every configuration (alpha, highway bias) sees
// the same batches, so differences between curves come from the configuration alone.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace recurlab::experiments {

struct WordVectors;

struct VarianceBatch {
  at::Tensor x;         // (L, B, dim) float
  at::Tensor mask_pad;  // (L, B) bool, true = pad; undefined when there is none
  at::Tensor weight;    // (L, B) float, 1 where a step enters the statistics
};

class VarianceInputSource {
 public:
  virtual ~VarianceInputSource() = default;
  virtual std::string name() const = 0;         // "iid", "correlated", "sentences", "pretrained"
  virtual std::string description() const = 0;  // one line for the report
  virtual int64_t dim() const = 0;
  virtual int64_t numBatches() const = 0;
  virtual VarianceBatch batch(int64_t index) const = 0;  // deterministic per index
};

// x_t ~ N(0, std²) i.i.d. over time, batch and units; first burn_in steps not counted.
std::unique_ptr<VarianceInputSource> makeIidInput(int64_t dim, int64_t length, int64_t samples,
                                                  int64_t batch, int64_t burn_in, double std,
                                                  int64_t seed);
// x_t = x for all t, x ~ N(0, std²) per sequence.
std::unique_ptr<VarianceInputSource> makeCorrelatedInput(int64_t dim, int64_t length,
                                                         int64_t samples, int64_t batch,
                                                         int64_t burn_in, double std,
                                                         int64_t seed);

// Tokenized sentences (one vector of tokens each), looked up in a fixed table.
struct SentenceSample {
  std::vector<std::vector<std::string>> sentences;
  std::string source;  // file they came from
};
// `count` sentences of an "LABEL tokens..." file, chosen by a seeded shuffle.
SentenceSample readSentenceSample(const std::string& path, int64_t count, int64_t seed);

// Sentences through a random embedding table with entries ~ N(0, std²), one row per word type.
std::unique_ptr<VarianceInputSource> makeRandomEmbeddingInput(const SentenceSample& sample,
                                                              int64_t dim, int64_t batch,
                                                              double std, int64_t seed);
// Sentences through pretrained vectors; words without a vector are dropped from the sentence
// (so that the input is the vectors' own distribution), empty sentences skipped.
std::unique_ptr<VarianceInputSource> makePretrainedInput(const SentenceSample& sample,
                                                         const WordVectors& vectors,
                                                         const std::string& vectors_path,
                                                         int64_t batch);

}  // namespace recurlab::experiments
