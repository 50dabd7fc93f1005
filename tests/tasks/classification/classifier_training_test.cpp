// The classifier's training step: its accuracy tally (train_acc in the log) counts the batch's
// correct predictions, the same count as the evaluation's accuracy on the same sentences.
#include "tasks/classification/classifier_training.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "models/registry.h"

namespace recurlab::experiments {
namespace {

TEST(ClassifierTraining, AccuracyTallyCountsTheBatchsCorrectPredictions) {
  torch::manual_seed(3);
  EncodedSplits data;
  for (int i = 0; i < 40; ++i) {
    EncodedSentence x;
    x.label = i % 3 == 0;
    const auto ids = torch::randint(2, 30, {2 + i % 5}, torch::kLong);
    x.ids.assign(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
    data.train.push_back(x);
  }
  models::TextClassifierOptions o;
  o.vocab_size = 30;
  o.embed_dim = 6;
  auto encoder = models::makeEncoder("sru", {{"layers", 1}, {"hidden", 6}}, 6);
  models::TextClassifier model(o, encoder);
  ClassifierTraining training(model, data, /*batch_size=*/40, /*seed=*/1);
  const double accuracy = classifierAccuracy(model, data.train);
  // An untrained model gets some right and some wrong, so a count stuck at 0 or at the batch
  // size would show.
  ASSERT_GT(accuracy, 0.0);
  ASSERT_LT(accuracy, 1.0);
  model->eval();  // no dropout: the step sees the logits the evaluation saw
  const auto out = training.forward(*training.batch(1, 0));
  ASSERT_EQ(out.examples, 40);
  const double correct = out.tally_values.defined() ? out.tally_values.item<double>()
                                                    : out.tallies.at(0);
  EXPECT_DOUBLE_EQ(correct, accuracy * 40);
}

}  // namespace
}  // namespace recurlab::experiments
