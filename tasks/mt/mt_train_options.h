#pragma once
// A translation unit's "train" object, split by concern: the optimizer's keys
// (OptimizerOptions), the loop's (TrainerOptions) and the task's own (token batches, label
// smoothing).
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

#include "experiments/training/optimizer_options.h"
#include "experiments/training/trainer_options.h"

namespace recurlab::experiments {

struct MtTrainOptions {
  OptimizerOptions optimizer;
  TrainerOptions trainer;
  int64_t max_tokens = 4096;      // per batch: sentences x longest side, eos included
  double label_smoothing = 0.1;

  static MtTrainOptions fromJson(const nlohmann::json& train, const std::string& where);
};

}  // namespace recurlab::experiments
