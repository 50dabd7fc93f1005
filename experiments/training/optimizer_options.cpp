#include "experiments/training/optimizer_options.h"

#include "common/json_options.h"

#include <stdexcept>
#include <string>

namespace recurlab::experiments {

OptimizerOptions OptimizerOptions::read(JsonOptions& j) {
  OptimizerOptions o;
  o.optimizer = j.getString("optimizer", o.optimizer, {"adam", "adamw", "sgd", "adamax"});
  o.lr = j.getDouble("lr", o.lr, 1e-8, 100.0);
  o.momentum = j.getDouble("momentum", o.momentum, 0.0, 0.999);
  o.weight_decay = j.getDouble("weight_decay", o.weight_decay, 0.0, 1.0);
  o.clip = j.getDouble("clip", o.clip, 0.0, 1e6);
  o.accumulate = j.getInt("accumulate", o.accumulate, 1, 1 << 16);
  o.schedule = j.getString("schedule", o.schedule,
                           {"constant", "plateau", "noam", "inverse_sqrt", "milestones"});
  o.lr_decay_epochs = j.getIntList("lr_decay_epochs", o.lr_decay_epochs, 2, 100000);
  if (o.schedule == "milestones" && o.lr_decay_epochs.empty())
    throw std::invalid_argument(j.where() +
                                ": key 'lr_decay_epochs' is missing; the milestones schedule "
                                "needs the epochs before which the lr decays, e.g. [11, 13]");
  if (o.schedule != "milestones" && !o.lr_decay_epochs.empty())
    throw std::invalid_argument(j.where() + ": key 'lr_decay_epochs' is read by the milestones "
                                "schedule only; this schedule is " + o.schedule);
  for (size_t i = 1; i < o.lr_decay_epochs.size(); ++i)
    if (o.lr_decay_epochs[i] <= o.lr_decay_epochs[i - 1])
      throw std::invalid_argument(j.where() + ": key 'lr_decay_epochs' is invalid; expected "
                                  "increasing epochs, " + std::to_string(o.lr_decay_epochs[i]) +
                                  " follows " + std::to_string(o.lr_decay_epochs[i - 1]));
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
