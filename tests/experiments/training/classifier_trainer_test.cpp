#include "experiments/training/classifier_trainer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "experiments/runtime/thread_count.h"
#include "models/registry.h"

namespace recurlab::experiments {
namespace {

// Label = whether token 2 ("good") or token 3 ("bad") appears, amid noise tokens.
EncodedSplits toyData(int n) {
  EncodedSplits d;
  for (int i = 0; i < n; ++i) {
    EncodedSentence s;
    s.label = i % 2;
    for (int t = 0; t < 3 + i % 4; ++t) s.ids.push_back(4 + (i * 7 + t) % 6);
    s.ids.insert(s.ids.begin() + (i % 3), s.label ? 3 : 2);
    (i % 5 == 0 ? d.dev : i % 5 == 1 ? d.test : d.train).push_back(s);
  }
  return d;
}

models::TextClassifier toyModel() {
  torch::manual_seed(3);
  models::TextClassifierOptions o;
  o.vocab_size = 10;
  o.embed_dim = 8;
  o.embed_dropout = 0.0;
  o.dropout = 0.0;
  return models::TextClassifier(o, models::makeEncoder("sru", nlohmann::json{{"layers", 1}, {"hidden", 8}}, 8));
}

TEST(ClassifierTrainer, LearnsAToyTaskDeterministically) {
  applyThreadCount(1);  // tiny model: threads only add overhead on a busy CI machine
  const auto data = toyData(100);
  TrainOptions o;
  o.max_epochs = 15;
  o.lr = 0.02;
  o.batch_size = 8;
  std::vector<EpochRecord> rows;
  auto model = toyModel();
  TrainHooks hooks;
  hooks.on_epoch = [&](const EpochRecord& r, const TrainOutcome&) { rows.push_back(r); };
  const auto a = trainClassifier(model, data, o, 11, hooks);
  EXPECT_FALSE(a.diverged);
  EXPECT_EQ(a.stop_reason, "max_epochs");
  ASSERT_EQ(rows.size(), 15u);
  EXPECT_LT(rows.back().train_loss, rows.front().train_loss);
  EXPECT_GE(a.best_dev_acc, 0.9);  // the toy task is separable by one token
  auto again = toyModel();
  const auto b = trainClassifier(again, data, o, 11);
  EXPECT_EQ(a.test_acc, b.test_acc);
  EXPECT_EQ(a.best_epoch, b.best_epoch);
}

TEST(ClassifierTrainer, NanLossEndsTheRunWithAReason) {
  auto model = toyModel();
  {
    torch::NoGradGuard g;
    for (auto& p : model->named_parameters())
      if (p.key() == "output.bias") p.value().fill_(std::numeric_limits<float>::quiet_NaN());
  }
  TrainOptions o;
  o.max_epochs = 3;
  const auto r = trainClassifier(model, toyData(40), o, 1);
  EXPECT_TRUE(r.diverged);
  EXPECT_NE(r.stop_reason.find("diverged: training loss is nan at epoch 1, batch 1"), std::string::npos)
      << r.stop_reason;
  EXPECT_EQ(r.epochs, 0);
}

TEST(ClassifierTrainer, EarlyStoppingAndLrHalving) {
  auto model = toyModel();
  TrainOptions o;
  o.max_epochs = 50;
  o.lr = 1e-8;  // nothing improves after epoch 1
  o.patience = 4;
  o.lr_patience = 2;
  std::vector<double> lrs;
  TrainHooks hooks;
  hooks.on_epoch = [&](const EpochRecord& r, const TrainOutcome&) { lrs.push_back(r.lr); };
  const auto r = trainClassifier(model, toyData(40), o, 2, hooks);
  EXPECT_EQ(r.stop_reason, "early_stopping");
  EXPECT_EQ(r.epochs, r.best_epoch + 4);
  ASSERT_GE(lrs.size(), 5u);
  EXPECT_DOUBLE_EQ(lrs[r.best_epoch + 2], lrs[0] * 0.5);  // halved after 2 flat epochs
}

}  // namespace
}  // namespace recurlab::experiments
