#pragma once
// A second task for the harness tests, with no classification code: regress the sum of a
// random 6-number sequence with one linear layer (lower dev MSE is better). Its whole
// task-specific code is toy_task.cpp's first 60 lines, its program toy_task_main.cpp.
#include <nlohmann/json.hpp>

#include "experiments/harness/task.h"

namespace recurlab::experiments {

// config: {"trials": T, "seeds": S, "train": {optimizer + trainer keys, "examples": N,
// "batch_size": B}}; train values may be search spaces.
std::unique_ptr<Task> makeToyTask(const nlohmann::json& config);

}  // namespace recurlab::experiments
