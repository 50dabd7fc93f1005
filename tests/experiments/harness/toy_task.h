#pragma once
// A second task for the harness tests, with no classification code: regress the sum of a
// random 6-number sequence with one linear layer (lower dev MSE is better). Its whole
// task-specific driver is toy_task.cpp's first 40 lines.
#include <nlohmann/json.hpp>

#include "experiments/harness/task.h"

namespace recurlab::experiments {

// config: {"trials": T, "seeds": S, "train": {optimizer + trainer keys, "examples": N,
// "batch_size": B}}; train values may be search spaces.
std::unique_ptr<Task> makeToyTask(const nlohmann::json& config);

// The toy as a command-line program (build/recurlab_toy_task [driver options]), for the
// SIGKILL tests: one command-line parser, one run folder, one runner.
int toyTaskMain(int argc, char** argv);

}  // namespace recurlab::experiments
