#include "experiments/training/trainer_options.h"

#include "common/json_options.h"

namespace recurlab::experiments {

TrainerOptions TrainerOptions::read(JsonOptions& j) {
  TrainerOptions o;
  o.max_epochs = j.getInt("max_epochs", o.max_epochs, 1, 100000);
  o.patience = j.getInt("patience", o.patience, 1, 100000);
  o.log_every_steps = j.getInt("log_every_steps", o.log_every_steps, 0, 1LL << 40);
  o.checkpoint_every_steps = j.getInt("checkpoint_every_steps", o.checkpoint_every_steps, 0, 1LL << 40);
  o.checkpoints = j.getBool("checkpoints", o.checkpoints);
  o.keep_last_epochs = j.getInt("keep_last_epochs", o.keep_last_epochs, 0, 1000);
  o.max_parameter = j.getDouble("max_parameter", o.max_parameter, 1.0, 1e30);
  return o;
}

}  // namespace recurlab::experiments
