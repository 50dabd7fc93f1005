#include "tasks/mt/mt_train_options.h"

#include "common/json_options.h"

namespace recurlab::experiments {

MtTrainOptions MtTrainOptions::fromJson(const nlohmann::json& train, const std::string& where) {
  JsonOptions j(train, where);
  MtTrainOptions o;
  o.optimizer = OptimizerOptions::read(j);
  o.trainer = TrainerOptions::read(j);
  o.max_tokens = j.getInt("max_tokens", o.max_tokens, 16, 1 << 24);
  o.label_smoothing = j.getDouble("label_smoothing", o.label_smoothing, 0.0, 0.99);
  j.finish();
  return o;
}

}  // namespace recurlab::experiments
