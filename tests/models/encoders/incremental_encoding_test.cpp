// Every causal encoder of the registry, in double precision: encoding a sequence one step at a
// time (or in two segments) with the state carried gives the features of the whole sequence at
// once; a right-padded segment hands on the state of its real steps; the features never depend
// on later inputs. What a language model over BPTT segments and a step-by-step decoder need.
// `ctest -R Incremental` runs these.
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

// Ten steps: a 2-layer 4-gram RCNN outputs zeros for its first 6 steps (each order needs one
// more step), and later steps must show what the early ones carried.
constexpr int64_t L = 10, B = 3, IN = 4, H = 5;

struct CausalCase {
  std::string label;  // test name suffix
  std::string encoder;
  nlohmann::json config;
};

std::vector<CausalCase> causalCases() {
  std::vector<CausalCase> out = {
      {"sru", "sru", {}},
      {"sru_rescaled_projected", "sru", {{"rescale", true}, {"projection", 3}}},
      {"sru_layer_norm_after", "sru", {{"layer_norm", true}, {"normalize_after", true}}},
      {"lstm", "lstm", {}},
      {"qrnn_window1_fo", "qrnn", {{"window", 1}}},
      {"qrnn_window2_fo", "qrnn", {{"window", 2}}},
      {"qrnn_window2_f_zoneout", "qrnn", {{"window", 2}, {"pooling", "f"}, {"zoneout", 0.3}}},
      {"rrnn_b", "rrnn_b", {}},
      {"rrnn_b_gate", "rrnn_b", {{"output_gate", true}}},
      {"rrnn_bmp", "rrnn_bmp", {}},
      {"rrnn_c", "rrnn_c", {}},
      {"rrnn_f_gate", "rrnn_f", {{"output_gate", true}}},
      {"self_iru_depth0", "self_iru", {{"depth", 0}}},
      {"self_iru_depth2", "self_iru", {{"depth", 2}}},
      {"gated_conv_causal_width2", "gated_conv", {{"causal", true}, {"width", 2}}},
      {"min_gru", "min_gru", {}},
      {"min_gru_log_space", "min_gru", {{"log_space", true}}},
      {"min_lstm", "min_lstm", {}},
      {"min_lstm_log_space", "min_lstm", {{"log_space", true}}},
      {"sru_linear", "sru_linear", {}},
      {"sru_linear_identity", "sru_linear", {{"activation", "identity"}}},
      {"rg_lru", "rg_lru", {}},
      {"hgrn", "hgrn", {}},
      {"gla_step_by_step", "gla", {{"heads", 1}, {"chunk", 0}}},
      {"gla_chunk3", "gla", {{"heads", 1}, {"chunk", 3}}},
      {"gla_one_chunk", "gla", {{"heads", 1}}},
      {"gla_two_heads", "gla", {{"heads", 2}, {"expand_k", 0.8}, {"expand_v", 0.8}, {"chunk", 4}}},
      {"gated_conv_causal_width3", "gated_conv", {{"causal", true}, {"width", 3}}},
      {"transformer", "transformer", {}},
  };
  for (int n = 1; n <= 4; ++n)
    out.push_back({"ngram" + std::to_string(n), "ngram", {{"n", n}, {"output_gate", n % 2 == 0}}});
  for (auto& c : out) {
    c.config["layers"] = 2;
    c.config["hidden"] = H;
    c.config["dropout"] = 0.2;  // evaluation mode: no effect, but the code path runs
  }
  return out;
}

std::shared_ptr<SequenceEncoder> buildInDouble(const CausalCase& c) {
  torch::manual_seed(11);
  auto enc = makeEncoder(c.encoder, c.config, IN);
  enc->to(torch::kDouble);
  enc->eval();
  return enc;
}

torch::Tensor randomInput(int64_t length, int64_t batch, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randn({length, batch, IN}, torch::kDouble);
}

void expectClose(const torch::Tensor& got, const torch::Tensor& want, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double diff = (got - want).abs().max().item<double>();
  EXPECT_LT(diff, 1e-12) << what << ": max |difference| " << diff;
}

class IncrementalEncoding : public ::testing::TestWithParam<CausalCase> {};

TEST_P(IncrementalEncoding, DeclaresItselfCausal) {
  EXPECT_TRUE(buildInDouble(GetParam())->causal());
}

TEST_P(IncrementalEncoding, StepByStepEqualsWholeSequence) {
  auto enc = buildInDouble(GetParam());
  torch::NoGradGuard no_grad;
  const torch::Tensor x = randomInput(L, B, 1);
  const SequenceOutput whole = enc->encode(x, {}, {});
  SequenceState state;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < L; ++t) {
    SequenceOutput step = enc->encode(x.slice(0, t, t + 1), {}, state);
    steps.push_back(step.features);
    state = step.state;
  }
  expectClose(torch::cat(steps), whole.features, "features");
  ASSERT_EQ(state.children.size(), whole.state.children.size());
  // The state after the last step equals the whole sequence's: every tensor of it.
  std::vector<const SequenceState*> a{&state}, b{&whole.state};
  while (!a.empty()) {
    const SequenceState* sa = a.back();
    const SequenceState* sb = b.back();
    a.pop_back();
    b.pop_back();
    ASSERT_EQ(sa->tensors.size(), sb->tensors.size());
    ASSERT_EQ(sa->children.size(), sb->children.size());
    for (size_t i = 0; i < sa->tensors.size(); ++i)
      expectClose(sa->tensors[i], sb->tensors[i], "state");
    for (size_t i = 0; i < sa->children.size(); ++i) {
      a.push_back(&sa->children[i]);
      b.push_back(&sb->children[i]);
    }
  }
}

// Two BPTT segments: the same features as one sequence; the gradient of the second segment
// reaches the first segment's input through the carried state, and stops at a detached one.
TEST_P(IncrementalEncoding, TwoSegmentsEqualOneSequenceAndCarryTheGradient) {
  auto enc = buildInDouble(GetParam());
  const torch::Tensor x = randomInput(L, B, 2);
  const torch::Tensor whole = enc->encode(x, {}, {}).features.detach();
  const torch::Tensor first = x.slice(0, 0, 2).clone().requires_grad_(true);
  const SequenceOutput one = enc->encode(first, {}, {});
  const SequenceOutput two = enc->encode(x.slice(0, 2, L), {}, one.state);
  expectClose(torch::cat({one.features, two.features}).detach(), whole, "features");
  two.features.sum().backward();
  ASSERT_TRUE(first.grad().defined());
  EXPECT_GT(first.grad().abs().sum().item<double>(), 0.0);

  first.mutable_grad().zero_();
  const SequenceOutput cut = enc->encode(x.slice(0, 2, L), {}, one.state.detached());
  expectClose(cut.features.detach(), two.features.detach(), "features after detach");
  cut.features.sum().backward();
  EXPECT_EQ(first.grad().abs().sum().item<double>(), 0.0);
}

// Segment 1 is right-padded (row 0 has 2 real steps of 4); segment 2 has no pads. Each row's
// segment-2 features equal those of its real steps encoded in one go.
TEST_P(IncrementalEncoding, PaddedSegmentHandsOnTheStateOfItsRealSteps) {
  auto enc = buildInDouble(GetParam());
  torch::NoGradGuard no_grad;
  const int64_t first_length = 4, second_length = 3;
  const std::vector<int64_t> lengths{2, 4, 3};
  const torch::Tensor x1 = randomInput(first_length, B, 3);
  const torch::Tensor x2 = randomInput(second_length, B, 4);
  torch::Tensor pad = torch::zeros({first_length, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b) pad.slice(0, lengths[b], first_length).select(1, b).fill_(true);
  const SequenceOutput one = enc->encode(x1, pad, {});
  EXPECT_EQ(one.features.index({Slice(2, first_length), 0}).abs().max().item<double>(), 0.0);
  const SequenceOutput two = enc->encode(x2, {}, one.state);
  for (int64_t b = 0; b < B; ++b) {
    const torch::Tensor row = torch::cat({x1.index({Slice(0, lengths[b]), Slice(b, b + 1)}),
                                          x2.index({Slice(), Slice(b, b + 1)})});
    const torch::Tensor alone = enc->encode(row, {}, {}).features;
    expectClose(two.features.index({Slice(), Slice(b, b + 1)}),
                alone.slice(0, lengths[b], lengths[b] + second_length),
                "row " + std::to_string(b));
  }
}

// A decoder's beam search reorders hypotheses between steps: a state reordered along the
// batch continues each row as the reordered rows would.
TEST_P(IncrementalEncoding, ReorderedStateFollowsItsRows) {
  auto enc = buildInDouble(GetParam());
  torch::NoGradGuard no_grad;
  const torch::Tensor x1 = randomInput(3, B, 6), x2 = randomInput(2, B, 7);
  const torch::Tensor order = torch::tensor({2, 0, 1}, torch::kLong);
  const SequenceState state = enc->encode(x1, {}, {}).state;
  const torch::Tensor got = enc->encode(x2, {}, state.indexSelect(order)).features;
  const SequenceState want_state = enc->encode(x1.index_select(1, order), {}, {}).state;
  expectClose(got, enc->encode(x2, {}, want_state).features, "features");
}

TEST_P(IncrementalEncoding, NeverLooksAhead) {
  auto enc = buildInDouble(GetParam());
  torch::NoGradGuard no_grad;
  const torch::Tensor x = randomInput(L, B, 5);
  torch::Tensor changed = x.clone();
  changed.slice(0, 3, L).add_(1.0);
  const torch::Tensor a = enc->encode(x, {}, {}).features;
  const torch::Tensor b = enc->encode(changed, {}, {}).features;
  EXPECT_TRUE(torch::equal(a.slice(0, 0, 3), b.slice(0, 0, 3)));
  EXPECT_FALSE(torch::equal(a.slice(0, 3, L), b.slice(0, 3, L)));
}

INSTANTIATE_TEST_SUITE_P(CausalEncoders, IncrementalEncoding, ::testing::ValuesIn(causalCases()),
                         [](const ::testing::TestParamInfo<CausalCase>& info) {
                           return info.param.label;
                         });

// The encoders that look ahead say so (and really do), and refuse a state where they cannot
// take one.
TEST(IncrementalEncodingCoverage, NonCausalEncodersLookAhead) {
  const std::vector<std::pair<std::string, nlohmann::json>> ahead = {
      {"sru", {{"bidirectional", true}}},
      {"lstm", {{"bidirectional", true}}},
      {"cnn", {{"maps", 4}}},
      {"gated_conv", {{"causal", false}}},
      {"min_gru", {{"bidirectional", true}}},
      {"min_lstm", {{"bidirectional", true}}},
      {"sru_linear", {{"bidirectional", true}}},
  };
  for (const auto& [name, config] : ahead) {
    SCOPED_TRACE(name + " " + config.dump());
    torch::manual_seed(12);
    auto enc = makeEncoder(name, config, IN);
    enc->eval();
    EXPECT_FALSE(enc->causal());
    torch::NoGradGuard no_grad;
    const torch::Tensor x = torch::randn({L, B, IN});
    torch::Tensor changed = x.clone();
    changed[1].add_(1.0);  // the next step: inside every window, centred or not
    EXPECT_FALSE(torch::equal(enc->encode(x, {}).select(0, 0),
                              enc->encode(changed, {}).select(0, 0)));
  }
  SequenceState some;
  some.tensors.push_back(torch::zeros({B, 1}));
  EXPECT_THROW(
      makeEncoder("cnn", nlohmann::json::object(), IN)->encode(torch::randn({L, B, IN}), {}, some),
      c10::Error);
  EXPECT_THROW(makeEncoder("gated_conv", nlohmann::json::object(), IN)
                   ->encode(torch::randn({L, B, IN}), {}, SequenceState{{}, {some, some}}),
               c10::Error);
}

// Every registered encoder that is causal with its default config has a case above, so a new
// causal layer cannot join the registry untested.
TEST(IncrementalEncodingCoverage, EveryCausalRegisteredEncoderHasACase) {
  const auto cases = causalCases();
  for (const auto& name : encoderNames()) {
    SCOPED_TRACE(name);
    nlohmann::json config = name == "gated_conv" ? nlohmann::json{{"causal", true}}
                                                 : nlohmann::json::object();
    if (!makeEncoder(name, config, IN)->causal()) continue;
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(),
                            [&](const CausalCase& c) { return c.encoder == name; }))
        << "causal encoder '" << name << "' has no incremental-encoding case";
  }
}

}  // namespace
}  // namespace recurlab::models
