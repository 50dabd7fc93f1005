#include "models/seq2seq/beam_search.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <map>

#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::models {
namespace {

const Seq2SeqSpecialIds kIds{0, 1, 2, 3};
constexpr int64_t A = 4, Bt = 5, kVocabulary = 6;

// A Seq2SeqModel whose next-token distribution is a fixed table of the prefix generated so far
// (the same for every source); prefixes not in the table end: P(eos) = 1. The state holds the
// prefix (B, P) including bos.
class TableModel : public Seq2SeqModel {
 public:
  std::map<std::vector<int64_t>, std::map<int64_t, double>> table;
  int64_t decode_calls = 0;

  EncoderMemory encode(const at::Tensor& source, const at::Tensor& source_pad) override {
    return EncoderMemory{torch::zeros({source.size(0), source.size(1), 1}), source_pad, {}};
  }
  DecoderOutput decode(const at::Tensor& target_in, const at::Tensor&, const EncoderMemory&,
                       const SequenceState& state, bool) override {
    ++decode_calls;
    const int64_t T = target_in.size(0), B = target_in.size(1);
    torch::Tensor prefix = state.empty() ? torch::empty({B, 0}, torch::kLong) : state.tensors[0];
    torch::Tensor logits = torch::full({T, B, kVocabulary}, -std::numeric_limits<float>::infinity());
    for (int64_t t = 0; t < T; ++t) {
      prefix = torch::cat({prefix, target_in[t].unsqueeze(1)}, 1);
      for (int64_t b = 0; b < B; ++b) {
        std::vector<int64_t> key;
        for (int64_t j = 1; j < prefix.size(1); ++j) key.push_back(prefix[b][j].item<int64_t>());
        auto it = table.find(key);
        if (it == table.end()) {
          logits[t][b][kIds.eos] = 0.0;
        } else {
          for (const auto& [token, p] : it->second) logits[t][b][token] = std::log(p);
        }
      }
    }
    DecoderOutput out;
    out.logits = logits;
    out.state.tensors.push_back(prefix);
    return out;
  }
  int64_t vocabularySize() const override { return kVocabulary; }
  const Seq2SeqSpecialIds& specialIds() const override { return kIds; }
  int64_t attentionCount() const override { return 0; }
};

// Greedy: a (.6), a (.55), eos -> "a a", P = .33. Beam 2, alpha 0: "b" eos, P = .4·.9 = .36,
// beats it. GNMT alpha 1: log .36 / (7/6) = -0.876 < log .33 / (8/6) = -0.831, so the longer
// "a a" wins again (|Y| counts eos: 2 for "b", 3 for "a a").
std::shared_ptr<TableModel> toyModel() {
  auto m = std::make_shared<TableModel>();
  m->table[{}] = {{A, 0.6}, {Bt, 0.4}};
  m->table[{A}] = {{A, 0.55}, {kIds.eos, 0.45}};
  m->table[{Bt}] = {{kIds.eos, 0.9}, {A, 0.1}};
  return m;
}

std::pair<torch::Tensor, torch::Tensor> twoSources() {
  return {torch::full({3, 2}, A, torch::kLong), torch::zeros({3, 2}, torch::kBool)};
}

// A beam of two over the toy table (which has two tokens besides eos).
BeamSearchOptions beamOfTwo(double alpha, LengthPenalty kind = LengthPenalty::Gnmt) {
  BeamSearchOptions options;
  options.beam = 2;
  options.alpha = alpha;
  options.length_penalty = kind;
  return options;
}

TEST(BeamSearch, TheBestBeamOfAToyTableDiffersFromGreedy) {
  auto model = toyModel();
  auto [source, pad] = twoSources();
  const auto greedy = greedyDecode(*model, source, pad);
  ASSERT_EQ(greedy.size(), 2u);
  EXPECT_EQ(greedy[0].tokens, (std::vector<int64_t>{A, A}));
  EXPECT_NEAR(greedy[0].log_probability, std::log(0.6 * 0.55), 1e-6);
  const auto beam = beamSearch(*model, source, pad, beamOfTwo(0.0));
  for (const auto& h : beam) {
    EXPECT_EQ(h.tokens, (std::vector<int64_t>{Bt}));
    EXPECT_NEAR(h.log_probability, std::log(0.4 * 0.9), 1e-6);
    EXPECT_NEAR(h.score, h.log_probability, 1e-12);
  }
}

TEST(BeamSearch, TheGnmtLengthPenaltyCountingEosChangesTheWinner) {
  auto model = toyModel();
  auto [source, pad] = twoSources();
  auto options = beamOfTwo(1.0);
  const auto beam = beamSearch(*model, source, pad, options);
  EXPECT_EQ(beam[1].tokens, (std::vector<int64_t>{A, A}));
  EXPECT_NEAR(beam[1].score, std::log(0.33) / (8.0 / 6.0), 1e-6);
  // At alpha 0.6 (the default) "b" still wins, narrowly: -0.9314 against -0.9329.
  options.alpha = 0.6;
  EXPECT_EQ(beamSearch(*model, source, pad, options)[0].tokens, (std::vector<int64_t>{Bt}));
}

// fairseq's penalty |Y|^alpha pushes harder towards length: at alpha 0.6 "a a" wins,
// log .33 / 3^0.6 = -0.5735 against log .36 / 2^0.6 = -0.6741, where GNMT's picks "b".
TEST(BeamSearch, TheFairseqLengthPenaltyDividesByTheLengthToTheAlpha) {
  auto model = toyModel();
  auto [source, pad] = twoSources();
  const auto beam = beamSearch(*model, source, pad, beamOfTwo(0.6, LengthPenalty::Fairseq));
  for (const auto& h : beam) {
    EXPECT_EQ(h.tokens, (std::vector<int64_t>{A, A}));
    EXPECT_NEAR(h.score, std::log(0.33) / std::pow(3.0, 0.6), 1e-6);
  }
  EXPECT_DOUBLE_EQ(lengthPenaltyDivisor(LengthPenalty::Fairseq, 7, 1.0), 7.0);
  EXPECT_DOUBLE_EQ(lengthPenaltyDivisor(LengthPenalty::Gnmt, 7, 1.0), 2.0);
  EXPECT_EQ(parseLengthPenalty("fairseq"), LengthPenalty::Fairseq);
  EXPECT_EQ(lengthPenaltyName(parseLengthPenalty("gnmt")), "gnmt");
  EXPECT_THROW(parseLengthPenalty("average"), std::invalid_argument);
}

TEST(BeamSearch, MaximumLengthAIsTimesSourcePlusBTokensBeforeEos) {
  auto model = toyModel();
  auto [source, pad] = twoSources();
  auto options = beamOfTwo(1.0);
  options.max_length_a = 0.0;
  options.max_length_b = 1;  // one token, then eos is forced: "a a" is out of reach
  const auto beam = beamSearch(*model, source, pad, options);
  EXPECT_EQ(beam[0].tokens, (std::vector<int64_t>{Bt}));
  options.max_length_b = 0;  // eos at once (its probability is 0 in the table: -inf)
  const auto none = beamSearch(*model, source, pad, options);
  EXPECT_TRUE(none[0].tokens.empty());
  EXPECT_EQ(none[0].log_probability, -std::numeric_limits<double>::infinity());
  // a = 1/3 with 3 source tokens: one token allowed as well.
  options.max_length_a = 1.0 / 3.0 + 1e-9;
  EXPECT_EQ(beamSearch(*model, source, pad, options)[0].tokens, (std::vector<int64_t>{Bt}));
}

TEST(BeamSearch, BeamOneEqualsGreedyOnARandomTransformer) {
  torch::manual_seed(11);
  auto model = makeSeq2SeqModel(
      "transformer",
      {{"d_model", 16}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 2},
       {"ffn_hidden", 16}, {"dropout", 0.0}},
      9, kIds);
  model->eval();
  torch::Tensor source = torch::randint(4, 9, {5, 4}, torch::kLong);
  torch::Tensor pad = torch::zeros({5, 4}, torch::kBool);
  pad.narrow(0, 3, 2).select(1, 1).fill_(true);
  source.masked_fill_(pad, kIds.pad);
  BeamSearchOptions options;
  options.beam = 1;
  const auto beam = beamSearch(*model, source, pad, options);
  const auto greedy = greedyDecode(*model, source, pad, options.max_length_b, options.max_length_a);
  for (size_t b = 0; b < beam.size(); ++b) {
    EXPECT_EQ(beam[b].tokens, greedy[b].tokens) << b;
    EXPECT_NEAR(beam[b].log_probability, greedy[b].log_probability, 1e-5) << b;
    // An untrained model runs to the maximum length: floor(1.2·S) + 10 tokens at most.
    EXPECT_LE(static_cast<double>(beam[b].tokens.size()), std::floor(1.2 * (b == 1 ? 3 : 5)) + 10);
  }
}

TEST(BeamSearch, RejectsABadBeamAndMismatchedPads) {
  auto model = toyModel();
  auto [source, pad] = twoSources();
  BeamSearchOptions options;
  options.beam = 0;
  EXPECT_THROW(beamSearch(*model, source, pad, options), std::invalid_argument);
  options.beam = 2;
  EXPECT_THROW(beamSearch(*model, source, pad.narrow(0, 0, 2), options), std::invalid_argument);
}

}  // namespace
}  // namespace recurlab::models
