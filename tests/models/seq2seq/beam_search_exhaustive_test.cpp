// Beam search against exhaustive search on a tiny model whose next-token distribution depends
// on the source and the prefix: every hypothesis up to the maximum length is enumerated and
// scored with the GNMT length penalty; a beam at least as wide as the number of hypotheses
// must return the argmax for each of several different sources decoded in one batch, and any
// beam's result must carry its own exact log-probability and score, and beams 2-5 must find
// what a reference beam search (written out below over plain vectors) finds.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "models/seq2seq/beam_search.h"
#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::models {
namespace {

const Seq2SeqSpecialIds kIds{0, 1, 2, 3};
constexpr int64_t A = 4, Bt = 5, kVocabulary = 6;

// Logits of the next token after `prefix` given `source` (both without bos): a seeded random
// function of both over {A, B, eos}; pad, unk and bos get -inf (probability 0).
std::vector<double> nextLogits(const std::vector<int64_t>& source,
                               const std::vector<int64_t>& prefix) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a over source, a separator, prefix
  auto mix = [&](int64_t v) {
    h ^= static_cast<uint64_t>(v + 7);
    h *= 1099511628211ULL;
  };
  for (auto t : source) mix(t);
  mix(-3);
  for (auto t : prefix) mix(t);
  std::mt19937_64 rng(h);
  std::normal_distribution<double> normal(0.0, 1.5);
  std::vector<double> logits(kVocabulary, -std::numeric_limits<double>::infinity());
  for (int64_t t : {kIds.eos, A, Bt}) logits[static_cast<size_t>(t)] = normal(rng);
  return logits;
}

std::vector<double> logSoftmax(const std::vector<double>& logits) {
  double m = -std::numeric_limits<double>::infinity();
  for (double x : logits) m = std::max(m, x);
  double sum = 0;
  for (double x : logits) sum += std::exp(x - m);
  std::vector<double> out;
  for (double x : logits) out.push_back(x - m - std::log(sum));
  return out;
}

// Reads each row's source from the encoder memory (which beam search replicates and
// reorders with the hypotheses) and its prefix from the state.
class SourceAwareModel : public Seq2SeqModel {
 public:
  EncoderMemory encode(const at::Tensor& source, const at::Tensor& source_pad) override {
    return EncoderMemory{source.to(torch::kDouble).unsqueeze(2), source_pad, {}};
  }
  DecoderOutput decode(const at::Tensor& target_in, const at::Tensor&, const EncoderMemory& memory,
                       const SequenceState& state, bool) override {
    const int64_t T = target_in.size(0), B = target_in.size(1);
    torch::Tensor prefix = state.empty() ? torch::empty({B, 0}, torch::kLong) : state.tensors[0];
    torch::Tensor logits = torch::empty({T, B, kVocabulary}, torch::kDouble);
    for (int64_t t = 0; t < T; ++t) {
      prefix = torch::cat({prefix, target_in[t].unsqueeze(1)}, 1);
      for (int64_t b = 0; b < B; ++b) {
        std::vector<int64_t> src, pre;
        for (int64_t s = 0; s < memory.states.size(0); ++s)
          if (!memory.mask_pad[s][b].item<bool>())
            src.push_back(static_cast<int64_t>(memory.states[s][b][0].item<double>()));
        for (int64_t j = 1; j < prefix.size(1); ++j) pre.push_back(prefix[b][j].item<int64_t>());
        const auto l = nextLogits(src, pre);
        for (int64_t v = 0; v < kVocabulary; ++v) logits[t][b][v] = l[static_cast<size_t>(v)];
      }
    }
    DecoderOutput out;
    out.logits = logits.to(torch::kFloat);
    out.state.tensors.push_back(prefix);
    return out;
  }
  int64_t vocabularySize() const override { return kVocabulary; }
  const Seq2SeqSpecialIds& specialIds() const override { return kIds; }
  int64_t attentionCount() const override { return 0; }
};

// log P(tokens, eos | source) with the model's float logits, as beam search sees them.
double logProbability(const std::vector<int64_t>& source, const std::vector<int64_t>& tokens) {
  double total = 0;
  std::vector<int64_t> prefix;
  auto step = [&](int64_t next) {
    std::vector<double> logits = nextLogits(source, prefix);
    for (auto& x : logits) x = static_cast<double>(static_cast<float>(x));
    total += logSoftmax(logits)[static_cast<size_t>(next)];
  };
  for (auto t : tokens) {
    step(t);
    prefix.push_back(t);
  }
  step(kIds.eos);
  return total;
}

// GNMT: log P / ((5 + |Y|) / 6)^alpha; fairseq: log P / |Y|^alpha; |Y| = tokens + eos.
double score(double log_probability, size_t tokens, double alpha, bool fairseq = false) {
  const double y = static_cast<double>(tokens + 1);
  return log_probability / std::pow(fairseq ? y : (5.0 + y) / 6.0, alpha);
}

struct Exhaustive {
  std::vector<int64_t> best;
  double best_score = -std::numeric_limits<double>::infinity();
  int64_t hypotheses = 0;
};

// Every sequence over {A, B} of at most `max_length` tokens, then eos.
Exhaustive exhaustiveSearch(const std::vector<int64_t>& source, int64_t max_length, double alpha,
                            bool fairseq = false) {
  Exhaustive e;
  std::vector<std::vector<int64_t>> level = {{}};
  for (int64_t length = 0; length <= max_length; ++length) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& y : level) {
      ++e.hypotheses;
      const double s = score(logProbability(source, y), y.size(), alpha, fairseq);
      if (s > e.best_score) {
        e.best_score = s;
        e.best = y;
      }
      for (int64_t t : {A, Bt}) {
        next.push_back(y);
        next.back().push_back(t);
      }
    }
    level = std::move(next);
  }
  return e;
}

// Four different sources of lengths 1-4 (padded to 4), so up to 31 hypotheses each with a
// maximum length of `source length` tokens.
const std::vector<std::vector<int64_t>> kSources = {{A}, {Bt, A}, {A, A, Bt}, {Bt, Bt, A, Bt}};

std::pair<torch::Tensor, torch::Tensor> batch() {
  torch::Tensor source = torch::full({4, 4}, kIds.pad, torch::kLong);
  torch::Tensor pad = torch::ones({4, 4}, torch::kBool);
  for (size_t b = 0; b < kSources.size(); ++b)
    for (size_t s = 0; s < kSources[b].size(); ++s) {
      source[static_cast<int64_t>(s)][static_cast<int64_t>(b)] = kSources[b][s];
      pad[static_cast<int64_t>(s)][static_cast<int64_t>(b)] = false;
    }
  return {source, pad};
}

TEST(BeamSearchExhaustive, AWideBeamReturnsTheArgmaxOfEverySource) {
  SourceAwareModel model;
  auto [source, pad] = batch();
  bool differ = false;
  for (const auto& [alpha, fairseq] : std::vector<std::pair<double, bool>>{
           {0.0, false}, {0.6, false}, {1.5, false}, {1.0, true}}) {
    BeamSearchOptions o;
    o.beam = 32;  // >= 31 hypotheses of the longest source
    o.alpha = alpha;
    o.length_penalty = fairseq ? LengthPenalty::Fairseq : LengthPenalty::Gnmt;
    o.max_length_a = 1.0;
    o.max_length_b = 0;
    const auto found = beamSearch(model, source, pad, o);
    ASSERT_EQ(found.size(), kSources.size());
    std::vector<std::vector<int64_t>> bests;
    for (size_t b = 0; b < kSources.size(); ++b) {
      SCOPED_TRACE("alpha " + std::to_string(alpha) + (fairseq ? " fairseq" : " gnmt") +
                   ", source " + std::to_string(b));
      const auto e =
          exhaustiveSearch(kSources[b], static_cast<int64_t>(kSources[b].size()), alpha, fairseq);
      EXPECT_EQ(e.hypotheses, (int64_t{2} << kSources[b].size()) - 1);
      EXPECT_EQ(found[b].tokens, e.best);
      EXPECT_NEAR(found[b].score, e.best_score, 1e-9);
      EXPECT_NEAR(found[b].log_probability, logProbability(kSources[b], e.best), 1e-9);
      bests.push_back(e.best);
    }
    differ = differ || std::any_of(bests.begin(), bests.end(),
                                   [&](const std::vector<int64_t>& y) { return y != bests[0]; });
  }
  // The sources matter: they do not all have the same best translation.
  EXPECT_TRUE(differ);
}

TEST(BeamSearchExhaustive, AnyBeamReturnsAHypothesisWithItsExactScore) {
  SourceAwareModel model;
  auto [source, pad] = batch();
  for (int64_t beam : {1, 2, 3, 5}) {
    BeamSearchOptions o;
    o.beam = beam;
    o.alpha = 0.6;
    o.max_length_a = 1.0;
    o.max_length_b = 0;
    const auto found = beamSearch(model, source, pad, o);
    ASSERT_EQ(found.size(), kSources.size());
    for (size_t b = 0; b < kSources.size(); ++b) {
      SCOPED_TRACE("beam " + std::to_string(beam) + ", source " + std::to_string(b));
      EXPECT_LE(static_cast<int64_t>(found[b].tokens.size()),
                static_cast<int64_t>(kSources[b].size()));
      const double lp = logProbability(kSources[b], found[b].tokens);
      EXPECT_NEAR(found[b].log_probability, lp, 1e-9);
      EXPECT_NEAR(found[b].score, score(lp, found[b].tokens.size(), 0.6), 1e-9);
      EXPECT_LE(
          found[b].score,
          exhaustiveSearch(kSources[b], static_cast<int64_t>(kSources[b].size()), 0.6).best_score +
              1e-12);
    }
  }
  // Beam 1 is greedy decoding.
  const auto greedy = greedyDecode(model, source, pad, 0, 1.0);
  BeamSearchOptions one;
  one.beam = 1;
  one.max_length_a = 1.0;
  one.max_length_b = 0;
  const auto beam1 = beamSearch(model, source, pad, one);
  for (size_t b = 0; b < kSources.size(); ++b) EXPECT_EQ(greedy[b].tokens, beam1[b].tokens) << b;
}

// The reference: beam search as the textbook has it, over plain vectors, with fairseq's two
// conventions (beam_search.h): each step ranks every one-token extension of the K live
// hypotheses by log-probability (only eos once a hypothesis holds max_length tokens); of the
// best 2K, an eos among the best K finishes its hypothesis (scored log P / lp), the first K
// others live on; a sentence ends with K finished hypotheses or no live one. The best finished
// score wins, the earlier of equals.
struct Live {
  std::vector<int64_t> tokens;
  double log_probability = 0;
};
struct Extension {
  double log_probability;
  size_t from;
  int64_t token;
};

std::vector<Extension> rankedExtensions(const std::vector<int64_t>& source,
                                        const std::vector<Live>& beams, bool only_eos) {
  std::vector<Extension> all;
  for (size_t k = 0; k < beams.size(); ++k) {
    std::vector<double> logits = nextLogits(source, beams[k].tokens);
    for (auto& x : logits) x = static_cast<double>(static_cast<float>(x));  // the model's floats
    const std::vector<double> logp = logSoftmax(logits);
    for (int64_t v = 0; v < kVocabulary; ++v)
      if ((!only_eos || v == kIds.eos) && std::isfinite(logp[static_cast<size_t>(v)]))
        all.push_back({beams[k].log_probability + logp[static_cast<size_t>(v)], k, v});
  }
  std::stable_sort(all.begin(), all.end(), [](const Extension& a, const Extension& b) {
    return a.log_probability > b.log_probability;
  });
  return all;
}

Hypothesis referenceBeamSearch(const std::vector<int64_t>& source, int64_t K, int64_t max_length,
                               double alpha, bool fairseq) {
  std::vector<Live> beams = {Live{}};
  Hypothesis best;
  best.score = best.log_probability = -std::numeric_limits<double>::infinity();
  int64_t finished = 0;
  for (int64_t t = 0; !beams.empty() && finished < K; ++t) {
    const auto ranked = rankedExtensions(source, beams, t >= max_length);
    std::vector<Live> next;
    for (size_t r = 0; r < ranked.size() && r < static_cast<size_t>(2 * K); ++r) {
      const Extension& e = ranked[r];
      if (e.token != kIds.eos) {
        if (static_cast<int64_t>(next.size()) == K) continue;
        next.push_back({beams[e.from].tokens, e.log_probability});
        next.back().tokens.push_back(e.token);
        continue;
      }
      if (r >= static_cast<size_t>(K)) continue;
      ++finished;
      const double s = score(e.log_probability, beams[e.from].tokens.size(), alpha, fairseq);
      if (s > best.score) best = {beams[e.from].tokens, s, e.log_probability};
    }
    beams = std::move(next);
  }
  return best;
}

// Beams 2 to 5 find what the reference finds, for every source and length penalty; a search
// that fell back to greedy (or to any other rule) differs somewhere, which the test checks it
// would see: the reference's choice is not greedy's everywhere.
TEST(BeamSearchExhaustive, NarrowBeamsFindWhatTheReferenceBeamSearchFinds) {
  SourceAwareModel model;
  auto [source, pad] = batch();
  const auto greedy = greedyDecode(model, source, pad, 0, 1.0);
  int64_t not_greedy = 0;
  for (int64_t beam : {2, 3, 4, 5})
    for (const auto& [alpha, fairseq] :
         std::vector<std::pair<double, bool>>{{0.0, false}, {0.6, false}, {1.0, true}}) {
      BeamSearchOptions o;
      o.beam = beam;
      o.alpha = alpha;
      o.length_penalty = fairseq ? LengthPenalty::Fairseq : LengthPenalty::Gnmt;
      o.max_length_a = 1.0;
      o.max_length_b = 0;
      const auto found = beamSearch(model, source, pad, o);
      ASSERT_EQ(found.size(), kSources.size());
      for (size_t b = 0; b < kSources.size(); ++b) {
        SCOPED_TRACE("beam " + std::to_string(beam) + ", alpha " + std::to_string(alpha) +
                     (fairseq ? " fairseq" : " gnmt") + ", source " + std::to_string(b));
        const Hypothesis want = referenceBeamSearch(
            kSources[b], beam, static_cast<int64_t>(kSources[b].size()), alpha, fairseq);
        EXPECT_EQ(found[b].tokens, want.tokens);
        EXPECT_NEAR(found[b].score, want.score, 1e-9);
        EXPECT_NEAR(found[b].log_probability, want.log_probability, 1e-9);
        not_greedy += want.tokens != greedy[b].tokens;
      }
    }
  EXPECT_GT(not_greedy, 0) << "the reference never differs from greedy: the test sees no search";
}

}  // namespace
}  // namespace recurlab::models
