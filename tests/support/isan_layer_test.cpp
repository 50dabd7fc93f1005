// The ISAN layer (Foerster et al. 2017; Peng et al. 2018, App. C) against a naive reference in
// double precision written with plain loops, with an initial state and right padding; its
// gradients by central finite differences; and its errors on bad input. Prop. 13 (the layer is
// a set of WFSAs) is in wfsa_equivalence_test.cpp.
#include "tests/support/isan_layer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "tests/support/gradient_check.h"

namespace recurlab::models {
namespace {

constexpr int64_t V = 4, D = 3;

IsanLayer doubleLayer() {
  torch::manual_seed(31);
  IsanLayer layer(IsanLayerOptions{V, D});
  layer->to(torch::kDouble);
  return layer;
}

// h_t[i] = Σ_j W[x_t][i][j] h_{t-1}[j] + b[x_t][i], one sequence, scalar loops.
std::vector<std::vector<double>> naiveIsan(const torch::Tensor& W, const torch::Tensor& b,
                                           const std::vector<int64_t>& symbols,
                                           std::vector<double> h) {
  auto w = W.accessor<double, 3>();
  auto bb = b.accessor<double, 2>();
  std::vector<std::vector<double>> out;
  for (int64_t x : symbols) {
    std::vector<double> next(h.size());
    for (size_t i = 0; i < h.size(); ++i) {
      double s = bb[x][i];
      for (size_t j = 0; j < h.size(); ++j) s += w[x][i][j] * h[j];
      next[i] = s;
    }
    h = next;
    out.push_back(h);
  }
  return out;
}

TEST(IsanLayer, MatchesNaiveLoopsWithInitialStateAndPadding) {
  IsanLayer layer = doubleLayer();
  torch::NoGradGuard no_grad;
  const std::vector<std::vector<int64_t>> sequences = {
      {0, 3, 1, 1, 2, 0}, {2, 2, 3}, {1}, {3, 0, 2, 1, 0}};
  const int64_t L = 6, B = 4;
  torch::Tensor tokens = torch::full({L, B}, V - 1, torch::kLong);  // pads hold a real id
  torch::Tensor pad = torch::ones({L, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b)
    for (size_t t = 0; t < sequences[b].size(); ++t) {
      tokens[t][b] = sequences[b][t];
      pad[t][b] = false;
    }
  const torch::Tensor h0 = torch::randn({B, D}, torch::kDouble);
  const auto [h, last] = layer->forward(tokens, h0, pad);
  ASSERT_EQ(h.sizes(), (std::vector<int64_t>{L, B, D}));
  for (int64_t b = 0; b < B; ++b) {
    std::vector<double> start(D);
    for (int64_t i = 0; i < D; ++i) start[i] = h0[b][i].item<double>();
    const auto want = naiveIsan(layer->weight, layer->bias, sequences[b], start);
    for (int64_t t = 0; t < L; ++t)
      for (int64_t i = 0; i < D; ++i) {
        const double expected = t < static_cast<int64_t>(want.size()) ? want[t][i] : 0.0;
        EXPECT_NEAR(h[t][b][i].item<double>(), expected, 1e-12) << "sequence " << b << " t " << t << " unit " << i;
      }
    for (int64_t i = 0; i < D; ++i)
      EXPECT_NEAR(last[b][i].item<double>(), want.back()[i], 1e-12) << "last state, sequence " << b;
  }
  // Without h0 the state starts at zero; without a mask every step is real.
  const auto [h_plain, last_plain] = layer->forward(tokens.slice(1, 0, 1));
  const auto want = naiveIsan(layer->weight, layer->bias, sequences[0], std::vector<double>(D, 0.0));
  for (int64_t i = 0; i < D; ++i) EXPECT_NEAR(last_plain[0][i].item<double>(), want.back()[i], 1e-12);
}

TEST(IsanLayer, FiniteDifferenceGradients) {
  IsanLayer layer = doubleLayer();
  const torch::Tensor tokens = torch::tensor({0, 1, 3, 2, 1, 0, 0, 2}, torch::kLong).view({4, 2});
  torch::Tensor pad = torch::zeros({4, 2}, torch::kBool);
  pad[3][1] = true;
  const torch::Tensor h0 = torch::randn({2, D}, torch::kDouble).requires_grad_(true);
  const torch::Tensor wh = torch::randn({4, 2, D}, torch::kDouble);
  auto loss = [&] {
    auto [h, last] = layer->forward(tokens, h0, pad);
    return (h * wh).sum() + last.pow(2).sum();
  };
  auto res = testing::checkGradients(loss, {h0, layer->weight, layer->bias},
                                     {"h0", "weight", "bias"}, 40);
  EXPECT_TRUE(res.ok) << res.report;
}

TEST(IsanLayer, BadInputNamesWhatWasExpected) {
  IsanLayer layer = doubleLayer();
  const torch::Tensor tokens = torch::zeros({3, 2}, torch::kLong);
  EXPECT_TRUE(testing::throwsWith([&] { layer->forward(tokens.clone().fill_(V)); },
                                  "token ids must be in [0, 4), got 4"));
  EXPECT_TRUE(testing::throwsWith([&] { layer->forward(tokens.clone().fill_(-1)); }, "got -1"));
  EXPECT_TRUE(testing::throwsWith([&] { layer->forward(tokens.to(torch::kInt)); },
                                  "(length, batch) int64"));
  EXPECT_TRUE(testing::throwsWith(
      [&] { layer->forward(tokens, torch::zeros({2, D + 1}, torch::kDouble)); },
      "h0 must be (batch, hidden) = (2, 3)"));
  EXPECT_TRUE(testing::throwsWith(
      [&] { layer->forward(tokens, {}, torch::zeros({2, 3}, torch::kBool)); },
      "mask_pad must be (length, batch) = (3, 2)"));
  EXPECT_THROW(IsanLayer(IsanLayerOptions{0, D}), c10::Error);
}

}  // namespace
}  // namespace recurlab::models
