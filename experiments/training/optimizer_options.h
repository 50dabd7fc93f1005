#pragma once
// How parameters are updated: optimizer, learning rate and its schedule, weight decay,
// gradient clipping and accumulation. Read from a config's "train" object (the keys below),
// separate from the loop's options (trainer_options.h) and the task's own (e.g. the head's).
#include <cstdint>
#include <string>
#include <vector>

namespace recurlab {
class JsonOptions;
}

namespace recurlab::experiments {

struct OptimizerOptions {
  std::string optimizer = "adam";  // adam, adamw (decoupled weight decay), sgd or adamax
  double lr = 1e-3;                // base learning rate (the peak of noam/inverse_sqrt)
  double momentum = 0.0;           // sgd only
  double weight_decay = 0.0;       // adam/sgd: L2 added to the gradient; adamw: decoupled
  double clip = 0.0;               // max global gradient norm; 0 = no clipping
  int64_t accumulate = 1;          // batches whose gradients are summed per optimizer step
  // constant; plateau: lr *= lr_decay after lr_patience epochs without a better selection
  // metric (never below min_lr); noam (Vaswani et al. 2017 §5.3):
  // lr * model_dim^-0.5 * min(s^-0.5, s * warmup^-1.5), lr being the paper's scale factor;
  // inverse_sqrt: lr * min(s / warmup, sqrt(warmup / s)), peak lr at s = warmup
  // (s = optimizer steps, from 1); milestones: lr *= lr_decay before each epoch of
  // lr_decay_epochs (fixed epochs, as PyTorch's MultiStepLR; Zaremba et al. 2014 decay every
  // epoch after the first few), never below min_lr.
  std::string schedule = "plateau";
  std::vector<int64_t> lr_decay_epochs;  // milestones only: increasing, from 2
  int64_t warmup_steps = 4000;
  int64_t model_dim = 512;         // noam only
  int64_t lr_patience = 10;
  double lr_decay = 0.5;
  double min_lr = 0.0;
  // adam/adamw/adamax moments (Kingma & Ba 2015; adamax: §7.1, DrQA's optimizer); Lei et al. 2018 App. B.3 train translation with
  // beta2 = 0.998.
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;

  // Reads the keys above from `j` (the caller calls j.finish()): wrong types and ranges throw
  // std::invalid_argument naming the key.
  static OptimizerOptions read(JsonOptions& j);
};

}  // namespace recurlab::experiments
