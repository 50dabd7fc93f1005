// Under bf16 autocast the linear recurrences compute their gates in float32 from the bfloat16
// projections (models/layers/gate_precision.h): a decay of 0.999 would round in bfloat16 to 1,
// and a state that should forget over a thousand steps would never forget. Each encoder runs
// 2,000 steps of one input whose projections give a_t = 0.999 (all weights zero, the decay in
// the biases); its final state under autocast stays within 1% of float32's (in bfloat16 gates:
// 2.0 against 0.865, 131% off).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiments/training/precision.h"
#include "models/registry.h"

namespace recurlab::models {
namespace {

constexpr int64_t D = 4, L = 2000;

struct GateCase {
  std::string encoder;
  nlohmann::json config;
  // Sets the biases (all weights zero) so that a_t = 0.999 with a positive input term.
  std::function<void(torch::nn::Module&)> set_biases;
};

std::vector<GateCase> cases() {
  const double k = -std::log(999.0);  // σ(-k) = 0.999
  const auto minGru = [k](torch::nn::Module& m) {
    torch::Tensor b = m.named_parameters()["layers.0.bias"];
    b.slice(0, 0, D).fill_(k);      // a = σ(-k)
    b.slice(0, D, 2 * D).fill_(1);  // candidate
  };
  return {
      {"min_gru", {{"layers", 1}, {"hidden", D}}, minGru},
      {"min_gru", {{"layers", 1}, {"hidden", D}, {"log_space", true}}, minGru},
      {"min_lstm", {{"layers", 1}, {"hidden", D}},
       [](torch::nn::Module& m) {
         // [f | i | candidate]: a = f / (f + i)
         torch::Tensor b = m.named_parameters()["layers.0.bias"];
         b.slice(0, 0, D).fill_(0.0);
         b.slice(0, D, 2 * D).fill_(-std::log(999.0 * 2 - 1));  // i = 0.5 / 999
         b.slice(0, 2 * D, 3 * D).fill_(1);
       }},
      {"hgrn", {{"layers", 1}, {"hidden", D}},
       [k](torch::nn::Module& m) {
         // [f | c | g], layer 0's bound is 0
         torch::Tensor b = m.named_parameters()["layers.0.bias"];
         b.slice(0, 0, D).fill_(-k);               // λ = σ(pf) = 0.999
         b.slice(0, D, 2 * D).fill_(1);
       }},
  };
}

torch::Tensor finalState(torch::nn::Module& encoder, bool bf16) {
  auto& enc = dynamic_cast<SequenceEncoder&>(encoder);
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::zeros({L, 1, D});
  std::optional<experiments::AutocastScope> autocast;
  if (bf16) autocast.emplace(experiments::Precision::Bf16, torch::kCPU);
  return enc.encode(x, {}, {}).state.children.at(0).tensors.at(0).to(torch::kFloat);
}

TEST(GatePrecision, UnderBf16AutocastADecayOf0999StillForgets) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.encoder + " " + c.config.dump());
    auto enc = makeEncoder(c.encoder, c.config, D);
    enc->eval();
    {
      torch::NoGradGuard no_grad;
      for (auto& p : enc->parameters()) p.zero_();
      c.set_biases(*enc);
    }
    const torch::Tensor fp32 = finalState(*enc, false), bf16 = finalState(*enc, true);
    ASSERT_GT(fp32.abs().min().item<double>(), 0.1);
    EXPECT_LT(((bf16 - fp32).abs() / fp32.abs()).max().item<double>(), 0.01)
        << "float32 " << fp32 << "\nbf16 autocast " << bf16;
  }
}

}  // namespace
}  // namespace recurlab::models
