// The encoders run by the linear recurrence op (min_gru, min_lstm, sru_linear, hgrn; rg_lru's
// blocks: rg_lru_block_test.cpp) against naive implementations of their papers' equations in
// double: a loop over time with the recurrence written as the paper writes it (the log-space
// forms of minGRU and minLSTM as Feng et al. 2024, appendix, compute it: a cumulative sum and a
// log-cumulative-sum-exp), on the encoder's own parameters. Features, final states and the gradients of the input, the initial
// states and every parameter agree to 1e-10. With negative_eigenvalues each reference writes
// its multiplier as 2·a_t − 1 (Grazzi et al. 2025), and a layer so extended tracks parity.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "models/encoders/hgrn_encoder.h"
#include "models/encoders/recurrent_stack.h"
#include "models/layers/min_gru_layer.h"
#include "models/layers/min_lstm_layer.h"
#include "models/layers/sru_linear_layer.h"
#include "models/registry.h"
#include "tests/support/recurrence_check.h"

namespace recurlab::models {
namespace {

using torch::Tensor;
namespace F = torch::nn::functional;

constexpr int64_t L = 9, B = 3, IN = 4, H = 5, LAYERS = 2;

// One layer of a reference: input (L, B, in), initial state (B, out) -> (output, last state).
struct LayerResult {
  Tensor output, last;
};

// The multiplier a_t, or 2·a_t − 1 with negative_eigenvalues.
Tensor multiplier(const Tensor& a, bool negative_eigenvalues) {
  return negative_eigenvalues ? 2 * a - 1 : a;
}

// Time-reversed for the second direction.
Tensor inTime(const Tensor& x, int64_t dir) { return dir == 1 ? x.flip(0) : x; }

// Splits column block q of a matmul result (L, B, k·out) into direction dir's d units.
Tensor block(const Tensor& u, int64_t q, int64_t out, int64_t dir, int64_t d) {
  return u.slice(2, q * out + dir * d, q * out + (dir + 1) * d);
}

// Feng et al. 2024, appendix: h_t = exp(a*_t + logcumsumexp(log v - a*)_t), a* the cumulative
// sum of the log coefficients with a* = 0 before the first step and v = [h0, values].
Tensor heinsenScan(const Tensor& log_coeffs, const Tensor& log_values_with_h0) {
  const Tensor a_star = F::pad(torch::cumsum(log_coeffs, 0), F::PadFuncOptions({0, 0, 0, 0, 1, 0}));
  const Tensor log_h = a_star + torch::logcumsumexp(log_values_with_h0 - a_star, 0);
  return torch::exp(log_h).slice(0, 1);
}

Tensor logG(const Tensor& x) {
  return torch::where(x >= 0, torch::log(torch::relu(x) + 0.5), torch::log(torch::sigmoid(x)));
}

// minGRU (§3) or, log_space, its log-space form.
LayerResult minGruReference(const MinGruLayerImpl& layer, const Tensor& x, const Tensor& h0) {
  const auto& o = layer.options();
  const int64_t d = o.hidden_size, out = o.outputSize();
  const Tensor u = torch::matmul(x, layer.weight) + layer.bias;
  std::vector<Tensor> outputs, lasts;
  for (int64_t dir = 0; dir < (o.bidirectional ? 2 : 1); ++dir) {
    const Tensor k = inTime(block(u, 0, out, dir, d), dir);
    const Tensor cand = inTime(block(u, 1, out, dir, d), dir);
    const Tensor start = h0.slice(1, dir * d, (dir + 1) * d);
    Tensor hs;
    if (o.log_space) {
      const Tensor log_values = torch::cat({torch::log(start).unsqueeze(0),
                                            -F::softplus(-k) + logG(cand)});
      hs = heinsenScan(-F::softplus(k), log_values);
    } else {
      std::vector<Tensor> steps;
      Tensor h = start;
      for (int64_t t = 0; t < x.size(0); ++t) {
        const Tensor z = torch::sigmoid(k[t]);
        h = multiplier(1 - z, o.negative_eigenvalues) * h + z * cand[t];
        steps.push_back(h);
      }
      hs = torch::stack(steps);
    }
    outputs.push_back(inTime(hs, dir));
    lasts.push_back(hs[-1]);
  }
  return {torch::cat(outputs, 2), torch::cat(lasts, 1)};
}

// minLSTM (§3) or, log_space, its log-space form.
LayerResult minLstmReference(const MinLstmLayerImpl& layer, const Tensor& x, const Tensor& h0) {
  const auto& o = layer.options();
  const int64_t d = o.hidden_size, out = o.outputSize();
  const Tensor u = torch::matmul(x, layer.weight) + layer.bias;
  std::vector<Tensor> outputs, lasts;
  for (int64_t dir = 0; dir < (o.bidirectional ? 2 : 1); ++dir) {
    const Tensor pf = inTime(block(u, 0, out, dir, d), dir);
    const Tensor pi = inTime(block(u, 1, out, dir, d), dir);
    const Tensor cand = inTime(block(u, 2, out, dir, d), dir);
    const Tensor start = h0.slice(1, dir * d, (dir + 1) * d);
    Tensor hs;
    if (o.log_space) {
      const Tensor diff = F::softplus(-pf) - F::softplus(-pi);
      const Tensor log_values = torch::cat({torch::log(start).unsqueeze(0),
                                            -F::softplus(-diff) + logG(cand)});
      hs = heinsenScan(-F::softplus(diff), log_values);
    } else {
      std::vector<Tensor> steps;
      Tensor h = start;
      for (int64_t t = 0; t < x.size(0); ++t) {
        const Tensor f = torch::sigmoid(pf[t]), i = torch::sigmoid(pi[t]);
        h = multiplier(f / (f + i), o.negative_eigenvalues) * h + i / (f + i) * cand[t];
        steps.push_back(h);
      }
      hs = torch::stack(steps);
    }
    outputs.push_back(inTime(hs, dir));
    lasts.push_back(hs[-1]);
  }
  return {torch::cat(outputs, 2), torch::cat(lasts, 1)};
}

// Lei et al. 2017 v1, §2.
LayerResult sruLinearReference(const SruLinearLayerImpl& layer, const Tensor& x, const Tensor& c0) {
  const auto& o = layer.options();
  const int64_t d = o.hidden_size, out = o.outputSize();
  const Tensor u = torch::matmul(x, layer.weight);
  std::vector<Tensor> outputs, lasts;
  for (int64_t dir = 0; dir < (o.bidirectional ? 2 : 1); ++dir) {
    const Tensor xt = inTime(block(u, 0, out, dir, d), dir);
    const Tensor pf = inTime(block(u, 1, out, dir, d), dir) + layer.bias.slice(0, dir * d, (dir + 1) * d);
    const Tensor pr = inTime(block(u, 2, out, dir, d), dir) +
                      layer.bias.slice(0, out + dir * d, out + (dir + 1) * d);
    const Tensor skip = inTime(o.numMatrices() == 4 ? block(u, 3, out, dir, d)
                                                    : x.slice(2, dir * d, (dir + 1) * d),
                               dir);
    Tensor c = c0.slice(1, dir * d, (dir + 1) * d);
    std::vector<Tensor> steps;
    for (int64_t t = 0; t < x.size(0); ++t) {
      const Tensor f = torch::sigmoid(pf[t]), r = torch::sigmoid(pr[t]);
      c = multiplier(f, o.negative_eigenvalues) * c + (1 - f) * xt[t];
      const Tensor g = o.tanh_activation ? torch::tanh(c) : c;
      steps.push_back(r * g + (1 - r) * skip[t]);
    }
    outputs.push_back(inTime(torch::stack(steps), dir));
    lasts.push_back(c);
  }
  return {torch::cat(outputs, 2), torch::cat(lasts, 1)};
}

// Qin et al. 2023, §3 (real-valued), with layer k's lower bound γ^k given.
LayerResult hgrnReference(HgrnLayerImpl& layer, const Tensor& gamma, const Tensor& x,
                          const Tensor& h0) {
  const int64_t d = layer.options().hidden_size;
  const Tensor u = torch::matmul(x, layer.weight) + layer.bias;
  Tensor h = h0;
  std::vector<Tensor> steps;
  for (int64_t t = 0; t < x.size(0); ++t) {
    const Tensor lambda = gamma + (1 - gamma) * torch::sigmoid(u[t].slice(1, 0, d));
    const Tensor c = u[t].slice(1, d, 2 * d) * torch::sigmoid(u[t].slice(1, d, 2 * d));
    h = multiplier(lambda, layer.options().negative_eigenvalues) * h + (1 - lambda) * c;
    const Tensor v = torch::sigmoid(u[t].slice(1, 2 * d, 3 * d)) * h;
    const Tensor mean = v.mean(1, true), var = (v - mean).pow(2).mean(1, true);
    const Tensor normed = (v - mean) / torch::sqrt(var + 1e-5) * layer.layer_norm->weight +
                          layer.layer_norm->bias;
    steps.push_back(torch::matmul(normed, layer.weight_out) + layer.bias_out);
  }
  return {torch::stack(steps), h};
}

// γ^k = Σ_{j<k} softmax(Γ over layers)_j, written out.
Tensor hgrnLowerBound(const Tensor& logits, int64_t k) {
  const Tensor shares = torch::exp(logits) / torch::exp(logits).sum(0, true);
  Tensor gamma = torch::zeros_like(logits[0]);
  for (int64_t j = 0; j < k; ++j) gamma = gamma + shares[j];
  return gamma;
}

// The whole encoder's reference: every layer in turn, from the states h0[i].
using StackReference = std::function<LayerResult(SequenceEncoder&, int64_t layer,
                                                 const Tensor& x, const Tensor& h0)>;

template <typename Layer, typename Reference>
StackReference stackReference(Reference reference) {
  return [reference](SequenceEncoder& enc, int64_t i, const Tensor& x, const Tensor& h0) {
    auto& stack = dynamic_cast<RecurrentStackEncoder&>(enc);
    const auto layer = std::dynamic_pointer_cast<Layer>(stack.layer(i));
    EXPECT_TRUE(layer) << "layer " << i << " has another type";
    return reference(*layer, x, h0);
  };
}

struct ModelCase {
  std::string label, encoder;
  nlohmann::json config;
  StackReference reference;
  bool positive_state;  // log-space forms: their states are positive
};

std::vector<ModelCase> modelCases() {
  std::vector<ModelCase> cases;
  for (bool bidirectional : {false, true})
    for (bool log_space : {false, true}) {
      const std::string suffix =
          std::string(bidirectional ? "_bidirectional" : "") + (log_space ? "_log_space" : "");
      const nlohmann::json config{{"bidirectional", bidirectional}, {"log_space", log_space}};
      cases.push_back({"min_gru" + suffix, "min_gru", config,
                       stackReference<MinGruLayerImpl>(minGruReference), log_space});
      cases.push_back({"min_lstm" + suffix, "min_lstm", config,
                       stackReference<MinLstmLayerImpl>(minLstmReference), log_space});
    }
  for (bool bidirectional : {false, true})
    for (const char* activation : {"tanh", "identity"})
      cases.push_back({std::string("sru_linear_") + activation + (bidirectional ? "_bidirectional" : ""),
                       "sru_linear", {{"bidirectional", bidirectional}, {"activation", activation}},
                       stackReference<SruLinearLayerImpl>(sruLinearReference), false});
  for (bool bidirectional : {false, true}) {
    const std::string suffix = std::string("_negative_eigenvalues") + (bidirectional ? "_bidirectional" : "");
    const nlohmann::json config{{"bidirectional", bidirectional}, {"negative_eigenvalues", true}};
    cases.push_back({"min_gru" + suffix, "min_gru", config,
                     stackReference<MinGruLayerImpl>(minGruReference), false});
    cases.push_back({"min_lstm" + suffix, "min_lstm", config,
                     stackReference<MinLstmLayerImpl>(minLstmReference), false});
    cases.push_back({"sru_linear" + suffix, "sru_linear", config,
                     stackReference<SruLinearLayerImpl>(sruLinearReference), false});
  }
  // hidden = input size: the first layer's highway takes x itself.
  cases.push_back({"sru_linear_same_width", "sru_linear", {{"hidden", IN}},
                   stackReference<SruLinearLayerImpl>(sruLinearReference), false});
  for (bool negative_eigenvalues : {false, true})
    cases.push_back({negative_eigenvalues ? "hgrn_negative_eigenvalues" : "hgrn", "hgrn",
                     {{"negative_eigenvalues", negative_eigenvalues}},
                     [](SequenceEncoder& enc, int64_t i, const Tensor& x, const Tensor& h0) {
                       auto& hgrn = dynamic_cast<HgrnEncoder&>(enc);
                       return hgrnReference(*hgrn.layer(i),
                                            hgrnLowerBound(hgrn.lower_bound_logits, i), x, h0);
                     },
                     false});
  for (auto& c : cases) {
    c.config["layers"] = LAYERS;
    if (!c.config.contains("hidden")) c.config["hidden"] = H;
  }
  return cases;
}

// Names the case in failure messages instead of its bytes.
void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.label; }

class LinearRecurrenceModels : public ::testing::TestWithParam<ModelCase> {};

TEST_P(LinearRecurrenceModels, MatchPaperEquationsInDouble) {
  const ModelCase& c = GetParam();
  torch::manual_seed(31);
  auto enc = makeEncoder(c.encoder, c.config, IN);
  enc->to(torch::kDouble);
  enc->eval();
  // Move the trained-looking parameters off their initial values (zero biases, equal bounds).
  {
    torch::NoGradGuard no_grad;
    for (auto& p : enc->parameters()) p.add_(torch::randn_like(p) * 0.3);
  }
  const int64_t out = enc->outputSize();
  const Tensor x = torch::randn({L, B, IN}, torch::kDouble).requires_grad_(true);
  SequenceState state;
  std::vector<Tensor> h0s;
  for (int64_t i = 0; i < LAYERS; ++i) {
    Tensor h0 = torch::randn({B, out}, torch::kDouble);
    if (c.positive_state) h0 = h0.abs() + 0.1;
    h0s.push_back(h0.requires_grad_(true));
    state.children.push_back(SequenceState{{h0s.back()}, {}});
  }
  const SequenceOutput got = enc->encode(x, {}, state);
  Tensor input = x;
  std::vector<Tensor> want_states;
  for (int64_t i = 0; i < LAYERS; ++i) {
    const LayerResult r = c.reference(*enc, i, input, h0s[i]);
    want_states.push_back(r.last);
    input = r.output;
  }
  std::vector<testing::Named> outputs{{"features", got.features}}, leaves{{"input", x}};
  for (int64_t i = 0; i < LAYERS; ++i) {
    outputs.push_back({"state of layer " + std::to_string(i), got.state.children[i].tensors[0]});
    leaves.push_back({"h0 of layer " + std::to_string(i), h0s[i]});
  }
  for (const auto& p : enc->named_parameters()) leaves.push_back({p.key(), p.value()});
  want_states.insert(want_states.begin(), input);
  testing::expectSameOutputsAndGradients(outputs, want_states, leaves, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(PaperEquations, LinearRecurrenceModels, ::testing::ValuesIn(modelCases()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) {
                           return info.param.label;
                         });

// HGRN's lower bounds: 0 for the first layer, rising with depth, below 1 at the top.
TEST(HgrnEncoderLowerBounds, StartAtZeroAndRiseWithDepth) {
  torch::manual_seed(33);
  auto enc = makeEncoder("hgrn", {{"layers", 4}, {"hidden", H}}, IN);
  auto& hgrn = dynamic_cast<HgrnEncoder&>(*enc);
  {
    torch::NoGradGuard no_grad;
    hgrn.lower_bound_logits.normal_();
  }
  const Tensor gamma = hgrn.lowerBounds();
  EXPECT_EQ(gamma[0].abs().max().item<double>(), 0.0);
  EXPECT_TRUE((gamma.slice(0, 1) > gamma.slice(0, 0, 3)).all().item<bool>());
  EXPECT_TRUE((gamma < 1).all().item<bool>());
}

TEST(LinearRecurrenceModelsOptions, BadOptionsNameTheKey) {
  for (const auto& [name, config, key] :
       std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"min_gru", {{"log_space", 1}}, "log_space"},
           {"min_gru", {{"log_space", true}, {"negative_eigenvalues", true}}, "negative_eigenvalues"},
           {"min_lstm", {{"log_space", true}, {"negative_eigenvalues", true}}, "negative_eigenvalues"},
           {"hgrn", {{"negative_eigenvalues", "yes"}}, "negative_eigenvalues"},
           {"min_lstm", {{"hidden", 0}}, "hidden"},
           {"sru_linear", {{"activation", "relu"}}, "activation"},
           {"rg_lru", {{"decay_scale", -1.0}}, "decay_scale"},
           {"hgrn", {{"bidirectional", true}}, "bidirectional"}}) {
    try {
      makeEncoder(name, config, IN);
      ADD_FAILURE() << name << " accepted " << config.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

// Parity by sign, the mechanism Grazzi et al. (2025) give: one minGRU unit whose gate reads the
// bit (k = ±20: z ≈ 1 on a one, ≈ 0 on a zero) and whose candidate is 0 multiplies a unit state by
// a_t = 1 − 2z_t ≈ −1 at each one and ≈ +1 at each zero, so after 200 random bits its sign is
// (−1)^(number of ones). Within (0, 1) (the paper's minGRU) the same weights forget the state
// at each one (a_t ≈ 0) and it never turns negative.
TEST(NegativeEigenvalues, AMinGruUnitTracksParityBySign) {
  torch::manual_seed(35);
  const Tensor bits = torch::randint(0, 2, {200, 8, 1}, torch::kDouble);  // 8 strings
  const Tensor ones = bits.sum(0).squeeze(1);
  for (bool negative_eigenvalues : {false, true}) {
    MinGruLayerImpl layer(MinGruLayerOptions{1, 1, false, false, negative_eigenvalues});
    layer.to(torch::kDouble);
    {
      torch::NoGradGuard no_grad;
      layer.weight.copy_(torch::tensor({{40.0, 0.0}}, torch::kDouble));  // k = 40·bit − 20
      layer.bias.copy_(torch::tensor({-20.0, 0.0}, torch::kDouble));
    }
    const Tensor h0 = torch::ones({8, 1}, torch::kDouble);
    const Tensor last =
        layer.forwardSequence(bits, {}, SequenceState{{h0}, {}}).state.tensors[0].squeeze(1);
    if (negative_eigenvalues) {
      EXPECT_TRUE(torch::equal(torch::sign(last), 1 - 2 * torch::remainder(ones, 2)))
          << "last " << last << " ones " << ones;
      EXPECT_GT(last.abs().min().item<double>(), 0.99) << "the magnitude stays near 1";
    } else {
      EXPECT_TRUE((last >= 0).all().item<bool>()) << "last " << last;
    }
  }
}

}  // namespace
}  // namespace recurlab::models
