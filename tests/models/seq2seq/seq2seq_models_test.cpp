// Every translation model of the registry: incremental decoding equals the whole prefix at
// once, a padded batch equals its sentences one by one, configs are checked.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/seq2seq/seq2seq_model.h"
#include "models/seq2seq/sinusoidal_positions.h"

namespace recurlab::models {
namespace {

constexpr int64_t kVocabulary = 13;
const Seq2SeqSpecialIds kIds{0, 1, 2, 3};

nlohmann::json tinyConfig(const std::string& name) {
  if (name == "convs2s")
    return {{"embed_dim", 12}, {"channels", 16}, {"out_embed_dim", 10}, {"encoder_layers", 2},
            {"decoder_layers", 2}, {"kernel_width", 3}, {"dropout", 0.0}, {"max_positions", 64}};
  if (name == "rnn_seq2seq")
    return {{"embed_dim", 12}, {"dropout", 0.0}, {"encoder", "sru"},
            {"encoder_config", {{"layers", 2}, {"hidden", 8}, {"bidirectional", true}}},
            {"decoder", "sru"}, {"decoder_config", {{"layers", 2}, {"hidden", 10}}}};
  nlohmann::json c = {{"d_model", 16}, {"heads", 2}, {"dropout", 0.0}};
  if (name.rfind("transformer", 0) == 0) {
    c["encoder_layers"] = 2;
    c["decoder_layers"] = 2;
    if (name != "transformer_self_iru") c["ffn_hidden"] = 24;
    if (name == "transformer_sru" || name == "transformer_recurrent")
      c["encoder_bidirectional"] = true;
  }
  return c;
}

std::shared_ptr<Seq2SeqModel> tinyModel(const std::string& name, bool pre_norm = false) {
  torch::manual_seed(17);
  nlohmann::json config = tinyConfig(name);
  if (pre_norm && config.contains("d_model")) config["pre_norm"] = true;
  auto model = makeSeq2SeqModel(name, config, kVocabulary, kIds);
  model->eval();
  return model;
}

// Random real tokens (4..V-1) of the given lengths, right-padded: (L, B) and its pad mask.
std::pair<torch::Tensor, torch::Tensor> batch(const std::vector<int64_t>& lengths,
                                              int64_t first = -1) {
  const int64_t L = *std::max_element(lengths.begin(), lengths.end());
  const auto B = static_cast<int64_t>(lengths.size());
  torch::Tensor tokens = torch::randint(4, kVocabulary, {L, B}, torch::kLong);
  torch::Tensor pad = torch::zeros({L, B}, torch::kBool);
  for (int64_t b = 0; b < B; ++b) {
    if (first >= 0) tokens[0][b] = first;
    for (int64_t t = lengths[static_cast<size_t>(b)]; t < L; ++t) {
      tokens[t][b] = kIds.pad;
      pad[t][b] = true;
    }
  }
  return {tokens, pad};
}

double maxDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryModel, IncrementalDecodingEqualsTheWholePrefix) {
  for (bool pre_norm : {false, true}) {
    auto model = tinyModel(GetParam(), pre_norm);
    torch::NoGradGuard no_grad;
    auto [source, source_pad] = batch({5, 3, 4});
    auto [target, target_pad] = batch({6, 6, 6}, kIds.bos);
    const EncoderMemory memory = model->encode(source, source_pad);
    const DecoderOutput whole = model->decode(target, {}, memory, {}, true);
    ASSERT_EQ(whole.logits.sizes(), (std::vector<int64_t>{6, 3, kVocabulary}));
    SequenceState state;
    for (int64_t t = 0; t < 6; ++t) {
      // Two steps at once at t = 2: segments of any length carry the state.
      const int64_t n = t == 2 ? 2 : 1;
      DecoderOutput step = model->decode(target.narrow(0, t, n), {}, memory, state, true);
      EXPECT_LE(maxDifference(step.logits, whole.logits.narrow(0, t, n)), 1e-5)
          << GetParam() << " pre_norm " << pre_norm << " step " << t;
      ASSERT_EQ(static_cast<int64_t>(step.attention.size()), model->attentionCount());
      for (size_t a = 0; a < step.attention.size(); ++a)
        EXPECT_LE(maxDifference(step.attention[a], whole.attention[a].narrow(1, t, n)), 1e-5);
      state = step.state;
      t += n - 1;
    }
  }
}

TEST_P(EveryModel, APaddedBatchEqualsItsSentencesOneByOne) {
  auto model = tinyModel(GetParam());
  torch::NoGradGuard no_grad;
  const std::vector<int64_t> source_lengths{5, 2, 4}, target_lengths{3, 6, 1};
  auto [source, source_pad] = batch(source_lengths);
  auto [target, target_pad] = batch(target_lengths, kIds.bos);
  const torch::Tensor logits =
      model->decode(target, target_pad, model->encode(source, source_pad), {}).logits;
  for (int64_t b = 0; b < 3; ++b) {
    const int64_t S = source_lengths[static_cast<size_t>(b)];
    const int64_t T = target_lengths[static_cast<size_t>(b)];
    const torch::Tensor s = source.narrow(1, b, 1).narrow(0, 0, S);
    const torch::Tensor t = target.narrow(1, b, 1).narrow(0, 0, T);
    const torch::Tensor alone =
        model->decode(t, {}, model->encode(s, torch::zeros({S, 1}, torch::kBool)), {}).logits;
    EXPECT_LE(maxDifference(alone, logits.narrow(1, b, 1).narrow(0, 0, T)), 1e-5)
        << GetParam() << " sentence " << b;
  }
}

TEST_P(EveryModel, BeamSearchStateFollowsReorderedRows) {
  // decode(rows reordered) == rows of decode: what beam search relies on.
  auto model = tinyModel(GetParam());
  torch::NoGradGuard no_grad;
  auto [source, source_pad] = batch({4, 2, 3});
  auto [target, target_pad] = batch({3, 3, 3}, kIds.bos);
  const EncoderMemory memory = model->encode(source, source_pad);
  const DecoderOutput first = model->decode(target.narrow(0, 0, 2), {}, memory, {});
  const DecoderOutput next = model->decode(target.narrow(0, 2, 1), {}, memory, first.state);
  const torch::Tensor order = torch::tensor({2, 0, 0}, torch::kLong);
  const DecoderOutput moved = model->decode(target.narrow(0, 2, 1).index_select(1, order), {},
                                            memory.indexSelect(order),
                                            first.state.indexSelect(order));
  EXPECT_LE(maxDifference(moved.logits, next.logits.index_select(1, order)), 1e-5);
}

TEST_P(EveryModel, TrainsAStepWithGradientsOnEveryParameter) {
  torch::manual_seed(5);
  auto model = makeSeq2SeqModel(GetParam(), tinyConfig(GetParam()), kVocabulary, kIds);
  model->train();
  auto [source, source_pad] = batch({4, 3});
  auto [target, target_pad] = batch({5, 2}, kIds.bos);
  const torch::Tensor logits =
      model->decode(target, target_pad, model->encode(source, source_pad), {}).logits;
  logits.sum().backward();
  for (const auto& p : model->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << GetParam() << " " << p.key();
    EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
  }
}

TEST_P(EveryModel, UnknownKeysAreRejectedByName) {
  nlohmann::json config = tinyConfig(GetParam());
  config["hiden"] = 3;
  try {
    makeSeq2SeqModel(GetParam(), config, kVocabulary, kIds);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'hiden'"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Seq2SeqModels, EveryModel, ::testing::ValuesIn(seq2seqModelNames()));

TEST(Seq2SeqRegistry, RnnSeq2SeqTakesAnyCausalRegistryDecoder) {
  for (const char* stack : {"lstm", "qrnn"}) {
    nlohmann::json config = tinyConfig("rnn_seq2seq");
    config["decoder"] = stack;
    config["decoder_config"] = {{"layers", 1}, {"hidden", 8}};
    torch::manual_seed(2);
    auto model = makeSeq2SeqModel("rnn_seq2seq", config, kVocabulary, kIds);
    model->eval();
    torch::NoGradGuard no_grad;
    auto [source, source_pad] = batch({3, 2});
    auto [target, target_pad] = batch({4, 4}, kIds.bos);
    const EncoderMemory memory = model->encode(source, source_pad);
    const torch::Tensor whole = model->decode(target, {}, memory, {}).logits;
    const DecoderOutput first = model->decode(target.narrow(0, 0, 3), {}, memory, {});
    const DecoderOutput last = model->decode(target.narrow(0, 3, 1), {}, memory, first.state);
    EXPECT_LE(maxDifference(last.logits[0], whole[3]), 1e-5) << stack;
  }
  nlohmann::json config = tinyConfig("rnn_seq2seq");
  config["decoder_config"]["bidirectional"] = true;
  try {
    makeSeq2SeqModel("rnn_seq2seq", config, kVocabulary, kIds);
    FAIL() << "a bidirectional decoder was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'decoder'"), std::string::npos) << e.what();
  }
}

// The +X of transformer_recurrent for each of the linear recurrences: decoding step by step with
// R's state carried equals the whole prefix; R's width and direction come from the model's keys.
TEST(Seq2SeqRegistry, TransformerRecurrentTakesEveryLinearRecurrence) {
  for (const char* recurrence : {"min_gru", "min_lstm", "sru_linear", "rg_lru", "hgrn", "gla"}) {
    nlohmann::json config = tinyConfig("transformer_recurrent");
    config["encoder_bidirectional"] = false;
    config["recurrence"] = recurrence;
    if (std::string(recurrence) == "gla") config["recurrence_config"] = {{"heads", 2}, {"chunk", 2}};
    torch::manual_seed(4);
    auto model = makeSeq2SeqModel("transformer_recurrent", config, kVocabulary, kIds);
    model->eval();
    torch::NoGradGuard no_grad;
    auto [source, source_pad] = batch({3, 5});
    auto [target, target_pad] = batch({5, 5}, kIds.bos);
    const EncoderMemory memory = model->encode(source, source_pad);
    const torch::Tensor whole = model->decode(target, {}, memory, {}).logits;
    const DecoderOutput first = model->decode(target.narrow(0, 0, 3), {}, memory, {});
    const DecoderOutput rest = model->decode(target.narrow(0, 3, 2), {}, memory, first.state);
    EXPECT_LE(maxDifference(rest.logits, whole.narrow(0, 3, 2)), 1e-5) << recurrence;
    EXPECT_GT(maxDifference(rest.logits, model->decode(target.narrow(0, 3, 2), {}, memory, {})
                                             .logits),
              1e-4)
        << recurrence << ": the state must matter";
  }
  nlohmann::json config = tinyConfig("transformer_recurrent");
  config["recurrence_config"] = {{"hidden", 7}};
  try {
    makeSeq2SeqModel("transformer_recurrent", config, kVocabulary, kIds);
    FAIL() << "recurrence_config.hidden was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ffn_hidden"), std::string::npos) << e.what();
  }
  config = tinyConfig("transformer_recurrent");
  config["recurrence"] = "gated_conv";  // centred windows by default
  config["encoder_bidirectional"] = false;
  try {
    makeSeq2SeqModel("transformer_recurrent", config, kVocabulary, kIds);
    FAIL() << "a decoder block that looks ahead was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("causal"), std::string::npos) << e.what();
  }
}

TEST(Seq2SeqRegistry, UnknownNamesAndBadValuesAreRejected) {
  EXPECT_THROW(makeSeq2SeqModel("transformr", {}, kVocabulary, kIds), std::invalid_argument);
  try {
    makeSeq2SeqModel("transformer", {{"d_model", 16}, {"heads", 3}}, kVocabulary, kIds);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'heads'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(makeSeq2SeqModel("transformer", {{"dropout", 1.5}}, kVocabulary, kIds),
               std::invalid_argument);
}

// fairseq's layout: half = d/2, w_i = exp(-i·ln(10000)/(half-1)), row p = [sin(p·w) | cos(p·w)].
TEST(SinusoidalPositions, FairseqLayoutWorkedCase) {
  const torch::Tensor row = sinusoidalPositions(torch::tensor({2}, torch::kLong), 4)[0];
  const double w1 = std::exp(-std::log(10000.0));  // i = 1, half - 1 = 1
  const double expected[4] = {std::sin(2.0), std::sin(2.0 * w1), std::cos(2.0),
                              std::cos(2.0 * w1)};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(row[i].item<double>(), expected[i], 1e-6) << i;
  const torch::Tensor odd = sinusoidalPositions(torch::tensor({3}, torch::kLong), 5)[0];
  EXPECT_EQ(odd[4].item<double>(), 0.0);
  EXPECT_NEAR(odd[0].item<double>(), std::sin(3.0), 1e-6);
}

TEST(TransformerEmbedding, ThePadRowOfTheSharedEmbeddingIsZero) {
  auto model = tinyModel("transformer");
  bool found = false;
  for (const auto& p : model->named_parameters())
    if (p.key() == "embedding.weight") {
      found = true;
      EXPECT_EQ(p.value()[kIds.pad].abs().max().item<double>(), 0.0);
      EXPECT_GT(p.value()[kIds.eos].abs().max().item<double>(), 0.0);
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace recurlab::models
