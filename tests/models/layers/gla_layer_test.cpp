// The "gla" encoder (models/layers/gla_block.h around models/layers/gla_layer.h) against the
// equations of Yang et al. 2024, §4.4, written as a loop over time and heads in double on the
// encoder's own parameters (the gate as σ(·)^{1/τ}, the state update as the outer product
// k_t^T v_t), each layer in its pre-norm residual (RMSNorm written out; none where the first
// block widens its input) with a final RMSNorm: features, last states and the gradients of the
// input, the initial states and every parameter agree to 1e-10, for the step-by-step form and
// chunks that do and do not divide the length.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "models/encoders/recurrent_stack.h"
#include "models/layers/gla_block.h"
#include "models/layers/gla_layer.h"
#include "models/registry.h"
#include "tests/support/naive_rms_norm.h"
#include "tests/support/recurrence_check.h"

namespace recurlab::models {
namespace {

using torch::Tensor;

constexpr int64_t L = 9, B = 3, IN = 4, D = 6, HEADS = 2, LAYERS = 2;

struct LayerResult {
  Tensor output, last;
};

// One layer: x (L, B, in), s0 (B, H, d_k/H, d_v/H).
LayerResult glaReference(const GlaLayerImpl& layer, const Tensor& x, const Tensor& s0) {
  const auto& o = layer.options();
  const int64_t dk = o.keyWidth() / o.heads, dv = o.valueWidth() / o.heads;
  std::vector<Tensor> state, outputs;
  for (int64_t h = 0; h < o.heads; ++h) state.push_back(s0.select(1, h));  // (B, dk, dv)
  for (int64_t t = 0; t < x.size(0); ++t) {
    const Tensor xt = x[t];
    const Tensor alpha = torch::pow(
        torch::sigmoid(torch::matmul(torch::matmul(xt, layer.weight_gate_down), layer.weight_gate_up) +
                       layer.bias_gate),
        1.0 / o.gate_normalizer);
    std::vector<Tensor> heads;
    for (int64_t h = 0; h < o.heads; ++h) {
      const auto cols = [&](const Tensor& w, int64_t width) {
        return torch::matmul(xt, w.slice(1, h * width, (h + 1) * width));
      };
      const Tensor q = cols(layer.weight_q, dk) / std::sqrt(static_cast<double>(dk));
      const Tensor k = cols(layer.weight_k, dk), v = cols(layer.weight_v, dv);
      const Tensor a = alpha.slice(1, h * dk, (h + 1) * dk);
      // S_t = Diag(α_t) S_{t-1} + k_t^T v_t, o_t = q_t S_t.
      state[h] = a.unsqueeze(2) * state[h] + torch::bmm(k.unsqueeze(2), v.unsqueeze(1));
      const Tensor out = torch::bmm(q.unsqueeze(1), state[h]).squeeze(1);
      heads.push_back(out / torch::sqrt(out.pow(2).mean(1, true) + 1e-6) * layer.norm_weight);
    }
    const Tensor r = torch::matmul(xt, layer.weight_out_gate);
    outputs.push_back(torch::matmul(torch::cat(heads, 1) * (r * torch::sigmoid(r)), layer.weight_out));
  }
  return {torch::stack(outputs), torch::stack(state, 1)};
}

class GlaLayerEquations : public ::testing::TestWithParam<int> {};

TEST_P(GlaLayerEquations, MatchThePapersEquationsInDouble) {
  const int chunk = GetParam();
  torch::manual_seed(51);
  auto enc = makeEncoder("gla",
                         {{"layers", LAYERS}, {"hidden", D}, {"heads", HEADS},
                          {"expand_k", 2.0 / 3}, {"chunk", chunk}},
                         IN);
  enc->to(torch::kDouble);
  enc->eval();
  {
    torch::NoGradGuard no_grad;
    for (auto& p : enc->parameters()) p.add_(torch::randn_like(p) * 0.3);
  }
  auto& stack = dynamic_cast<RecurrentStackEncoder&>(*enc);
  const Tensor x = torch::randn({L, B, IN}, torch::kDouble).requires_grad_(true);
  SequenceState state;
  std::vector<Tensor> s0s;
  for (int64_t i = 0; i < LAYERS; ++i) {
    s0s.push_back(torch::randn({B, HEADS, 2, 3}, torch::kDouble).requires_grad_(true));
    state.children.push_back(SequenceState{{s0s.back()}, {}});
  }
  const SequenceOutput got = enc->encode(x, {}, state);
  Tensor input = x;
  std::vector<Tensor> want_states;
  for (int64_t i = 0; i < LAYERS; ++i) {
    const auto block = std::dynamic_pointer_cast<GlaBlockImpl>(stack.layer(i));
    ASSERT_TRUE(block) << "layer " << i << " is not a GlaBlock";
    EXPECT_EQ(block->residual(), i > 0) << "only the first block widens its input";
    const LayerResult r =
        glaReference(*block->attn, testing::rmsNorm(*block->attn_norm, input), s0s[i]);
    want_states.push_back(r.last);
    input = block->residual() ? input + r.output : r.output;
    if (block->norm) input = testing::rmsNorm(*block->norm, input);
    EXPECT_EQ(static_cast<bool>(block->norm), i == LAYERS - 1) << "a final norm on the top block";
  }
  std::vector<testing::Named> outputs{{"features", got.features}}, leaves{{"input", x}};
  for (int64_t i = 0; i < LAYERS; ++i) {
    outputs.push_back({"state of layer " + std::to_string(i), got.state.children[i].tensors[0]});
    leaves.push_back({"s0 of layer " + std::to_string(i), s0s[i]});
  }
  for (const auto& p : enc->named_parameters()) leaves.push_back({p.key(), p.value()});
  want_states.insert(want_states.begin(), input);
  testing::expectSameOutputsAndGradients(outputs, want_states, leaves, 1e-10);
}

// By device (on the CPU the fused step-by-step kernel); step by step; chunks of 1, 2, 4 (not
// dividing L = 9), L, and longer than L.
INSTANTIATE_TEST_SUITE_P(Chunks, GlaLayerEquations, ::testing::Values(-1, 0, 1, 2, 4, 9, 64),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param < 0 ? std::string("by_device")
                                                 : "chunk" + std::to_string(info.param);
                         });

// Any width gives whole heads: hidden 6 with 4 heads has keys of round(6·0.5/4) = 1 unit per
// head and values of round(6/4) = 2 (the parameter-budget fit tries every width).
TEST(GlaLayerOptions, WidthsRoundToWholeUnitsPerHead) {
  const GlaLayerOptions o{IN, 6, 4};
  EXPECT_EQ(o.keyWidth(), 4);
  EXPECT_EQ(o.valueWidth(), 8);
  auto enc = makeEncoder("gla", {{"hidden", 6}, {"heads", 4}, {"layers", 1}}, IN);
  EXPECT_EQ(enc->outputSize(), 6);
}

TEST(GlaLayerOptions, BadOptionsNameTheProblem) {
  for (const auto& [config, text] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"heads", 0}}, "heads"},
           {{{"expand_k", 0.0}}, "expand_k"},
           {{{"chunk", -2}}, "chunk"},
           {{{"gate_rank", 0}}, "gate_rank"},
           {{{"heads", 2}, {"bidirectional", true}}, "bidirectional"}}) {
    try {
      makeEncoder("gla", config, IN);
      ADD_FAILURE() << "gla accepted " << config.dump();
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace recurlab::models
