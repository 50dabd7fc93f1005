#pragma once
// One task of the synthetic suite as the config names it (configs/synthetic/*.json, key
// "tasks": name -> {"kind": ..., its keys}), and its data: train and dev sequences at the
// train length, test sequences at the test length (longer: length generalisation), all drawn
// from a seed, no files.
#include <torch/torch.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

struct SyntheticTaskSpec {
  std::string name;  // its key in "tasks", e.g. "mqar-64"
  // mqar, selective_copy, induction, parity, cycle, arithmetic, majority
  std::string kind;
  int64_t vocabulary = 0;    // mqar, selective_copy, induction
  int64_t train_length = 0;  // the task's length (see each kind's sampler)
  int64_t test_length = 0;
  int64_t train_count = 0;   // mqar: key-value pairs; selective_copy: tokens to copy
  int64_t test_count = 0;
  double power = 0.01;       // mqar: the query slots' power law
  int64_t symbols = 2;       // majority
  int64_t train_examples = 0, dev_examples = 0, test_examples = 0;

  // Reads one entry of "tasks"; errors name `where`.<key>.
  static SyntheticTaskSpec fromJson(const std::string& name, const nlohmann::json& json,
                                    const std::string& where);
  int64_t inputVocabulary() const;  // embedding rows
  int64_t outputClasses() const;    // the head's outputs (targets are < this)
  // One sequence at the train (false) or test (true) length.
  SyntheticSequence sample(std::mt19937_64& rng, bool test) const;
};

std::vector<std::string> syntheticTaskKinds();

// Sequences of one length stacked: tokens and targets (N, L) int64.
struct SyntheticSplit {
  torch::Tensor tokens, targets;
  int64_t size() const { return tokens.size(0); }
  int64_t length() const { return tokens.size(1); }
};

struct SyntheticData {
  SyntheticSplit train, dev, test;
};

// Every sequence from `seed` (its own stream per split): the same seed, the same data.
SyntheticData makeSyntheticData(const SyntheticTaskSpec& spec, uint64_t seed);

}  // namespace recurlab::experiments
