#pragma once
// A sequence mixer kept by its synthetic unit (experiments/kept_model/kept_model.h): config.json
// holds the task (its name and keys, synthetic_task_spec.h), the encoder, its config, the width,
// the input vocabulary and output classes and the batch size. And the command on it,
// recurlab_synthetic evaluate --model DIR [--lengths 40,80,...] [--examples N] [--seed S]: the
// kept model scored on fresh sequences of the task at each length, every sequence at exactly
// that length: how far what it learned carries beyond the lengths it was trained and tested on.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/harness/experiment_command_line.h"
#include "tasks/synthetic/synthetic_task_spec.h"
#include "tasks/synthetic/token_mixer_model.h"

namespace recurlab::experiments {

struct KeptMixer {
  TokenMixerModel model{nullptr};
  SyntheticTaskSpec task;
  int64_t batch_size = 64;
};

// Opens, checks and loads a kept mixer (errors name the file and what is wrong).
KeptMixer loadKeptMixer(const std::string& dir);

struct LengthScore {
  int64_t length = 0, sequences = 0, questions = 0;
  int64_t right = 0;            // questions answered right
  int64_t exact_sequences = 0;  // sequences with every question right
  double accuracy() const { return static_cast<double>(right) / static_cast<double>(questions); }
  double exactMatch() const {
    return static_cast<double>(exact_sequences) / static_cast<double>(sequences);
  }
};

// `examples` sequences of the task at each length, drawn from `seed` (each length its own
// stream: the same seed and length, the same sequences), scored in batches of `batch_size`.
// A length the task cannot have (an even arithmetic expression, too short for MQAR's pairs)
// is an error naming it.
std::vector<LengthScore> scoreAtLengths(KeptMixer& mixer, const std::vector<int64_t>& lengths,
                                        int64_t examples, uint64_t seed, int64_t batch_size,
                                        torch::Device device);

// "40,80,160" -> {40, 80, 160}; anything else is an error naming --lengths and the form.
std::vector<int64_t> parseLengths(const std::string& text);

// The CSV's first line.
inline constexpr const char* kLengthScoreHeader =
    "length,sequences,questions,right,exact_sequences,accuracy,exact_match";

ModelCommandSpec evaluateCommand();

}  // namespace recurlab::experiments
