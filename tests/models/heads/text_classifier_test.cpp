#include "models/heads/text_classifier.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "models/registry.h"

namespace recurlab::models {
namespace {

TEST(CnnEncoder, KimShapesAndPadStepsDoNotChangeTheMax) {
  torch::manual_seed(0);
  auto cnn = makeEncoder("cnn", nlohmann::json::object(), 16);
  EXPECT_EQ(cnn->outputSize(), 300);  // widths 3, 4, 5 x 100 maps
  EXPECT_FALSE(cnn->causal());
  EXPECT_EQ(choosePooling("auto", "cnn", nlohmann::json::object()), Pooling::Max);
  // Sentence of 2 steps (shorter than every width) and of 6 steps, right-padded to 6.
  auto x = torch::randn({6, 2, 16});
  auto lengths = torch::tensor({2, 6}, torch::kInt64);
  auto mask = torch::arange(6).unsqueeze(1) >= lengths.unsqueeze(0);
  auto h = cnn->encode(x, mask);
  ASSERT_EQ(h.sizes(), (std::vector<int64_t>{6, 2, 300}));
  EXPECT_EQ(h.index({torch::indexing::Slice(2), 0}).abs().max().item<float>(), 0.0f);
  // The short sentence alone gives the same pooled features as inside the padded batch:
  // pad steps count as zeros, like Kim's zero padding.
  auto alone = cnn->encode(x.index({torch::indexing::Slice(0, 2), torch::indexing::Slice(0, 1)}), {});
  auto pooled_batch = poolOverTime(h, mask, lengths, Pooling::Max)[0];
  auto pooled_alone = std::get<0>(alone.max(0))[0];
  EXPECT_TRUE(torch::allclose(pooled_batch, pooled_alone, 1e-5, 1e-6));
  EXPECT_THROW(makeEncoder("cnn", nlohmann::json{{"widths", {0}}}, 16), std::invalid_argument);
  EXPECT_THROW(makeEncoder("cnn", nlohmann::json{{"filters", 5}}, 16), std::invalid_argument);
}

TEST(TextClassifier, PoolingUsesOnlyRealSteps) {
  auto f = torch::arange(12, torch::kFloat32).view({3, 2, 2});  // (L=3, B=2, D=2)
  auto lengths = torch::tensor({1, 3}, torch::kInt64);
  auto mask = torch::arange(3).unsqueeze(1) >= lengths.unsqueeze(0);
  auto last = poolOverTime(f, mask, lengths, Pooling::Last);
  EXPECT_TRUE(torch::equal(last, torch::tensor({{0.f, 1.f}, {10.f, 11.f}})));
  auto mean = poolOverTime(f, mask, lengths, Pooling::Mean);
  EXPECT_TRUE(torch::allclose(mean, torch::tensor({{0.f, 1.f}, {6.f, 7.f}})));
  auto mx = poolOverTime(f.neg(), mask, lengths, Pooling::Max);
  EXPECT_TRUE(torch::equal(mx, torch::tensor({{0.f, -1.f}, {-2.f, -3.f}})));

  torch::manual_seed(1);
  TextClassifierOptions o;
  o.vocab_size = 10;
  o.embed_dim = 8;
  o.num_classes = 3;
  TextClassifier model(o, makeEncoder("sru", nlohmann::json{{"layers", 2}, {"hidden", 8}}, 8));
  model->eval();
  auto tokens = torch::tensor({{2, 3}, {4, 0}}, torch::kInt64);  // second sentence: 1 step
  auto m = tokens.eq(0);
  auto logits = model->forward(tokens, m, torch::tensor({2, 1}, torch::kInt64));
  ASSERT_EQ(logits.sizes(), (std::vector<int64_t>{2, 3}));
  // Right padding does not change a sentence's prediction.
  auto single = model->forward(tokens.index({torch::indexing::Slice(0, 1), torch::indexing::Slice(1, 2)}),
                               {}, torch::tensor({1}, torch::kInt64));
  EXPECT_TRUE(torch::allclose(logits[1], single[0], 1e-5, 1e-6));
  // Fixed pretrained vectors are not trained.
  o.pretrained = torch::ones({10, 8});
  TextClassifier fixed(o, makeEncoder("lstm", nlohmann::json{{"hidden", 4}}, 8));
  for (const auto& p : fixed->named_parameters()) {
    if (p.key() == "embedding.weight") {
      EXPECT_FALSE(p.value().requires_grad());
    }
  }
}

}  // namespace
}  // namespace recurlab::models
