#pragma once
// Training hyperparameters shared by the experiments, read from a config's "train" object.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace recurlab::experiments {

struct TrainOptions {
  std::string optimizer = "adam";  // "adam" or "sgd"
  double lr = 1e-3;
  double momentum = 0.0;           // sgd only
  double weight_decay = 0.0;       // L2 added to the gradient (torch's weight_decay)
  double clip = 0.0;               // max gradient norm; 0 = no clipping
  int64_t batch_size = 32;
  int64_t max_epochs = 100;
  int64_t patience = 30;           // early stopping: epochs without a better dev metric
  int64_t lr_patience = 10;        // epochs without improvement before lr *= lr_decay
  double lr_decay = 0.5;
  double min_lr = 0.0;             // lr never goes below this
  int64_t embed_dim = 300;         // ignored when pretrained vectors fix it
  double embed_dropout = 0.5;
  double dropout = 0.5;            // before the output layer
  int64_t max_train_examples = 0;  // 0 = all; >0 keeps the first n of the shuffled train set

  // Checked read: unknown keys, wrong types and out-of-range values throw
  // std::invalid_argument naming `where`.key and what is accepted.
  static TrainOptions fromJson(const nlohmann::json& train, const std::string& where);
};

}  // namespace recurlab::experiments
