// The "rg_lru" encoder (Griffin's recurrent block in a pre-norm residual around the RG-LRU, De
// et al. 2024) against a naive implementation of the paper's equations in double: RMSNorm,
// GeLU (tanh form) and the depthwise causal convolution written out, the RG-LRU as a loop over
// time with a_t = σ(Λ)^{c·r_t} as a power. Features, both state tensors and the gradients of the
// input, the initial states and every parameter agree to 1e-10; two segments with the state
// carried equal the whole sequence; and the square root's derivative is bounded at 1000 where
// a_t nears 1, as recurrentgemma bounds it. With negative_eigenvalues the loop's a_t is
// 2·σ(Λ)^{c·r_t} − 1 and its input scale sqrt(1 − a_t²) of that a_t.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "models/encoders/recurrent_stack.h"
#include "models/layers/rg_lru_block.h"
#include "models/layers/rg_lru_layer.h"
#include "models/registry.h"
#include "tests/support/naive_rms_norm.h"
#include "tests/support/recurrence_check.h"

namespace recurlab::models {
namespace {

using torch::Tensor;

constexpr int64_t L = 9, B = 3, IN = 4, H = 5, LAYERS = 3, WIDTH = 3;

struct BlockResult {
  Tensor output, h, conv;  // (L, B, H), (B, H), (B, WIDTH-1, H)
};

Tensor geluTanh(const Tensor& x) {
  return 0.5 * x * (1 + torch::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

Tensor linear(const torch::nn::Linear& l, const Tensor& x) {
  return torch::matmul(x, l->weight.t()) + l->bias;
}

// RG-LRU (§2.4) on x̃ = x: r_t, i_t from x, a_t = σ(Λ)^{c·r_t} (or 2·that − 1).
Tensor rgLru(const RgLruLayerImpl& lru, const Tensor& x, Tensor& h) {
  const int64_t d = lru.options().hidden_size;
  const Tensor gates = torch::matmul(x, lru.weight_gates) + lru.bias_gates;
  const Tensor base = torch::sigmoid(lru.decay_logit);
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < x.size(0); ++t) {
    const Tensor r = torch::sigmoid(gates[t].slice(1, 0, d));
    const Tensor i = torch::sigmoid(gates[t].slice(1, d, 2 * d));
    Tensor a = torch::pow(base, lru.options().decay_scale * r);
    if (lru.options().negative_eigenvalues) a = 2 * a - 1;
    h = a * h + torch::sqrt(1 - a * a) * (i * x[t]);
    steps.push_back(h);
  }
  return torch::stack(steps);
}

// One block from state (h0, conv0): conv0 holds the WIDTH-1 inputs before the segment.
BlockResult blockReference(RgLruBlockImpl& block, const Tensor& x, const Tensor& h0,
                           const Tensor& conv0) {
  const Tensor u = testing::rmsNorm(*block.temporal_pre_norm, x);
  const Tensor gate = geluTanh(linear(block.linear_y, u));
  const Tensor v = linear(block.linear_x, u);
  const Tensor w = block.conv_1d->weight, b = block.conv_1d->bias;
  std::vector<Tensor> history;  // every input so far: the carried ones, then this segment's
  for (int64_t k = 0; k < WIDTH - 1; ++k) history.push_back(conv0.select(1, k));
  std::vector<Tensor> convolved;
  for (int64_t t = 0; t < x.size(0); ++t) {
    history.push_back(v[t]);
    Tensor y = b.expand_as(v[t]);
    for (int64_t s = 0; s < WIDTH; ++s)
      y = y + w[WIDTH - 1 - s] * history[history.size() - 1 - s];
    convolved.push_back(y);
  }
  Tensor h = h0;
  const Tensor z = rgLru(*block.rg_lru, torch::stack(convolved), h);
  Tensor out = linear(block.linear_out, z * gate);
  if (block.options().input_size == block.options().hidden_size) out = out + x;
  if (block.final_norm) out = testing::rmsNorm(*block.final_norm, out);
  std::vector<Tensor> last(history.end() - (WIDTH - 1), history.end());
  return {out, h, torch::stack(last, 1)};
}

std::shared_ptr<RecurrentStackEncoder> makeStack(bool negative_eigenvalues = false) {
  auto enc = makeEncoder("rg_lru",
                         {{"layers", LAYERS}, {"hidden", H}, {"conv_width", WIDTH},
                          {"negative_eigenvalues", negative_eigenvalues}},
                         IN);
  auto stack = std::dynamic_pointer_cast<RecurrentStackEncoder>(enc);
  EXPECT_TRUE(stack) << "the rg_lru encoder is not a stack of blocks";
  stack->to(torch::kDouble);
  stack->eval();
  torch::NoGradGuard no_grad;
  for (auto& p : stack->parameters()) p.add_(torch::randn_like(p) * 0.3);  // off the init
  return stack;
}

RgLruBlockImpl& blockOf(RecurrentStackEncoder& stack, int64_t i) {
  auto block = std::dynamic_pointer_cast<RgLruBlockImpl>(stack.layer(i));
  if (!block) throw std::runtime_error("layer " + std::to_string(i) + " is not an RgLruBlock");
  return *block;
}

void expectPaperEquationsInDouble(bool negative_eigenvalues) {
  torch::manual_seed(41);
  auto stack = makeStack(negative_eigenvalues);
  const Tensor x = torch::randn({L, B, IN}, torch::kDouble).requires_grad_(true);
  SequenceState state;
  std::vector<Tensor> starts;
  for (int64_t i = 0; i < LAYERS; ++i) {
    starts.push_back(torch::randn({B, H}, torch::kDouble).requires_grad_(true));
    starts.push_back(torch::randn({B, WIDTH - 1, H}, torch::kDouble).requires_grad_(true));
    state.children.push_back(SequenceState{{starts[2 * i], starts[2 * i + 1]}, {}});
  }
  const SequenceOutput got = stack->encode(x, {}, state);
  Tensor input = x;
  std::vector<Tensor> want_states;
  for (int64_t i = 0; i < LAYERS; ++i) {
    const BlockResult r = blockReference(blockOf(*stack, i), input, starts[2 * i], starts[2 * i + 1]);
    want_states.push_back(r.h);
    want_states.push_back(r.conv);
    input = r.output;
  }
  EXPECT_FALSE(blockOf(*stack, 0).residual()) << "the first block widens 4 to 5";
  EXPECT_TRUE(blockOf(*stack, 1).residual());
  std::vector<testing::Named> outputs{{"features", got.features}}, leaves{{"input", x}};
  for (size_t i = 0; i < got.state.children.size(); ++i)
    for (size_t k = 0; k < got.state.children[i].tensors.size(); ++k)
      outputs.push_back({"state " + std::to_string(k) + " of layer " + std::to_string(i),
                         got.state.children[i].tensors[k]});
  for (size_t k = 0; k < starts.size(); ++k)
    leaves.push_back({"initial state " + std::to_string(k), starts[k]});
  for (const auto& p : stack->named_parameters()) leaves.push_back({p.key(), p.value()});
  want_states.insert(want_states.begin(), input);
  testing::expectSameOutputsAndGradients(outputs, want_states, leaves, 1e-10);
}

TEST(RgLruBlocks, MatchPaperEquationsInDouble) { expectPaperEquationsInDouble(false); }

TEST(RgLruBlocks, WithNegativeEigenvaluesMatchTheExtendedEquationsInDouble) {
  expectPaperEquationsInDouble(true);
}

// The state after a segment (the last h and the convolution's last inputs) lets the next
// segment go on as if the sequence had come whole: what an LM's BPTT and a decoder rely on.
TEST(RgLruBlocks, TwoSegmentsWithTheStateCarriedEqualTheWholeSequence) {
  torch::manual_seed(43);
  auto stack = makeStack();
  torch::NoGradGuard no_grad;
  const Tensor x = torch::randn({L, B, IN}, torch::kDouble);
  const SequenceOutput whole = stack->encode(x, {}, {});
  const SequenceOutput first = stack->encode(x.slice(0, 0, 4), {}, {});
  const SequenceOutput second = stack->encode(x.slice(0, 4), {}, first.state);
  EXPECT_LT((torch::cat({first.features, second.features}) - whole.features).abs().max().item<double>(),
            1e-12);
  for (int64_t i = 0; i < LAYERS; ++i)
    for (size_t k = 0; k < 2; ++k)
      EXPECT_LT((second.state.children[i].tensors[k] - whole.state.children[i].tensors[k])
                    .abs().max().item<double>(),
                1e-12)
          << "state " << k << " of layer " << i;
}

// Where a_t rounds to 1, d sqrt(1 - a_t²) / d(1 - a_t²) is 1000 instead of 1/(2·sqrt(·)):
// one step, h_1 = sqrt(u)·i·x with u = 1 - a², so dh/dΛ = i·x·1000·du/dΛ, du/dΛ =
// -2·a²·c·r·σ(-Λ). With Λ = 30, u is 7.5e-13 and the unbounded derivative would be 580 times
// larger.
TEST(RgLruLayerSqrt, DerivativeIsBoundedAtOneThousandWhereTheDecayNearsOne) {
  RgLruLayerOptions o;
  o.input_size = o.hidden_size = 1;
  o.input_projection = false;
  RgLruLayer layer(o);
  layer->to(torch::kDouble);
  {
    torch::NoGradGuard no_grad;
    layer->weight_gates.zero_();
    layer->bias_gates.copy_(torch::tensor({0.5, -0.25}, torch::kDouble));  // r, i logits
    layer->decay_logit.fill_(30.0);
  }
  const double x = 0.7, c = o.decay_scale, lambda = 30.0;
  const double r = 1 / (1 + std::exp(-0.5)), i = 1 / (1 + std::exp(0.25));
  const double sig_neg = 1 / (1 + std::exp(lambda));
  const double log_a = -c * r * std::log1p(std::exp(-lambda));
  const double a2 = std::exp(2 * log_a), u = -std::expm1(2 * log_a);
  ASSERT_LT(u, 2.5e-7) << "the test must sit where the bound applies";
  const SequenceOutput out = layer->forwardSequence(
      torch::full({1, 1, 1}, x, torch::kDouble), {}, SequenceState{{torch::zeros({1, 1}, torch::kDouble)}, {}});
  EXPECT_NEAR(out.features.item<double>(), std::sqrt(u) * i * x, 1e-18) << "forward is exact";
  out.features.sum().backward();
  const double want = i * x * 1000.0 * (-2 * a2 * c * r * sig_neg);
  EXPECT_NEAR(layer->decay_logit.grad().item<double>(), want, std::abs(want) * 1e-9);
}

// A sequence's first step, when no state is given, takes its input unscaled (recurrentgemma
// resets the scale at a document's first token); a given state, even zeros, is a continuation.
TEST(RgLruLayerReset, AFirstStepWithoutStateTakesItsInputUnscaled) {
  torch::manual_seed(44);
  RgLruLayerOptions o;
  o.input_size = o.hidden_size = H;
  o.input_projection = false;
  RgLruLayer layer(o);
  layer->to(torch::kDouble);
  torch::NoGradGuard no_grad;
  const Tensor x = torch::randn({L, B, H}, torch::kDouble);
  const Tensor zeros = torch::zeros({B, H}, torch::kDouble);
  Tensor h = zeros;
  const Tensor continued = rgLru(*layer, x, h);
  const Tensor fresh = layer->forwardSequence(x, {}, {}).features;
  const Tensor given = layer->forwardSequence(x, {}, SequenceState{{zeros}, {}}).features;
  EXPECT_LT((given - continued).abs().max().item<double>(), 1e-12);
  const Tensor i = torch::sigmoid(torch::matmul(x[0], layer->weight_gates.slice(1, H, 2 * H)) +
                                  layer->bias_gates.slice(0, H, 2 * H));
  EXPECT_LT((fresh[0] - i * x[0]).abs().max().item<double>(), 1e-12) << "h_1 = i_1 ⊙ x_1";
  EXPECT_GT((fresh[0] - given[0]).abs().max().item<double>(), 1e-3) << "the reset changed nothing";
  // The later steps go on from h_1 as the recurrence says.
  Tensor h1 = fresh[0];
  EXPECT_LT((rgLru(*layer, x.slice(0, 1), h1) - fresh.slice(0, 1)).abs().max().item<double>(),
            1e-12);
}

TEST(RgLruBlocks, BadOptionsNameTheKey) {
  for (const auto& [config, key] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"conv_width", 0}}, "conv_width"}, {{{"decay_scale", -1.0}}, "decay_scale"}}) {
    try {
      makeEncoder("rg_lru", config, IN);
      ADD_FAILURE() << "rg_lru accepted " << config.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace recurlab::models
