#include "models/layers/gated_conv_block.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

namespace recurlab::models {
namespace {

GatedConvBlockOptions opts(int64_t cin, int64_t cout, int64_t k, ConvPadding pad) {
  GatedConvBlockOptions o;
  o.input_channels = cin;
  o.output_channels = cout;
  o.kernel_width = k;
  o.padding = pad;
  return o;
}

TEST(GatedConvBlockTest, ShapesAndGluMatchAManualComputation) {
  torch::manual_seed(0);
  auto o = opts(4, 3, 3, ConvPadding::Same);
  GatedConvBlock block(o);
  const auto x = torch::randn({6, 2, 4});
  const auto y = block->forward(x);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{6, 2, 3}));
  // Manual: same padding 1 left, 1 right; channels [a | b]; a ⊙ σ(b); no residual (4 != 3).
  const auto xp = torch::constant_pad_nd(x.permute({1, 2, 0}), {1, 1});
  const auto z = torch::conv1d(xp, block->conv->weight, block->conv->bias).permute({2, 0, 1});
  const auto expected = z.slice(2, 0, 3) * torch::sigmoid(z.slice(2, 3, 6));
  EXPECT_TRUE(torch::allclose(y, expected, 1e-5, 1e-6));
}

TEST(GatedConvBlockTest, CausalOutputIgnoresTheFuture) {
  torch::manual_seed(1);
  GatedConvBlock block(opts(5, 5, 4, ConvPadding::Causal));
  block->eval();
  auto x = torch::randn({10, 2, 5});
  const auto y1 = block->forward(x);
  x.slice(0, 6, 10).normal_();
  const auto y2 = block->forward(x);
  EXPECT_TRUE(torch::allclose(y1.slice(0, 0, 6), y2.slice(0, 0, 6)));
  EXPECT_FALSE(torch::allclose(y1.slice(0, 6, 10), y2.slice(0, 6, 10)));
}

TEST(GatedConvBlockTest, ResidualIsScaledBySqrtHalf) {
  torch::manual_seed(2);
  auto o = opts(3, 3, 3, ConvPadding::Same);
  GatedConvBlock with(o);
  o.residual = false;
  GatedConvBlock without(o);
  without->conv->weight.data().copy_(with->conv->weight.data());
  const auto x = torch::randn({5, 2, 3});
  EXPECT_TRUE(torch::allclose(with->forward(x), (without->forward(x) + x) * std::sqrt(0.5),
                              1e-5, 1e-6));
}

TEST(GatedConvBlockTest, InitStandardDeviationFollowsAppendixA) {
  // n = k·c_in = 3·200 = 600 weights feed each output; 2·c_out·n = 240000 samples give the
  // empirical std to about 0.15% (relative std of a sample std: 1/sqrt(2N)), checked to 1%.
  torch::manual_seed(3);
  auto o = opts(200, 200, 3, ConvPadding::Same);
  o.dropout = 0.2;
  GatedConvBlock aware(o);
  EXPECT_NEAR(aware->conv->weight.std().item<double>() / std::sqrt(4 * 0.8 / 600), 1.0, 0.01);
  EXPECT_EQ(aware->conv->bias.abs().sum().item<double>(), 0.0);
  o.init = GluInit::Naive;
  GatedConvBlock naive(o);
  EXPECT_NEAR(naive->conv->weight.std().item<double>() / std::sqrt(1.0 / 600), 1.0, 0.01);
}

TEST(GatedConvBlockTest, PadStepsAreZeroAndDoNotLeak) {
  torch::manual_seed(4);
  GatedConvBlock block(opts(3, 3, 3, ConvPadding::Same));
  block->eval();
  auto x = torch::randn({6, 2, 3});
  auto mask = torch::zeros({6, 2}, torch::kBool);
  mask.slice(0, 4, 6).select(1, 1).fill_(true);
  const auto y1 = block->forward(x, mask);
  EXPECT_EQ(y1.slice(0, 4, 6).select(1, 1).abs().sum().item<double>(), 0.0);
  x.slice(0, 4, 6).select(1, 1).fill_(100.0);  // garbage under the pads changes nothing
  EXPECT_TRUE(torch::allclose(block->forward(x, mask), y1));
}

TEST(GatedConvBlockTest, BadInputNamesTheExpectedShape) {
  GatedConvBlock block(opts(3, 3, 3, ConvPadding::Same));
  try {
    block->forward(torch::randn({4, 2, 5}));
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("(length, batch, 3)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(GatedConvBlock(opts(0, 3, 3, ConvPadding::Same)), c10::Error);
}

}  // namespace
}  // namespace recurlab::models
