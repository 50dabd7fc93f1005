#include "tasks/classification/classification_train_options.h"

#include "common/json_options.h"

namespace recurlab::experiments {

ClassificationTrainOptions ClassificationTrainOptions::fromJson(const nlohmann::json& train,
                                                                const std::string& where) {
  JsonOptions j(train, where);
  ClassificationTrainOptions o;
  o.optimizer = OptimizerOptions::read(j);
  o.trainer = TrainerOptions::read(j);
  auto& c = o.classifier;
  c.batch_size = j.getInt("batch_size", c.batch_size, 1, 1 << 16);
  c.embed_dim = j.getInt("embed_dim", c.embed_dim, 1, 4096);
  c.embed_dropout = j.getDouble("embed_dropout", c.embed_dropout, 0.0, 0.99);
  c.dropout = j.getDouble("dropout", c.dropout, 0.0, 0.99);
  c.max_train_examples = j.getInt("max_train_examples", c.max_train_examples, 0, 1LL << 40);
  c.sparse_embedding = j.getBool("sparse_embedding", c.sparse_embedding);
  j.finish();
  return o;
}

}  // namespace recurlab::experiments
