#include "models/layers/weight_norm_linear.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/layers/gated_conv_block.h"

namespace recurlab::models {
namespace {

TEST(WeightNormLinear, StartsAtVAndKeepsRowNormsAtG) {
  torch::manual_seed(4);
  WeightNormLinear l(6, 3, 0.5);
  EXPECT_LE((l->weight() - l->weight_v).abs().max().item<double>(), 1e-6);
  torch::NoGradGuard no_grad;
  l->weight_g.fill_(2.0);
  l->weight_v.mul_(7.0);  // the direction matters, not the scale of V
  EXPECT_LE((l->weight().pow(2).sum(1).sqrt() - 2.0).abs().max().item<double>(), 1e-5);
  const torch::Tensor x = torch::randn({4, 6});
  const torch::Tensor w = l->weight_v / l->weight_v.pow(2).sum(1, true).sqrt() * 2.0;
  EXPECT_LE((l->forward(x) - (x.matmul(w.t()) + l->bias)).abs().max().item<double>(), 1e-5);
}

// d/dg and d/dV of sum(c ⊙ y) against central differences, in double.
TEST(WeightNormLinear, GradientsMatchFiniteDifferences) {
  torch::manual_seed(5);
  WeightNormLinear l(4, 3, 0.5);
  l->to(torch::kDouble);
  const torch::Tensor x = torch::randn({5, 4}, torch::kDouble);
  const torch::Tensor c = torch::randn({5, 3}, torch::kDouble);
  (l->forward(x) * c).sum().backward();
  torch::NoGradGuard no_grad;
  for (torch::Tensor* p : {&l->weight_v, &l->weight_g}) {
    torch::Tensor flat = p->view(-1), grad = p->grad().view(-1);
    for (int64_t i = 0; i < flat.numel(); ++i) {
      const double saved = flat[i].item<double>(), h = 1e-6;
      flat[i] = saved + h;
      const double up = (l->forward(x) * c).sum().item<double>();
      flat[i] = saved - h;
      const double down = (l->forward(x) * c).sum().item<double>();
      flat[i] = saved;
      EXPECT_NEAR(grad[i].item<double>(), (up - down) / (2 * h), 1e-7) << i;
    }
  }
}

TEST(GatedConvBlock, WeightNormStartsAsThePlainBlockAndRescalesWithG) {
  GatedConvBlockOptions o;
  o.input_channels = o.output_channels = 4;
  o.kernel_width = 3;
  o.weight_norm = true;
  torch::manual_seed(6);
  GatedConvBlock normalized(o);
  o.weight_norm = false;
  GatedConvBlock plain(o);
  torch::NoGradGuard no_grad;
  plain->conv->weight.copy_(normalized->conv->weight);
  plain->conv->bias.copy_(normalized->conv->bias);
  const torch::Tensor x = torch::randn({5, 2, 4});
  EXPECT_LE((normalized->forward(x) - plain->forward(x)).abs().max().item<double>(), 1e-5);
  normalized->weight_g.mul_(3.0);
  plain->conv->weight.mul_(3.0);
  EXPECT_LE((normalized->forward(x) - plain->forward(x)).abs().max().item<double>(), 1e-5);
  ASSERT_EQ(normalized->named_parameters().size(), 3u);  // conv weight (V), bias, g
}

}  // namespace
}  // namespace recurlab::models
