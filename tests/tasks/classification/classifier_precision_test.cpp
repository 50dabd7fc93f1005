// Classification in bf16 (CPU autocast, the fused SRU up-cast at its entry): a few epochs of a
// tiny SRU classifier stay within 5% of the fp32 training loss, epoch by epoch.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "tasks/classification/classifier_training.h"
#include "models/registry.h"
#include "tests/support/precision_comparison.h"

namespace recurlab::experiments {
namespace {

EncodedSplits randomSentences() {
  torch::manual_seed(2);
  EncodedSplits s;
  for (int i = 0; i < 48; ++i) {
    EncodedSentence x;
    x.label = i % 2;
    const auto ids = torch::randint(2, 20, {3 + i % 4}, torch::kLong);
    x.ids.assign(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
    x.ids.push_back(x.label == 1 ? 20 : 21);  // a word that gives the label away
    (i < 32 ? s.train : i < 40 ? s.dev : s.test).push_back(x);
  }
  return s;
}

TEST(ClassifierPrecision, Bf16StaysWithinFivePercentOfFp32) {
  const auto data = randomSentences();
  auto make = [&]() -> std::unique_ptr<TrainingModel> {
    torch::manual_seed(9);
    models::TextClassifierOptions o;
    o.vocab_size = 22;
    o.embed_dim = 8;
    o.embed_dropout = 0.1;
    o.dropout = 0.1;
    auto encoder = models::makeEncoder("sru", {{"layers", 2}, {"hidden", 8}}, 8);
    return std::make_unique<ClassifierTraining>(models::TextClassifier(o, encoder), data, 8, 4);
  };
  OptimizerOptions opt;
  opt.lr = 0.05;  // fp32 moves by several times the tolerance within the 3 epochs
  TrainerOptions loop;
  loop.max_epochs = 3;
  recurlab::testing::expectBf16Near(recurlab::testing::trainInBothPrecisions(make, opt, loop, 4),
                                    0.05);
}

}  // namespace
}  // namespace recurlab::experiments
