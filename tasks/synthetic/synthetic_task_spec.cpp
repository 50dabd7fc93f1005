#include "tasks/synthetic/synthetic_task_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "common/json_options.h"
#include "experiments/search/seed_sequence.h"
#include "tasks/synthetic/recall_tasks.h"
#include "tasks/synthetic/state_tracking_tasks.h"

namespace recurlab::experiments {
namespace {

bool usesVocabulary(const std::string& kind) {
  return kind == "mqar" || kind == "selective_copy" || kind == "induction";
}

bool usesCount(const std::string& kind) { return kind == "mqar" || kind == "selective_copy"; }

// The lengths a split draws from: [min, max], only the odd ones for arithmetic expressions.
struct LengthRange {
  int64_t min, max;
  bool odd_only;
  int64_t shortest() const { return odd_only ? min | 1 : min; }
  int64_t draw(std::mt19937_64& rng) const {
    if (min == max) return max;  // no draw: fixed-length data stay as they were
    if (!odd_only) return uniformInt(rng, min, max);
    return shortest() + 2 * uniformInt(rng, 0, (max - shortest()) / 2);
  }
};

enum class Split { Train, Dev, Test };

LengthRange rangeOf(const SyntheticTaskSpec& spec, Split split) {
  const bool odd_only = spec.kind == "arithmetic";
  if (split == Split::Train) return {spec.train_min_length, spec.train_length, odd_only};
  if (split == Split::Dev) return {spec.dev_min_length, spec.dev_length, odd_only};
  return {spec.test_min_length, spec.test_length, odd_only};
}

int64_t countOf(const SyntheticTaskSpec& spec, Split split) {
  if (split == Split::Train) return spec.train_count;
  return split == Split::Dev ? spec.dev_count : spec.test_count;
}

// Samples at both ends of each range now, so that a bad combination (too many pairs for the
// shortest length, an even expression length) fails when the config is read, naming the task.
void checkSamples(const SyntheticTaskSpec& spec, const std::string& where) {
  std::mt19937_64 rng(1);
  try {
    for (const Split split : {Split::Train, Split::Dev, Split::Test}) {
      const LengthRange r = rangeOf(spec, split);
      const int64_t count = countOf(spec, split);
      spec.sampleOfLength(rng, r.max, count);
      if (r.min < r.max) spec.sampleOfLength(rng, r.shortest(), count);
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

SyntheticSplit makeSplit(const SyntheticTaskSpec& spec, uint64_t seed, int64_t examples, Split split) {
  std::mt19937_64 rng(seed);
  const LengthRange range = rangeOf(spec, split);
  const int64_t count = countOf(spec, split);
  std::vector<SyntheticSequence> sequences;
  sequences.reserve(static_cast<size_t>(examples));
  std::vector<int64_t> lengths;
  size_t width = 0;
  for (int64_t i = 0; i < examples; ++i) {
    lengths.push_back(range.draw(rng));
    sequences.push_back(spec.sampleOfLength(rng, lengths.back(), count));
    width = std::max(width, sequences.back().tokens.size());
  }
  // Only the test split is scored per question: train and dev drop the sources.
  const bool recall = split == Split::Test && !sequences.front().sources.empty();
  std::vector<int64_t> tokens, targets, sources;
  tokens.reserve(width * sequences.size());
  targets.reserve(width * sequences.size());
  if (recall) sources.reserve(width * sequences.size());
  for (const auto& s : sequences) {
    const size_t pad = width - s.tokens.size();
    tokens.insert(tokens.end(), s.tokens.begin(), s.tokens.end());
    tokens.insert(tokens.end(), pad, spec.padToken());
    targets.insert(targets.end(), s.targets.begin(), s.targets.end());
    targets.insert(targets.end(), pad, kNoTarget);
    if (!recall) continue;
    sources.insert(sources.end(), s.sources.begin(), s.sources.end());
    sources.insert(sources.end(), pad, kNoTarget);
  }
  auto tensor = [&](std::vector<int64_t>& v) {
    return torch::tensor(v, torch::kInt64).view({examples, static_cast<int64_t>(width)});
  };
  return {tensor(tokens), tensor(targets), std::move(lengths),
          recall ? tensor(sources) : torch::Tensor()};
}

}  // namespace

std::vector<std::string> syntheticTaskKinds() {
  return {"mqar", "selective_copy", "induction", "parity", "cycle", "arithmetic", "majority"};
}

SyntheticTaskSpec SyntheticTaskSpec::fromJson(const std::string& name, const nlohmann::json& json,
                                              const std::string& where) {
  JsonOptions j(json, where);
  SyntheticTaskSpec s;
  s.name = name;
  s.kind = j.getString("kind", "", syntheticTaskKinds());
  if (s.kind.empty()) throw std::invalid_argument(where + ": key 'kind' is missing");
  if (usesVocabulary(s.kind))
    s.vocabulary = j.getInt("vocabulary", s.kind == "mqar" ? 8192 : 16, 3, 1 << 20);
  s.train_length = j.getInt("train_length", 64, 1, 1 << 20);
  s.test_length = j.getInt("test_length", s.train_length, 1, 1 << 20);
  s.train_min_length = j.getInt("train_min_length", s.train_length, 1, s.train_length);
  s.test_min_length = j.getInt("test_min_length", s.test_length, 1, s.test_length);
  // Without dev_length the dev range is the train range; with it alone, every dev sequence has
  // that length (as for the train and test keys).
  const bool dev_range = j.has("dev_length");
  s.dev_length = j.getInt("dev_length", s.train_length, 1, 1 << 20);
  s.dev_min_length =
      j.getInt("dev_min_length", dev_range ? s.dev_length : s.train_min_length, 1, s.dev_length);
  if (usesCount(s.kind)) {
    s.train_count = j.getInt("train_count", s.kind == "mqar" ? 4 : 8, 1, 1 << 20);
    s.dev_count = j.getInt("dev_count", s.train_count, 1, 1 << 20);
    s.test_count = j.getInt("test_count", s.train_count, 1, 1 << 20);
  }
  if (s.kind == "mqar") s.power = j.getDouble("power", s.power, 1e-6, 1.0);
  if (s.kind == "majority") s.symbols = j.getInt("symbols", s.symbols, 2, 1 << 16);
  s.train_examples = j.getInt("train_examples", 10000, 1, 1LL << 32);
  s.dev_examples = j.getInt("dev_examples", 500, 1, 1LL << 32);
  s.test_examples = j.getInt("test_examples", 1000, 1, 1LL << 32);
  j.finish();
  checkSamples(s, where);
  return s;
}

nlohmann::json SyntheticTaskSpec::toJson() const {
  nlohmann::json j = {{"kind", kind},
                      {"train_length", train_length},
                      {"dev_length", dev_length},
                      {"test_length", test_length},
                      {"train_min_length", train_min_length},
                      {"dev_min_length", dev_min_length},
                      {"test_min_length", test_min_length},
                      {"train_examples", train_examples},
                      {"dev_examples", dev_examples},
                      {"test_examples", test_examples}};
  if (usesVocabulary(kind)) j["vocabulary"] = vocabulary;
  if (usesCount(kind))
    j["train_count"] = train_count, j["dev_count"] = dev_count, j["test_count"] = test_count;
  if (kind == "mqar") j["power"] = power;
  if (kind == "majority") j["symbols"] = symbols;
  return j;
}

bool SyntheticTaskSpec::lengthsVary() const {
  return train_min_length < train_length || dev_min_length < dev_length ||
         test_min_length < test_length;
}

int64_t SyntheticTaskSpec::inputVocabulary() const { return padToken() + (lengthsVary() ? 1 : 0); }

int64_t SyntheticTaskSpec::padToken() const {
  if (usesVocabulary(kind)) return vocabulary;
  if (kind == "parity") return 3;
  if (kind == "cycle") return 4;
  if (kind == "arithmetic") return arithmetic_token::kEquals + 1;
  return symbols + 1;  // majority
}

int64_t SyntheticTaskSpec::outputClasses() const {
  if (usesVocabulary(kind)) return vocabulary;
  if (kind == "parity") return 2;
  if (kind == "majority") return symbols;
  return kModulus;  // cycle (5 positions), arithmetic (mod 5)
}

SyntheticSequence SyntheticTaskSpec::sampleOfLength(std::mt19937_64& rng, int64_t length,
                                                    int64_t count) const {
  if (kind == "mqar") return sampleMqar(rng, vocabulary, length, count, power);
  if (kind == "selective_copy") return sampleSelectiveCopy(rng, vocabulary, length, count);
  if (kind == "induction") return sampleInduction(rng, vocabulary, length);
  if (kind == "parity") return sampleParity(rng, length);
  if (kind == "cycle") return sampleCycle(rng, length);
  if (kind == "arithmetic") return sampleArithmetic(rng, length);
  if (kind == "majority") return sampleMajority(rng, length, symbols);
  throw std::logic_error("synthetic task: unknown kind '" + kind + "'");
}

SyntheticData makeSyntheticData(const SyntheticTaskSpec& spec, uint64_t seed) {
  return {makeSplit(spec, deriveSeed(seed, "train"), spec.train_examples, Split::Train),
          makeSplit(spec, deriveSeed(seed, "dev"), spec.dev_examples, Split::Dev),
          makeSyntheticTestSplit(spec, seed)};
}

SyntheticSplit makeSyntheticTestSplit(const SyntheticTaskSpec& spec, uint64_t seed) {
  return makeSplit(spec, deriveSeed(seed, "test"), spec.test_examples, Split::Test);
}

}  // namespace recurlab::experiments
