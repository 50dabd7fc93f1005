#pragma once
// The synthetic suite's config (configs/synthetic/*.json), checked in full before any work:
// the tasks (name -> {"kind": ..., its keys}, synthetic_task_spec.h), the models (name ->
// {"encoder": <registry name>, "config": {...}, "train": {...}}), the widths (each model's
// encoder gets "hidden": width, the embedding the same width), the learning-rate grid (every
// model and width trains at each rate, as Arora et al. 2023 do), and the seeds (each seed its
// own data and initialisation; the data of a seed are the same for every model, so models can
// be compared sequence by sequence). Unknown keys and bad values are errors naming the key.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "experiments/training/optimizer_options.h"
#include "experiments/training/trainer_options.h"
#include "tasks/synthetic/synthetic_task_spec.h"

namespace recurlab::experiments {

struct SyntheticModelSpec {
  std::string name;       // its key in "models", the label in the log and the report
  std::string encoder;    // registry name
  nlohmann::json config;  // the encoder's keys but "hidden" (the width)
  nlohmann::json train;   // overrides of the shared "train" keys
};

// A unit's "train" object: the optimizer's keys, the loop's and the batch size.
struct SyntheticTrainOptions {
  OptimizerOptions optimizer;
  TrainerOptions trainer;
  int64_t batch_size = 64;
  static SyntheticTrainOptions fromJson(const nlohmann::json& train, const std::string& where);
};

struct SyntheticConfig {
  int64_t seed = 1;
  std::string keep_model = "none";
  std::vector<SyntheticTaskSpec> tasks;
  std::vector<SyntheticModelSpec> models;
  std::vector<int64_t> widths;
  std::vector<double> learning_rates;
  int64_t seeds = 1;
  nlohmann::json train;  // shared training keys ("lr" comes from the grid)

  static SyntheticConfig fromJson(const nlohmann::json& config);
  const SyntheticTaskSpec& task(const std::string& name) const;
  const SyntheticModelSpec& model(const std::string& name) const;
  // {"encoder": ..., "config": {..., "hidden": width}, "train": {..., "lr": lr}}.
  nlohmann::json unitTemplate(const SyntheticModelSpec& model, int64_t width, double lr) const;
};

}  // namespace recurlab::experiments
