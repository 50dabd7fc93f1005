// Every encoder of the model zoo builds from the registry by name, keeps pad steps at zero,
// trains (gradients reach the input) and rejects bad options with errors naming the key.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/runtime/torch_build.h"
#include "models/registry.h"

namespace recurlab::models {
namespace {

constexpr int64_t L = 7, B = 3, IN = 6, H = 5;

struct Named {
  std::string name;
  nlohmann::json config;
};

std::vector<Named> zoo() {
  std::vector<Named> out;
  for (int window : {1, 2})
    for (const char* pooling : {"fo", "f"})
      out.push_back({"qrnn", {{"window", window}, {"pooling", pooling}, {"zoneout", 0.2}}});
  for (const char* name : {"rrnn_b", "rrnn_bmp", "rrnn_c", "rrnn_f"})
    for (bool gate : {false, true}) out.push_back({name, {{"output_gate", gate}}});
  for (int n = 1; n <= 4; ++n) out.push_back({"ngram", {{"n", n}}});
  for (int depth = 0; depth <= 2; ++depth) out.push_back({"self_iru", {{"depth", depth}}});
  for (int width : {2, 3}) out.push_back({"gated_conv", {{"width", width}}});
  for (auto& e : out) {
    e.config["layers"] = 2;
    e.config["hidden"] = H;
    e.config["dropout"] = 0.1;
    if (e.name != "gated_conv") e.config["rnn_dropout"] = 0.1;
  }
  return out;
}

TEST(ZooEncoders, BuildEncodeAndBackpropagateByName) {
  auto pad = torch::zeros({L, B}, torch::kBool);
  pad.slice(0, 4, L).select(1, 1).fill_(true);
  for (const auto& e : zoo()) {
    SCOPED_TRACE(e.name + " " + e.config.dump());
    auto enc = makeEncoder(e.name, e.config, IN);
    EXPECT_EQ(enc->outputSize(), H);
    torch::manual_seed(4);
    const torch::Tensor x = torch::randn({L, B, IN}, torch::requires_grad());
    enc->train();
    const torch::Tensor y = enc->encode(x, pad);
    ASSERT_EQ(y.sizes(), (std::vector<int64_t>{L, B, H}));
    EXPECT_TRUE(torch::isfinite(y).all().item<bool>());
    EXPECT_TRUE((y.slice(0, 4, L).select(1, 1) == 0).all().item<bool>());
    y.sum().backward();
    EXPECT_GT(x.grad().abs().sum().item<double>(), 0.0);
    enc->eval();
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(torch::isfinite(enc->encode(x, pad)).all().item<bool>());
  }
}

void expectInvalid(const std::string& name, const nlohmann::json& config,
                   const std::string& needle) {
  try {
    makeEncoder(name, config, IN);
    FAIL() << "expected an error for " << name << " " << config.dump();
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
  }
}

TEST(ZooEncoders, BadOptionsNameTheKey) {
  expectInvalid("ngram", {{"n", 5}}, "'n'");
  expectInvalid("ngram", {{"m", 2}}, "m");
  expectInvalid("qrnn", {{"window", 3}}, "'window'");
  expectInvalid("qrnn", {{"pooling", "ifo"}}, "'pooling'");
  expectInvalid("rrnn_f", {{"output_gate", 1}}, "'output_gate'");
  expectInvalid("self_iru", {{"depth", 9}}, "'depth'");
  expectInvalid("gated_conv", {{"width", 4}}, "'width'");
  expectInvalid("rrnn_x", {}, "rrnn_bmp");  // unknown model lists the known ones
}

TEST(ZooEncoders, EncodersAreDeterministicInEval) {
  for (const auto& e : zoo()) {
    SCOPED_TRACE(e.name);
    torch::manual_seed(1);
    auto a = makeEncoder(e.name, e.config, IN);
    torch::manual_seed(1);
    auto b = makeEncoder(e.name, e.config, IN);
    a->eval();
    b->eval();
    torch::NoGradGuard no_grad;
    const torch::Tensor x = torch::randn({L, B, IN});
    EXPECT_TRUE(torch::equal(a->encode(x, {}), b->encode(x, {})));
  }
}

// A padded batch runs the unidirectional LSTM on packed steps (so each row's state stops at its
// last real step). With Debian's LibTorch 1.13 its features at the real steps are bit for bit
// those of the plain run, so classifiers built on it give the same numbers as before the state
// was carried. PyTorch 2.x's LibTorch (MKL) blocks the packed run's smaller GEMMs differently:
// there each feature (|h| < 1) is within a few roundings of the plain one, 64 unit roundoffs
// (2^-24) bounding the 2 layers' sums of IN + H products over L steps at these sizes.
TEST(ZooEncoders, PackedLstmFeaturesEqualThePlainRunAtRealSteps) {
  torch::manual_seed(2);
  auto enc = makeEncoder("lstm", {{"layers", 2}, {"hidden", H}}, IN);
  enc->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::randn({L, B, IN});
  torch::Tensor pad = torch::zeros({L, B}, torch::kBool);
  pad.slice(0, 3, L).select(1, 0).fill_(true);
  pad.slice(0, 5, L).select(1, 2).fill_(true);
  const torch::Tensor packed = enc->encode(x, pad);
  const torch::Tensor plain = enc->encode(x, {}).masked_fill(pad.unsqueeze(2), 0.0);
  const double max_difference = (packed - plain).abs().max().item<double>();
  if (torchVersion().rfind("1.", 0) == 0)
    EXPECT_TRUE(torch::equal(packed, plain)) << "max |difference| " << max_difference;
  else
    EXPECT_LE(max_difference, 64 * std::ldexp(1.0, -24));
}

}  // namespace
}  // namespace recurlab::models
