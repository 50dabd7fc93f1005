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

LengthRange rangeOf(const SyntheticTaskSpec& spec, const SyntheticSplitSpec& split) {
  return {split.min_length, split.length, spec.kind == "arithmetic"};
}

// Samples at both ends of each range now, so that a bad combination (too many pairs for the
// shortest length, an even expression length) fails when the config is read, naming the task.
void checkSamples(const SyntheticTaskSpec& spec, const std::string& where) {
  std::mt19937_64 rng(1);
  try {
    for (const auto& [name, split] : spec.namedSplits()) {
      const LengthRange r = rangeOf(spec, *split);
      spec.sampleOfLength(rng, r.max, split->count);
      if (r.min < r.max) spec.sampleOfLength(rng, r.shortest(), split->count);
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

// `with_sources`: the test split, scored per question.
SyntheticSplit makeSplit(const SyntheticTaskSpec& spec, const SyntheticSplitSpec& split,
                         uint64_t seed, bool with_sources) {
  std::mt19937_64 rng(seed);
  const LengthRange range = rangeOf(spec, split);
  const int64_t examples = split.examples;
  std::vector<SyntheticSequence> sequences;
  sequences.reserve(static_cast<size_t>(examples));
  std::vector<int64_t> lengths;
  size_t width = 0;
  for (int64_t i = 0; i < examples; ++i) {
    lengths.push_back(range.draw(rng));
    sequences.push_back(spec.sampleOfLength(rng, lengths.back(), split.count));
    width = std::max(width, sequences.back().tokens.size());
  }
  // Only the test split is scored per question: train and dev drop the sources.
  const bool recall = with_sources && !sequences.front().sources.empty();
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
  s.train.length = j.getInt("train_length", 64, 1, 1 << 20);
  s.test.length = j.getInt("test_length", s.train.length, 1, 1 << 20);
  s.train.min_length = j.getInt("train_min_length", s.train.length, 1, s.train.length);
  s.test.min_length = j.getInt("test_min_length", s.test.length, 1, s.test.length);
  // Without dev_length the dev range is the train range; with it alone, every dev sequence has
  // that length (as for the train and test keys).
  const bool dev_range = j.has("dev_length");
  s.dev.length = j.getInt("dev_length", s.train.length, 1, 1 << 20);
  s.dev.min_length =
      j.getInt("dev_min_length", dev_range ? s.dev.length : s.train.min_length, 1, s.dev.length);
  if (usesCount(s.kind)) {
    s.train.count = j.getInt("train_count", s.kind == "mqar" ? 4 : 8, 1, 1 << 20);
    s.dev.count = j.getInt("dev_count", s.train.count, 1, 1 << 20);
    s.test.count = j.getInt("test_count", s.train.count, 1, 1 << 20);
  }
  if (s.kind == "mqar") s.power = j.getDouble("power", s.power, 1e-6, 1.0);
  if (s.kind == "majority") s.symbols = j.getInt("symbols", s.symbols, 2, 1 << 16);
  s.train.examples = j.getInt("train_examples", 10000, 1, 1LL << 32);
  s.dev.examples = j.getInt("dev_examples", 500, 1, 1LL << 32);
  s.test.examples = j.getInt("test_examples", 1000, 1, 1LL << 32);
  j.finish();
  checkSamples(s, where);
  return s;
}

nlohmann::json SyntheticTaskSpec::toJson() const {
  nlohmann::json j = {{"kind", kind}};
  for (const auto& [prefix, split] : namedSplits()) {
    j[prefix + "_length"] = split->length;
    j[prefix + "_min_length"] = split->min_length;
    j[prefix + "_examples"] = split->examples;
    if (usesCount(kind)) j[prefix + "_count"] = split->count;
  }
  if (usesVocabulary(kind)) j["vocabulary"] = vocabulary;
  if (kind == "mqar") j["power"] = power;
  if (kind == "majority") j["symbols"] = symbols;
  return j;
}

bool SyntheticTaskSpec::lengthsVary() const {
  return train.lengthsVary() || dev.lengthsVary() || test.lengthsVary();
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
  return {makeSplit(spec, spec.train, deriveSeed(seed, "train"), /*with_sources=*/false),
          makeSplit(spec, spec.dev, deriveSeed(seed, "dev"), /*with_sources=*/false),
          makeSyntheticTestSplit(spec, seed)};
}

SyntheticSplit makeSyntheticTestSplit(const SyntheticTaskSpec& spec, uint64_t seed) {
  return makeSplit(spec, spec.test, deriveSeed(seed, "test"), /*with_sources=*/true);
}

}  // namespace recurlab::experiments
