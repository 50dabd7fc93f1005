#include "experiments/training/train_options.h"

#include "models/json_options.h"

namespace recurlab::experiments {

TrainOptions TrainOptions::fromJson(const nlohmann::json& train, const std::string& where) {
  JsonOptions j(train, where);
  TrainOptions o;
  o.optimizer = j.getString("optimizer", o.optimizer, {"adam", "sgd"});
  o.lr = j.getDouble("lr", o.lr, 1e-8, 100.0);
  o.momentum = j.getDouble("momentum", o.momentum, 0.0, 0.999);
  o.weight_decay = j.getDouble("weight_decay", o.weight_decay, 0.0, 1.0);
  o.clip = j.getDouble("clip", o.clip, 0.0, 1e6);
  o.batch_size = j.getInt("batch_size", o.batch_size, 1, 1 << 16);
  o.max_epochs = j.getInt("max_epochs", o.max_epochs, 1, 100000);
  o.patience = j.getInt("patience", o.patience, 1, 100000);
  o.lr_patience = j.getInt("lr_patience", o.lr_patience, 1, 100000);
  o.lr_decay = j.getDouble("lr_decay", o.lr_decay, 0.01, 1.0);
  o.min_lr = j.getDouble("min_lr", o.min_lr, 0.0, 1.0);
  o.embed_dim = j.getInt("embed_dim", o.embed_dim, 1, 4096);
  o.embed_dropout = j.getDouble("embed_dropout", o.embed_dropout, 0.0, 0.99);
  o.dropout = j.getDouble("dropout", o.dropout, 0.0, 0.99);
  o.max_train_examples = j.getInt("max_train_examples", o.max_train_examples, 0, 1LL << 40);
  j.finish();
  return o;
}

}  // namespace recurlab::experiments
