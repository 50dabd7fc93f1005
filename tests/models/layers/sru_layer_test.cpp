#include "models/layers/sru_layer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "models/layers/sru.h"
#include "tests/support/gradient_check.h"
#include "tests/support/naive_recurrences.h"

namespace recurlab::models {
namespace {

using torch::Tensor;

SruLayerOptions layerOptions(int64_t in, int64_t d) {
  SruLayerOptions o;
  o.input_size = in;
  o.hidden_size = d;
  return o;
}

// The layer computed by hand: U = x·W (through the projection if any) and the naive
// reference recurrence, so the layer's wiring (layouts, α, skip kind, LN placement) is checked
// independently of the fused kernel.
std::pair<Tensor, Tensor> layerByHand(SruLayerImpl& layer, const Tensor& x, const Tensor& c0,
                                      const Tensor& pad) {
  const auto& o = layer.options();
  const int64_t L = x.size(0), B = x.size(1);
  Tensor xu = (o.layer_norm && !o.normalize_after) ? layer.layer_norm(x) : x;
  Tensor flat = xu.reshape({L * B, -1});
  if (layer.weight_proj.defined()) flat = flat.mm(layer.weight_proj);
  Tensor u = flat.mm(layer.weight).view({L, B, -1});
  kernels::SruRecurrenceOptions ko;
  ko.hidden_size = o.hidden_size;
  ko.bidirectional = o.bidirectional;
  ko.skip = !o.has_skip_term ? kernels::SruSkip::None
            : o.numMatrices() == 4 ? kernels::SruSkip::LearnedProjection
                                   : kernels::SruSkip::ScaledInput;
  ko.alpha = layer.scale_x.item<double>();
  auto r = kernels::sruRecurrenceReference(u, x, layer.weight_c, layer.bias, c0, {}, pad, ko);
  Tensor h = r[0];
  if (o.layer_norm && o.normalize_after) h = layer.layer_norm(h);
  return {h, r[1]};
}

struct LayerCase {
  const char* name;
  int64_t input, hidden;
  bool bidirectional, rescale, layer_norm, normalize_after, skip;
  int64_t projection;
};

void PrintTo(const LayerCase& c, std::ostream* os) { *os << c.name; }

class SruLayerWiring : public ::testing::TestWithParam<LayerCase> {};

TEST_P(SruLayerWiring, MatchesHandComputationInDouble) {
  const LayerCase c = GetParam();
  torch::manual_seed(7);
  SruLayerOptions o = layerOptions(c.input, c.hidden);
  o.bidirectional = c.bidirectional;
  o.rescale = c.rescale;
  o.highway_bias = -1.0;
  o.layer_norm = c.layer_norm;
  o.normalize_after = c.normalize_after;
  o.has_skip_term = c.skip;
  o.projection_size = c.projection;
  SruLayer layer(o);
  layer->to(torch::kDouble);
  layer->eval();
  Tensor x = torch::randn({6, 3, c.input}, torch::kDouble);
  Tensor c0 = torch::randn({3, o.outputSize()}, torch::kDouble);
  Tensor pad = torch::zeros({6, 3}, torch::kBool);
  pad.slice(0, 4, 6).select(1, 2).fill_(true);
  auto [h, last] = layer->forward(x, c0, pad);
  auto [h_ref, last_ref] = layerByHand(*layer, x, c0, pad);
  EXPECT_TRUE(torch::allclose(h, h_ref, 0, 1e-12));
  EXPECT_TRUE(torch::allclose(last, last_ref, 0, 1e-12));
}

INSTANTIATE_TEST_SUITE_P(
    Options, SruLayerWiring,
    ::testing::Values(LayerCase{"plain", 8, 8, false, false, false, false, true, 0},
                      LayerCase{"rescaled", 8, 8, false, true, false, false, true, 0},
                      LayerCase{"learned_skip", 6, 8, false, true, false, false, true, 0},
                      LayerCase{"no_skip", 6, 8, false, false, false, false, false, 0},
                      LayerCase{"bidirectional", 10, 5, true, true, false, false, true, 0},
                      LayerCase{"bidirectional_learned_skip", 7, 5, true, false, false, false, true, 0},
                      LayerCase{"projection", 16, 12, false, false, false, false, true, 4},
                      LayerCase{"layer_norm_before", 8, 8, false, false, true, false, true, 0},
                      LayerCase{"layer_norm_after", 8, 8, false, false, true, true, true, 0}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(SruLayer, FiniteDifferenceGradientsOfTheWholeLayer) {
  torch::manual_seed(3);
  SruLayerOptions o = layerOptions(6, 4);
  o.bidirectional = true;
  o.rescale = true;
  o.projection_size = 3;
  o.layer_norm = true;
  SruLayer layer(o);
  layer->to(torch::kDouble);
  layer->eval();
  Tensor x = torch::randn({5, 2, 6}, torch::kDouble).requires_grad_(true);
  Tensor c0 = torch::randn({2, 8}, torch::kDouble).requires_grad_(true);
  Tensor wh = torch::randn({5, 2, 8}, torch::kDouble);
  auto loss = [&] {
    auto [h, c] = layer->forward(x, c0);
    return (h * wh).sum() + c.pow(2).sum();
  };
  std::vector<Tensor> inputs{x, c0};
  std::vector<std::string> names{"input", "c0"};
  for (const auto& p : layer->named_parameters()) {
    inputs.push_back(p.value());
    names.push_back(p.key());
  }
  auto res = testing::checkGradients(loss, inputs, names, 30);
  EXPECT_TRUE(res.ok) << res.report;
}

TEST(Sru, RightPaddedBatchEqualsEachSequenceAlone) {
  torch::manual_seed(11);
  SruOptions o;
  o.input_size = 5;
  o.hidden_size = 4;
  o.num_layers = 3;
  o.bidirectional = true;
  o.rescale = true;
  Sru sru(o);
  sru->to(torch::kDouble);
  sru->eval();
  const std::vector<int64_t> lengths{7, 4, 1};
  const int64_t L = 7, B = 3;
  Tensor x = torch::randn({L, B, 5}, torch::kDouble);
  Tensor pad = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b) pad.slice(0, lengths[b], L).select(1, b).fill_(true);
  x = x.masked_fill(pad.unsqueeze(2), 123.0);  // garbage in pads must not leak
  auto [h, c] = sru->forward(x, {}, pad);
  for (int64_t b = 0; b < B; ++b) {
    Tensor xb = x.slice(0, 0, lengths[b]).slice(1, b, b + 1);
    auto [hb, cb] = sru->forward(xb);
    EXPECT_TRUE(torch::allclose(h.slice(0, 0, lengths[b]).slice(1, b, b + 1), hb, 0, 1e-12))
        << "sequence " << b;
    EXPECT_TRUE(torch::allclose(c.slice(1, b, b + 1), cb, 0, 1e-12)) << "sequence " << b;
    if (lengths[b] < L) {
      EXPECT_EQ(h.slice(0, lengths[b], L).select(1, b).abs().max().item<double>(), 0.0);
    }
  }
}

TEST(SruLayer, InitializationStatistics) {
  torch::manual_seed(21);
  const int64_t n = 512;
  for (double b : {0.0, -2.0}) {
    SruLayerOptions o = layerOptions(n, n);
    o.rescale = true;
    o.highway_bias = b;
    SruLayer layer(o);
    auto w = layer->weight.view({n, n, 3});
    // Sample variance of N = 262144 uniform values has relative standard error
    // sqrt((9/5 - 1)/N) = 0.17%; 1% is about six standard errors.
    const double var_candidate = w.select(2, 0).var().item<double>();
    EXPECT_NEAR(var_candidate * n, 1.0, 0.01) << "candidate W: variance 1/d_in";
    EXPECT_NEAR(w.select(2, 1).var().item<double>() * n, 0.5, 0.005) << "W_f: 0.5/d_in";
    EXPECT_NEAR(w.select(2, 2).var().item<double>() * n, 0.5, 0.005) << "W_r: 0.5/d_in";
    // weight_c: 1024 values of U(±sqrt(3))·sqrt(0.5), variance 0.5; relative SE ~2.8%.
    EXPECT_NEAR(layer->weight_c.var().item<double>(), 0.5, 0.5 * 0.12);
    EXPECT_EQ(layer->bias.slice(0, 0, n).abs().max().item<double>(), 0.0);
    EXPECT_TRUE(torch::all(layer->bias.slice(0, n, 2 * n) == b).item<bool>());
    EXPECT_NEAR(layer->scale_x.item<double>(), std::sqrt(1 + 2 * std::exp(b)), 1e-6);
  }
  EXPECT_NEAR(layerOptions(8, 8).alpha(), 1.0, 0.0);  // no rescale: α = 1
  SruLayerOptions r = layerOptions(8, 8);
  r.rescale = true;
  EXPECT_NEAR(r.alpha(), std::sqrt(3.0), 1e-12);
}

TEST(Sru, ParameterNamesMatchTheReference) {
  SruOptions o;
  o.input_size = 10;
  o.hidden_size = 6;
  o.num_layers = 2;
  o.projection_size = 4;
  o.layer_norm = true;
  Sru sru(o);
  auto params = sru->named_parameters();
  for (const char* name : {"rnn_lst.0.weight_proj", "rnn_lst.0.weight", "rnn_lst.0.weight_c",
                           "rnn_lst.0.bias", "rnn_lst.0.layer_norm.weight", "rnn_lst.1.weight"})
    EXPECT_TRUE(params.contains(name)) << name;
  EXPECT_TRUE(sru->named_buffers().contains("rnn_lst.0.scale_x"));
  EXPECT_EQ(params["rnn_lst.0.weight"].sizes(), (std::vector<int64_t>{4, 6 * 4}));
  EXPECT_EQ(params["rnn_lst.1.weight"].sizes(), (std::vector<int64_t>{4, 6 * 3}));
}

TEST(Sru, DropoutMaskIsSharedOverTimeAndOnlyOnTheCellBranch) {
  torch::manual_seed(5);
  SruLayerOptions o = layerOptions(32, 32);
  o.rc_dropout = 0.5;
  SruLayer layer(o);
  layer->train();
  Tensor x = torch::randn({10, 4, 32});
  auto [h, c] = layer->forward(x);
  // A dropped unit (m = 0) outputs exactly the skip term α·x at every step.
  Tensor dropped = (h == x).all(0);  // (B, out): true where every step equals the skip
  EXPECT_GT(dropped.sum().item<int64_t>(), 20);   // ~64 of 128 expected
  EXPECT_LT(dropped.sum().item<int64_t>(), 110);
  Tensor anyStep = (h == x).any(0);
  EXPECT_TRUE(torch::equal(dropped, anyStep)) << "the mask must not change over time";
  layer->eval();
  auto [h_eval, c_eval] = layer->forward(x);
  EXPECT_FALSE((h_eval == x).any().item<bool>());
  EXPECT_TRUE(torch::allclose(c, c_eval)) << "dropout must not touch c";
}

// asappresearch/sru 2.6 takes the skip term from the undropped input (residual = input before
// the rnn_dropout mask). With W = 0 and b = 0 the cell stays c = 0 and r = σ(0) = 1/2, so
// h = (1 - r)·α·x = α·x/2 exactly at every step, whatever the mask: a masked skip would give
// zeros and 2x-scaled entries instead (α = √3 with rescale here, so the scale is checked too).
TEST(Sru, RnnDropoutMasksTheMatmulInputButNotTheSkip) {
  torch::manual_seed(6);
  SruLayerOptions o = layerOptions(32, 16);
  o.bidirectional = true;  // out = 32 = input: the scaled-input skip
  o.rnn_dropout = 0.5;
  o.rescale = true;
  SruLayer layer(o);
  {
    torch::NoGradGuard no_grad;
    layer->weight.zero_();
    layer->bias.zero_();
  }
  layer->train();
  const Tensor x = torch::randn({7, 4, 32}, torch::kDouble);
  layer->to(torch::kDouble);
  auto [h, c] = layer->forward(x);
  // α is the layer's buffer, created in float: √3 to float precision.
  const double alpha = layer->scale_x.item<double>();
  EXPECT_NEAR(alpha, std::sqrt(3.0), 1e-7);
  EXPECT_TRUE(torch::allclose(h, x * (alpha / 2), 1e-14, 1e-14))
      << "max |h - α·x/2| = " << (h - x * (alpha / 2)).abs().max().item<double>();
  EXPECT_EQ(c.abs().max().item<double>(), 0.0);
}

// α is a number fixed at construction: forward reads no tensor for it (.item() on a GPU tensor
// waits for the device), and it is the scale_x buffer's value, so results are those the buffer
// gave.
TEST(Sru, AlphaIsAPlainNumberFixedAtConstruction) {
  SruLayerOptions o = layerOptions(8, 8);
  o.rescale = true;
  o.highway_bias = -1.0;
  SruLayer layer(o);
  EXPECT_EQ(layer->alpha(), layer->scale_x.item<double>());
  const Tensor x = torch::randn({5, 2, 8});
  const auto [h, c] = layer->forward(x);
  {
    torch::NoGradGuard no_grad;
    layer->scale_x.fill_(std::numeric_limits<float>::quiet_NaN());
  }
  const auto [h_again, c_again] = layer->forward(x);
  EXPECT_TRUE(torch::equal(h, h_again)) << "forward read α from the scale_x buffer";
  EXPECT_TRUE(torch::equal(c, c_again));
}

TEST(Sru, SameSeedGivesBitIdenticalOutputsAndGradients) {
  auto run = [] {
    torch::manual_seed(42);
    SruOptions o;
    o.input_size = 16;
    o.hidden_size = 24;
    o.num_layers = 3;
    o.bidirectional = true;
    o.rc_dropout = 0.3;
    o.rnn_dropout = 0.1;
    Sru sru(o);
    sru->train();
    Tensor x = torch::randn({12, 5, 16});
    auto [h, c] = sru->forward(x);
    (h.pow(2).sum() + c.sum()).backward();
    std::vector<Tensor> out{h, c};
    for (const auto& p : sru->parameters()) out.push_back(p.grad());
    return out;
  };
  auto a = run(), b = run();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "tensor " << i;
}

TEST(Sru, BadInputGivesClearErrors) {
  SruOptions o;
  o.input_size = 8;
  o.hidden_size = 8;
  Sru sru(o);
  EXPECT_TRUE(testing::throwsWith([&] { sru->forward(torch::randn({4, 8})); },
                                  "input must be (length, batch, 8)"));
  EXPECT_TRUE(testing::throwsWith([&] { sru->forward(torch::randn({4, 2, 9})); },
                                  "input has 9 features, expected input_size = 8"));
  EXPECT_TRUE(testing::throwsWith([&] { sru->forward(torch::randn({4, 2, 8}, torch::kDouble)); },
                                  "input dtype Double differs from the layer's Float"));
  EXPECT_TRUE(testing::throwsWith([&] { sru->forward(torch::randn({4, 2, 8}), torch::zeros({3, 2, 8})); },
                                  "c0 must be (num_layers = 2, batch, out = 8)"));
  EXPECT_TRUE(testing::throwsWith(
      [&] { sru->forward(torch::randn({4, 2, 8}), {}, torch::zeros({4, 3}, torch::kBool)); },
      "mask_pad (nonzero = pad) has shape [4, 3], expected [4, 2]"));
  SruLayerOptions bad = layerOptions(8, 8);
  bad.rc_dropout = 1.0;
  EXPECT_TRUE(testing::throwsWith([&] { SruLayer l(bad); }, "dropout) must be in [0, 1)"));
}

}  // namespace
}  // namespace recurlab::models
