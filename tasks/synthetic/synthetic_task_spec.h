#pragma once
// One task of the synthetic suite as the config names it (configs/synthetic/*.json, key
// "tasks": name -> {"kind": ..., its keys}), and its data: train sequences at the train
// length, test sequences at the test length (longer: length generalisation), dev sequences at
// the train length unless the dev keys say otherwise, all drawn from a seed, no files.
#include <torch/torch.h>

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

// One split's sequences: how many, and the lengths they are drawn from. Each length is drawn
// uniformly from [min_length, length] (arithmetic: its odd values), as Deletang et al. 2023
// train on lengths 1 to 40 and test on 41 to 500; equal to length (the default), every sequence
// has that length and no draw is made. Shorter sequences are padded after their end with
// SyntheticTaskSpec::padToken(), asked nothing there, so a causal mixer reads each as if alone.
struct SyntheticSplitSpec {
  int64_t min_length = 0, length = 0;
  int64_t count = 0;  // mqar: key-value pairs; selective_copy: tokens to copy; else 0
  int64_t examples = 0;
  bool lengthsVary() const { return min_length < length; }
};

struct SyntheticTaskSpec {
  std::string name;  // its key in "tasks", e.g. "mqar-64"
  // mqar, selective_copy, induction, parity, cycle, arithmetic, majority
  std::string kind;
  int64_t vocabulary = 0;  // mqar, selective_copy, induction
  // The config's keys <split>_length, <split>_min_length, <split>_count, <split>_examples. The
  // test is longer (length generalisation). Dev defaults to the train range and count; given
  // the test's, the learning rate and the epoch are chosen by how well a model generalises to
  // longer sequences (of its own stream, not the test's), not among rates that all fit the
  // training lengths.
  SyntheticSplitSpec train, dev, test;
  double power = 0.01;  // mqar: the query slots' power law
  int64_t symbols = 2;  // majority

  // Reads one entry of "tasks"; errors name `where`.<key>.
  static SyntheticTaskSpec fromJson(const std::string& name, const nlohmann::json& json,
                                    const std::string& where);
  // The keys fromJson reads for this kind, every one written: fromJson(name, toJson()) gives
  // this spec again (a kept model's task).
  nlohmann::json toJson() const;
  int64_t inputVocabulary() const;  // embedding rows (the pad token's too, when lengths vary)
  int64_t outputClasses() const;    // the head's outputs (targets are < this)
  bool lengthsVary() const;
  // train, dev and test by the name their config keys begin with.
  std::array<std::pair<std::string, const SyntheticSplitSpec*>, 3> namedSplits() const {
    return {{{"train", &train}, {"dev", &dev}, {"test", &test}}};
  }
  int64_t padToken() const;         // after the task's own tokens; used only when lengths vary
  // One sequence of exactly this length (and count, for mqar and selective_copy); the splits
  // draw the lengths (makeSyntheticData).
  SyntheticSequence sampleOfLength(std::mt19937_64& rng, int64_t length, int64_t count) const;
};

std::vector<std::string> syntheticTaskKinds();

// Sequences stacked: tokens and targets (N, L) int64, L the longest sequence's length (shorter
// ones padded, see SyntheticSplitSpec).
struct SyntheticSplit {
  torch::Tensor tokens, targets;
  std::vector<int64_t> lengths;  // each sequence's drawn length (the task's `length`)
  // The test split of a recall task: (N, L) where each asked position's answer was shown
  // (SyntheticSequence::sources); undefined for train and dev and the state-tracking tasks.
  torch::Tensor sources;
  int64_t size() const { return tokens.size(0); }
  int64_t length() const { return tokens.size(1); }
};

struct SyntheticData {
  SyntheticSplit train, dev, test;
};

// Every sequence from `seed` (its own stream per split): the same seed, the same data.
SyntheticData makeSyntheticData(const SyntheticTaskSpec& spec, uint64_t seed);
// The test split alone, as makeSyntheticData draws it from `seed`.
SyntheticSplit makeSyntheticTestSplit(const SyntheticTaskSpec& spec, uint64_t seed);

}  // namespace recurlab::experiments
