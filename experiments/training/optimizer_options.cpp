#include "experiments/training/optimizer_options.h"

#include "common/json_options.h"

namespace recurlab::experiments {

OptimizerOptions OptimizerOptions::read(JsonOptions& j) {
  OptimizerOptions o;
  o.optimizer = j.getString("optimizer", o.optimizer, {"adam", "adamw", "sgd", "adamax"});
  o.lr = j.getDouble("lr", o.lr, 1e-8, 100.0);
  o.momentum = j.getDouble("momentum", o.momentum, 0.0, 0.999);
  o.weight_decay = j.getDouble("weight_decay", o.weight_decay, 0.0, 1.0);
  o.clip = j.getDouble("clip", o.clip, 0.0, 1e6);
  o.accumulate = j.getInt("accumulate", o.accumulate, 1, 1 << 16);
  o.schedule = j.getString("schedule", o.schedule, {"constant", "plateau", "noam", "inverse_sqrt"});
  o.warmup_steps = j.getInt("warmup_steps", o.warmup_steps, 1, 1LL << 40);
  o.model_dim = j.getInt("model_dim", o.model_dim, 1, 1 << 20);
  o.lr_patience = j.getInt("lr_patience", o.lr_patience, 1, 100000);
  o.lr_decay = j.getDouble("lr_decay", o.lr_decay, 0.01, 1.0);
  o.min_lr = j.getDouble("min_lr", o.min_lr, 0.0, 1.0);
  o.beta1 = j.getDouble("beta1", o.beta1, 0.0, 0.999999);
  o.beta2 = j.getDouble("beta2", o.beta2, 0.0, 0.999999);
  o.eps = j.getDouble("eps", o.eps, 1e-12, 1.0);
  return o;
}

}  // namespace recurlab::experiments
