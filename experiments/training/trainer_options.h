#pragma once
// The training loop's options (besides the optimizer's, optimizer_options.h): how long,
// early stopping, log rows every N steps, checkpoints, divergence limits.
#include <cstdint>

namespace recurlab {
class JsonOptions;
}

namespace recurlab::experiments {

struct TrainerOptions {
  int64_t max_epochs = 100;
  int64_t patience = 30;               // early stopping: epochs without a better selection metric
  int64_t log_every_steps = 0;         // a `steps` table row every N optimizer steps; 0 = none
  int64_t checkpoint_every_steps = 0;  // checkpoints also every N steps (always at epoch ends)
  bool checkpoints = true;             // write them at all (resume inside a unit needs them)
  int64_t keep_last_epochs = 0;        // also keep epoch-<k> checkpoints of the last k epochs
  double max_parameter = 1e6;          // divergence: a parameter beyond +-this (or NaN/inf)

  static TrainerOptions read(JsonOptions& j);  // the caller calls j.finish()
};

}  // namespace recurlab::experiments
