#include "models/layers/self_iru.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/layers/self_iru_feed_forward.h"

namespace recurlab::models {
namespace {

constexpr int64_t L = 6, B = 3, D = 8;

// Zhang et al. (2021), App. A.3: with L = 0 the Self-IRU is f = σ(F_f x), o = σ(F_o x), z = tanh(F_z x),
// c_t = f ⊙ c_{t-1} + (1 - f) ⊙ z, h_t = o ⊙ c_t + x_t, F_* linear. Written out here with
// plain tensor ops from the layer's own P.
TEST(SelfIru, DepthZeroIsTheSruLikeUnitOfSeed004) {
  SelfIruLayer layer(SelfIruLayerOptions{D, D, 0});
  layer->to(torch::kDouble);
  torch::NoGradGuard no_grad;
  layer->root->bias.uniform_(-0.5, 0.5);
  EXPECT_EQ(layer->root->numCells(), 1);
  torch::manual_seed(8);
  const torch::Tensor x = torch::randn({L, B, D}, torch::kDouble);
  const torch::Tensor P = layer->root->weight.view({D, D, 3});
  const torch::Tensor bP = layer->root->bias.view({D, 3});
  torch::Tensor c = torch::zeros({B, D}, torch::kDouble);
  for (int64_t t = 0; t < L; ++t) {
    const torch::Tensor z = torch::tanh(x[t].mm(P.select(2, 0)) + bP.select(1, 0));
    const torch::Tensor f = torch::sigmoid(x[t].mm(P.select(2, 1)) + bP.select(1, 1));
    const torch::Tensor o = torch::sigmoid(x[t].mm(P.select(2, 2)) + bP.select(1, 2));
    c = f * c + (1 - f) * z;
    const torch::Tensor h = o * c + x[t];
    EXPECT_LE((layer->forward(x)[t] - h).abs().max().item<double>(), 1e-13) << "t " << t;
  }
}

TEST(SelfIru, DepthLHolds2PowLPlus1Minus1CellsAndAllGetGradients) {
  for (int64_t depth = 0; depth <= 2; ++depth) {
    SelfIruLayer layer(SelfIruLayerOptions{D, D, depth});
    EXPECT_EQ(layer->root->numCells(), (int64_t{1} << (depth + 1)) - 1);
    torch::manual_seed(9);
    const torch::Tensor x = torch::randn({L, B, D});
    layer->forward(x).pow(2).sum().backward();
    for (const auto& p : layer->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0.0) << p.key();
    }
  }
}

TEST(SelfIru, RecursionGatesMixChildOutputs) {
  // With the gates saturated at 0 the children are ignored: depth 1 equals its own leaf part.
  SelfIruLayer deep(SelfIruLayerOptions{D, D, 1});
  SelfIruLayer flat(SelfIruLayerOptions{D, D, 0});
  torch::NoGradGuard no_grad;
  flat->root->weight.copy_(deep->root->weight);
  flat->root->bias.copy_(deep->root->bias);
  deep->root->gate_weight.zero_();
  deep->root->gate_bias.fill_(-1e4);
  const torch::Tensor x = torch::randn({L, B, D});
  EXPECT_TRUE(torch::allclose(deep->forward(x), flat->forward(x)));
  deep->root->gate_bias.fill_(0.0);
  EXPECT_FALSE(torch::allclose(deep->forward(x), flat->forward(x)));
}

TEST(SelfIru, NoResidualWhenSizesDiffer) {
  SelfIruLayer layer(SelfIruLayerOptions{5, D, 1});
  EXPECT_FALSE(layer->root->hasResidual());
  EXPECT_EQ(layer->forward(torch::randn({L, B, 5})).sizes(), (std::vector<int64_t>{L, B, D}));
  EXPECT_THROW(layer->forward(torch::randn({L, B, 6})), c10::Error);
  EXPECT_THROW(SelfIruLayer(SelfIruLayerOptions{D, D, -1}), c10::Error);
}

// Zhang et al. (2021), App. A.1, at depth 0: h = σ(F_f x) ⊙ x + σ(F_o x) ⊙ tanh(F_z x) + x.
TEST(SelfIruFeedForward, DepthZeroFollowsAppendixA1) {
  SelfIruFeedForward ffn(D, 0);
  ffn->to(torch::kDouble);
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::randn({L, B, D}, torch::kDouble);
  const torch::Tensor pre = x.matmul(ffn->weight) + ffn->bias;
  const torch::Tensor want = torch::sigmoid(pre.narrow(2, 0, D)) * x +
                             torch::sigmoid(pre.narrow(2, D, D)) * torch::tanh(pre.narrow(2, 2 * D, D)) + x;
  EXPECT_LE((ffn->forward(x) - want).abs().max().item<double>(), 1e-14);
}

}  // namespace
}  // namespace recurlab::models
