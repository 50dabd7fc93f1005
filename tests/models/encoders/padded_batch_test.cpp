// Batch consistency with padding, in double precision, for every recurrent encoder of the
// registry: a right-padded batch of sequences of different lengths gives each sequence the
// features (and the final state) it gets when encoded alone. Garbage in the pad steps must not
// leak into a real step, into the state, or backwards through a bidirectional layer.
// `ctest -R PaddedBatch` runs these.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/registry.h"

namespace recurlab::models {
namespace {

using torch::indexing::Slice;

constexpr int64_t L = 7, B = 4, IN = 4, H = 3;
// Lengths: full, middle, one step, and one that ends right before the last step.
const std::vector<int64_t> kLengths{7, 4, 1, 6};

struct PaddedCase {
  std::string label;
  std::string encoder;
  nlohmann::json config;
  // A state that grows with the steps (a Transformer's keys and values, pads masked): its
  // shape follows the batch's length, so only the features are compared here; what it hands on
  // is checked by IncrementalEncoding.PaddedSegmentHandsOnTheStateOfItsRealSteps.
  bool state_grows = false;
};

std::vector<PaddedCase> paddedCases() {
  std::vector<PaddedCase> out;
  for (int window : {1, 2})
    for (const char* pooling : {"fo", "f"})
      out.push_back({"qrnn_window" + std::to_string(window) + "_" + pooling, "qrnn",
                     {{"window", window}, {"pooling", pooling}, {"zoneout", 0.2}}});
  // rrnn_b is RRNN(B) over plus-times, rrnn_bmp the same pattern over max-plus.
  for (const char* name : {"rrnn_b", "rrnn_bmp", "rrnn_c", "rrnn_f"})
    for (bool gate : {false, true})
      out.push_back({std::string(name) + (gate ? "_gate" : ""), name, {{"output_gate", gate}}});
  for (int n = 1; n <= 4; ++n)
    out.push_back({"ngram" + std::to_string(n), "ngram", {{"n", n}, {"output_gate", n % 2 == 1}}});
  for (int depth = 0; depth <= 2; ++depth)
    out.push_back({"self_iru_depth" + std::to_string(depth), "self_iru", {{"depth", depth}}});
  out.push_back({"lstm", "lstm", {}});
  out.push_back({"lstm_bidirectional", "lstm", {{"bidirectional", true}}});
  out.push_back({"sru_bidirectional", "sru", {{"bidirectional", true}}});
  // The linear recurrences (kernels/linear_recurrence.h): pad steps are the identity.
  for (const char* name : {"min_gru", "min_lstm"})
    for (bool bidirectional : {false, true})
      for (bool log_space : {false, true})
        out.push_back({std::string(name) + (bidirectional ? "_bidirectional" : "") +
                           (log_space ? "_log_space" : ""),
                       name, {{"bidirectional", bidirectional}, {"log_space", log_space}}});
  for (bool bidirectional : {false, true})
    out.push_back({std::string("sru_linear") + (bidirectional ? "_bidirectional" : ""),
                   "sru_linear", {{"bidirectional", bidirectional}}});
  out.push_back({"rg_lru", "rg_lru", nlohmann::json::object()});
  out.push_back({"hgrn", "hgrn", nlohmann::json::object()});
  // Gated linear attention (kernels/gated_linear_attention.h): step by step, chunks of 2 and 3
  // steps (3 does not divide L), one chunk longer than L; two heads of width 2.
  for (int chunk : {0, 2, 3, 64})
    out.push_back({"gla_chunk" + std::to_string(chunk), "gla", {{"heads", 1}, {"chunk", chunk}}});
  out.push_back({"gla_two_heads", "gla",
                 {{"heads", 2}, {"expand_k", 4.0 / 3}, {"expand_v", 4.0 / 3}, {"chunk", 3}}});
  // The convolutions, too: a window that reaches past a sequence's end sees zeros either way.
  out.push_back({"cnn", "cnn", {{"maps", 3}}});
  for (bool causal : {false, true})
    out.push_back({std::string("gated_conv") + (causal ? "_causal" : ""), "gated_conv",
                   {{"causal", causal}, {"width", 3}}});
  for (auto& c : out) {
    if (c.encoder == "cnn") continue;  // Kim's CNN: one layer of maps per window width
    c.config["layers"] = 2;
    c.config["hidden"] = H;
    c.config["dropout"] = 0.2;  // evaluation mode: no effect, but the code path runs
  }
  // Sinusoidal positions need a width of at least 4.
  out.push_back({"transformer", "transformer", {{"layers", 2}, {"hidden", 4}, {"dropout", 0.2}}, true});
  return out;
}

std::shared_ptr<SequenceEncoder> buildInDouble(const PaddedCase& c) {
  torch::manual_seed(21);
  auto enc = makeEncoder(c.encoder, c.config, IN);
  enc->to(torch::kDouble);
  enc->eval();
  return enc;
}

// Every tensor of a state tree, depth first, in a fixed order.
void flatten(const SequenceState& s, std::vector<torch::Tensor>& out) {
  for (const auto& t : s.tensors) out.push_back(t);
  for (const auto& c : s.children) flatten(c, out);
}

std::vector<torch::Tensor> flatten(const SequenceState& s) {
  std::vector<torch::Tensor> out;
  flatten(s, out);
  return out;
}

double maxDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// One test over every case (SCOPED_TRACE names it): a ctest entry per case would cost a process
// start each in CI.
void expectEachSequenceGetsWhatItGetsAlone(const PaddedCase& c) {
  auto enc = buildInDouble(c);
  torch::NoGradGuard no_grad;
  torch::manual_seed(22);
  torch::Tensor x = torch::randn({L, B, IN}, torch::kDouble);
  torch::Tensor pad = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b) pad.index_put_({Slice(kLengths[b], L), b}, true);
  x = x.masked_fill(pad.unsqueeze(2), 50.0);  // garbage in the pads must not leak
  const SequenceOutput batch = enc->encode(x, pad, {});
  ASSERT_EQ(batch.features.sizes(), (std::vector<int64_t>{L, B, enc->outputSize()}));
  const std::vector<torch::Tensor> batch_state = flatten(batch.state);
  for (int64_t b = 0; b < B; ++b) {
    SCOPED_TRACE("sequence " + std::to_string(b) + " of length " + std::to_string(kLengths[b]));
    const torch::Tensor xb = x.index({Slice(0, kLengths[b]), Slice(b, b + 1)});
    const SequenceOutput alone = enc->encode(xb, {}, {});
    const torch::Tensor got = batch.features.index({Slice(0, kLengths[b]), Slice(b, b + 1)});
    EXPECT_LT(maxDifference(got, alone.features), 1e-12) << "features at the real steps";
    if (kLengths[b] < L) {
      EXPECT_EQ(batch.features.index({Slice(kLengths[b], L), b}).abs().max().item<double>(), 0.0)
          << "features at the pad steps";
    }
    if (c.state_grows) continue;
    const std::vector<torch::Tensor> alone_state = flatten(alone.state);
    ASSERT_EQ(batch_state.size(), alone_state.size());
    for (size_t i = 0; i < alone_state.size(); ++i)
      EXPECT_LT(maxDifference(batch_state[i].slice(0, b, b + 1), alone_state[i]), 1e-12)
          << "state tensor " << i;
  }
}

TEST(PaddedBatch, EachSequenceGetsWhatItGetsAloneInEveryEncoder) {
  for (const auto& c : paddedCases()) {
    SCOPED_TRACE(c.label + " " + c.config.dump());
    expectEachSequenceGetsWhatItGetsAlone(c);
  }
}

// The LSTM encoder's encode() with its state: two segments equal one run over their
// concatenation (features and [h, c]), with a padded first segment, and a row with no real
// step in the second segment keeps the state it had.
TEST(LstmEncoderState, SegmentsWithPaddingEqualOneRunOverTheConcatenation) {
  torch::manual_seed(23);
  auto enc = makeEncoder("lstm", {{"layers", 2}, {"hidden", H}}, IN);
  enc->to(torch::kDouble);
  enc->eval();
  EXPECT_TRUE(enc->causal());
  torch::NoGradGuard no_grad;
  const int64_t L1 = 4, L2 = 3;
  const std::vector<int64_t> first{4, 2, 3}, second{3, 3, 0};  // row 2 ends in segment 1
  const torch::Tensor x1 = torch::randn({L1, 3, IN}, torch::kDouble);
  const torch::Tensor x2 = torch::randn({L2, 3, IN}, torch::kDouble);
  torch::Tensor pad1 = torch::zeros({L1, 3}, torch::kBool), pad2 = torch::zeros({L2, 3}, torch::kBool);
  for (int64_t b = 0; b < 3; ++b) {
    pad1.index_put_({Slice(first[b], L1), b}, true);
    pad2.index_put_({Slice(second[b], L2), b}, true);
  }
  const SequenceOutput one = enc->encode(x1, pad1, {});
  const SequenceOutput two = enc->encode(x2, pad2, one.state);
  ASSERT_EQ(two.state.tensors.size(), 2u);  // [h, c], each (B, layers, hidden)
  EXPECT_EQ(two.state.tensors[0].sizes(), (std::vector<int64_t>{3, 2, H}));
  for (int64_t b = 0; b < 3; ++b) {
    SCOPED_TRACE("row " + std::to_string(b));
    const torch::Tensor row = torch::cat({x1.index({Slice(0, first[b]), Slice(b, b + 1)}),
                                          x2.index({Slice(0, second[b]), Slice(b, b + 1)})});
    const SequenceOutput whole = enc->encode(row, {}, {});
    EXPECT_LT(maxDifference(one.features.index({Slice(0, first[b]), Slice(b, b + 1)}),
                            whole.features.slice(0, 0, first[b])),
              1e-12);
    if (second[b] > 0) {
      EXPECT_LT(maxDifference(two.features.index({Slice(0, second[b]), Slice(b, b + 1)}),
                              whole.features.slice(0, first[b], first[b] + second[b])),
                1e-12);
    }
    EXPECT_EQ(two.features.index({Slice(second[b], L2), b}).abs().sum().item<double>(), 0.0);
    for (size_t i = 0; i < 2; ++i)
      EXPECT_LT(maxDifference(two.state.tensors[i].slice(0, b, b + 1), whole.state.tensors[i]),
                1e-12)
          << (i == 0 ? "h" : "c");
  }
  // A state of the wrong shape is refused, naming what was expected.
  SequenceState wrong{{torch::zeros({3, 1, H}, torch::kDouble), torch::zeros({3, 1, H}, torch::kDouble)}, {}};
  try {
    enc->encode(x2, {}, wrong);
    FAIL() << "a state with 1 layer was accepted by a 2-layer LSTM";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("(batch, layers, hidden)"), std::string::npos) << e.what();
  }
}

// Every registered encoder has a case above, so a new one cannot join the registry untested.
TEST(PaddedBatch, EveryRegisteredEncoderHasACase) {
  const auto cases = paddedCases();
  for (const auto& name : encoderNames()) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(),
                            [&](const PaddedCase& c) { return c.encoder == name; }))
        << "encoder '" << name << "' has no padded-batch case";
  }
}

}  // namespace
}  // namespace recurlab::models

namespace recurlab::models {
namespace {

// The bidirectional LSTM on a padded CPU batch (its own reversal of each sequence's real steps
// instead of ATen's packed steps, models/encoders/lstm_encoder.cpp): two layers in training
// mode, gradients of the input and of every weight equal those of each sequence encoded alone.
TEST(LstmEncoderPadded, BidirectionalGradientsEqualEachSequenceAlone) {
  torch::manual_seed(24);
  auto enc = makeEncoder("lstm", {{"layers", 2}, {"hidden", H}, {"bidirectional", true}}, IN);
  enc->to(torch::kDouble);
  enc->train();  // dropout 0: training mode changes nothing but the path taken
  torch::Tensor x = torch::randn({L, B, IN}, torch::kDouble);
  torch::Tensor pad = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b) pad.index_put_({Slice(kLengths[b], L), b}, true);
  x = x.masked_fill(pad.unsqueeze(2), 50.0).requires_grad_(true);
  const torch::Tensor w = torch::randn({L, B, enc->outputSize()}, torch::kDouble);
  (enc->encode(x, pad, {}).features * w).sum().backward();
  std::vector<torch::Tensor> batch_grads;
  for (const auto& p : enc->parameters()) {
    batch_grads.push_back(p.grad().clone());
    p.mutable_grad().zero_();
  }
  torch::Tensor alone_dx = torch::zeros_like(x);
  for (int64_t b = 0; b < B; ++b) {
    torch::Tensor xb = x.detach().index({Slice(0, kLengths[b]), Slice(b, b + 1)}).clone();
    xb.requires_grad_(true);
    const torch::Tensor wb = w.index({Slice(0, kLengths[b]), Slice(b, b + 1)});
    (enc->encode(xb, {}, {}).features * wb).sum().backward();
    alone_dx.index_put_({Slice(0, kLengths[b]), Slice(b, b + 1)}, xb.grad());
  }
  EXPECT_LT(maxDifference(x.grad(), alone_dx), 1e-12) << "gradient of the input";
  const auto params = enc->named_parameters();
  ASSERT_EQ(params.size(), batch_grads.size());
  for (size_t i = 0; i < params.size(); ++i)
    EXPECT_LT(maxDifference(batch_grads[i], params[i].value().grad()), 1e-12)
        << "gradient of " << params[i].key();
}

}  // namespace
}  // namespace recurlab::models
