#include "models/seq2seq/beam_search.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/seq2seq/seq2seq_model.h"

namespace recurlab::models {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// Per sentence: at most floor(a·S + b) tokens before eos, S = its real source tokens.
std::vector<int64_t> maxLengths(const at::Tensor& source_pad, double a, int64_t b) {
  torch::Tensor lengths = source_pad.to(torch::kBool).logical_not().sum(0).to(torch::kCPU);
  std::vector<int64_t> out;
  for (int64_t i = 0; i < lengths.size(0); ++i)
    out.push_back(std::max<int64_t>(
        0, static_cast<int64_t>(std::floor(a * static_cast<double>(lengths[i].item<int64_t>()))) + b));
  return out;
}

// Next-token log-probabilities (rows, V) in double: pad and bos are never generated, and a row
// whose hypothesis has reached its maximum length may only end.
torch::Tensor nextLogProbabilities(const torch::Tensor& logits, const Seq2SeqSpecialIds& ids,
                                   const torch::Tensor& at_max_length) {
  torch::Tensor logp = torch::log_softmax(logits.to(torch::kCPU, torch::kDouble), -1);
  logp.index_fill_(1, torch::tensor({ids.pad}), kMinusInf);
  if (ids.bos != ids.eos) logp.index_fill_(1, torch::tensor({ids.bos}), kMinusInf);
  if (at_max_length.any().item<bool>()) {
    torch::Tensor only_eos = torch::full_like(logp, kMinusInf);
    only_eos.select(1, ids.eos).copy_(logp.select(1, ids.eos));
    logp = torch::where(at_max_length.unsqueeze(1), only_eos, logp);
  }
  return logp;
}

void checkSource(const at::Tensor& source, const at::Tensor& source_pad) {
  if (source.dim() != 2 || !source_pad.defined() || source_pad.sizes() != source.sizes())
    throw std::invalid_argument("beam search: source and source_pad must both be (S, B)");
}

struct Candidate {
  int64_t from;  // beam it extends
  int64_t token;
  double score;  // cumulative log-probability
};

// Row i's candidates of a step (`columns` of them, best first): an eos among the best K
// finishes a hypothesis of the sentence (into `finished`, its score divided by `penalty`), the
// first K others extend its beams.
std::vector<Candidate> sentenceCandidates(const at::TensorAccessor<double, 2>& value,
                                          const at::TensorAccessor<int64_t, 2>& index, int64_t i,
                                          int64_t columns, int64_t V, int64_t K, int64_t eos,
                                          double penalty, const torch::Tensor& history,
                                          std::vector<Hypothesis>& finished) {
  std::vector<Candidate> kept;
  for (int64_t r = 0; r < columns; ++r) {
    if (value[i][r] == kMinusInf) break;
    const Candidate c{index[i][r] / V, index[i][r] % V, value[i][r]};
    if (c.token == eos) {
      if (r >= K) continue;  // only eos among the best K ends a hypothesis (fairseq)
      Hypothesis h;
      torch::Tensor prefix = history[i * K + c.from];
      h.tokens.assign(prefix.data_ptr<int64_t>(), prefix.data_ptr<int64_t>() + prefix.numel());
      h.log_probability = c.score;
      h.score = c.score / penalty;
      finished.push_back(std::move(h));
    } else if (static_cast<int64_t>(kept.size()) < K) {
      kept.push_back(c);
    }
  }
  return kept;
}

// Every finished hypothesis of each sentence, in the order they finished.
std::vector<std::vector<Hypothesis>> finishedHypotheses(Seq2SeqModel& model, const at::Tensor& source,
                                                        const at::Tensor& source_pad,
                                                        const BeamSearchOptions& options) {
  checkSource(source, source_pad);
  if (options.beam < 1) throw std::invalid_argument("beam search: beam must be >= 1");
  torch::NoGradGuard no_grad;
  const Seq2SeqSpecialIds ids = model.specialIds();
  const int64_t B = source.size(1), K = options.beam, V = model.vocabularySize();
  const auto device = source.device();
  const std::vector<int64_t> max_length =
      maxLengths(source_pad, options.max_length_a, options.max_length_b);

  // Rows: active sentence i, beam k at row i·K + k. At the start only beam 0 is alive.
  std::vector<int64_t> active(static_cast<size_t>(B));
  for (int64_t i = 0; i < B; ++i) active[static_cast<size_t>(i)] = i;
  EncoderMemory memory = model.encode(source, source_pad)
                             .indexSelect(torch::arange(B, torch::dtype(torch::kLong).device(device))
                                              .repeat_interleave(K));
  SequenceState state;
  torch::Tensor history = torch::empty({B * K, 0}, torch::kLong);  // generated tokens, CPU
  torch::Tensor last = torch::full({B * K}, ids.bos, torch::kLong);
  torch::Tensor scores = torch::full({B, K}, kMinusInf, torch::kDouble);
  scores.select(1, 0).zero_();
  std::vector<std::vector<Hypothesis>> finished(static_cast<size_t>(B));

  for (int64_t t = 0; !active.empty(); ++t) {
    const auto n = static_cast<int64_t>(active.size());
    DecoderOutput out =
        model.decode(last.view({1, n * K}).to(device), {}, memory, state, false);
    std::vector<int64_t> reached(static_cast<size_t>(n * K));
    for (int64_t r = 0; r < n * K; ++r)
      reached[static_cast<size_t>(r)] =
          t >= max_length[static_cast<size_t>(active[static_cast<size_t>(r / K)])];
    torch::Tensor logp = nextLogProbabilities(
        out.logits[0], ids, torch::tensor(reached, torch::kLong).to(torch::kBool));
    torch::Tensor total = (scores.view({n * K, 1}) + logp).view({n, K * V});
    auto [values, indices] = total.topk(std::min<int64_t>(2 * K, K * V), 1);
    auto value = values.accessor<double, 2>();
    auto index = indices.accessor<int64_t, 2>();
    const double penalty = lengthPenaltyDivisor(options.length_penalty, t + 1, options.alpha);

    std::vector<int64_t> still_active, rows, tokens;
    std::vector<double> kept_scores;
    for (int64_t i = 0; i < n; ++i) {
      const auto sentence = static_cast<size_t>(active[static_cast<size_t>(i)]);
      const std::vector<Candidate> kept = sentenceCandidates(
          value, index, i, values.size(1), V, K, ids.eos, penalty, history, finished[sentence]);
      // No early stop (as fairseq): a sentence ends with K finished hypotheses or at its
      // maximum length.
      if (static_cast<int64_t>(finished[sentence].size()) >= K || kept.empty()) continue;
      still_active.push_back(static_cast<int64_t>(sentence));
      for (int64_t k = 0; k < K; ++k) {
        // Fewer than K live candidates (a tiny vocabulary): dead copies with score -inf.
        const bool live = k < static_cast<int64_t>(kept.size());
        const Candidate& c = live ? kept[static_cast<size_t>(k)] : kept[0];
        rows.push_back(i * K + c.from);
        tokens.push_back(c.token);
        kept_scores.push_back(live ? c.score : kMinusInf);
      }
    }
    if (still_active.empty()) break;
    torch::Tensor row_index = torch::tensor(rows, torch::kLong);
    last = torch::tensor(tokens, torch::kLong);
    history = torch::cat({history.index_select(0, row_index), last.unsqueeze(1)}, 1);
    scores = torch::tensor(kept_scores, torch::kDouble).view({-1, K});
    torch::Tensor device_index = row_index.to(device);
    state = out.state.indexSelect(device_index);
    memory = memory.indexSelect(device_index);
    active = std::move(still_active);
  }
  return finished;
}

}  // namespace

LengthPenalty parseLengthPenalty(const std::string& name) {
  if (name == "gnmt") return LengthPenalty::Gnmt;
  if (name == "fairseq") return LengthPenalty::Fairseq;
  throw std::invalid_argument("length penalty '" + name + "': expected gnmt or fairseq");
}

std::string lengthPenaltyName(LengthPenalty kind) {
  return kind == LengthPenalty::Gnmt ? "gnmt" : "fairseq";
}

double lengthPenaltyDivisor(LengthPenalty kind, int64_t length, double alpha) {
  const auto y = static_cast<double>(length);
  return std::pow(kind == LengthPenalty::Gnmt ? (5.0 + y) / 6.0 : y, alpha);
}

std::vector<Hypothesis> beamSearch(Seq2SeqModel& model, const at::Tensor& source,
                                   const at::Tensor& source_pad,
                                   const BeamSearchOptions& options) {
  const auto finished = finishedHypotheses(model, source, source_pad, options);
  std::vector<Hypothesis> best(finished.size());
  for (size_t s = 0; s < finished.size(); ++s) {
    best[s].score = best[s].log_probability = kMinusInf;
    for (const auto& h : finished[s])  // the first of equals wins: the earlier, better-ranked
      if (h.score > best[s].score) best[s] = h;
  }
  return best;
}

std::vector<std::vector<Hypothesis>> beamSearchNBest(Seq2SeqModel& model, const at::Tensor& source,
                                                     const at::Tensor& source_pad,
                                                     const BeamSearchOptions& options, int64_t n) {
  if (n < 1 || n > options.beam)
    throw std::invalid_argument("beam search: n-best must be in 1..beam (" + std::to_string(options.beam) + ")");
  auto finished = finishedHypotheses(model, source, source_pad, options);
  for (auto& hypotheses : finished) {
    // Stable: of equal scores the earlier finished ranks first, as in beamSearch.
    std::stable_sort(hypotheses.begin(), hypotheses.end(),
                     [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (static_cast<int64_t>(hypotheses.size()) > n) hypotheses.resize(static_cast<size_t>(n));
  }
  return finished;
}

std::vector<Hypothesis> greedyDecode(Seq2SeqModel& model, const at::Tensor& source,
                                     const at::Tensor& source_pad, int64_t max_length_b,
                                     double max_length_a) {
  checkSource(source, source_pad);
  torch::NoGradGuard no_grad;
  const Seq2SeqSpecialIds ids = model.specialIds();
  const int64_t B = source.size(1);
  const auto device = source.device();
  const std::vector<int64_t> max_length = maxLengths(source_pad, max_length_a, max_length_b);
  EncoderMemory memory = model.encode(source, source_pad);
  SequenceState state;
  torch::Tensor last = torch::full({B}, ids.bos, torch::kLong);
  std::vector<Hypothesis> out(static_cast<size_t>(B));
  std::vector<bool> done(static_cast<size_t>(B), false);
  int64_t remaining = B;
  for (int64_t t = 0; remaining > 0; ++t) {
    DecoderOutput step = model.decode(last.view({1, B}).to(device), {}, memory, state, false);
    state = std::move(step.state);
    std::vector<int64_t> reached(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b)
      reached[static_cast<size_t>(b)] = t >= max_length[static_cast<size_t>(b)];
    torch::Tensor logp = nextLogProbabilities(
        step.logits[0], ids, torch::tensor(reached, torch::kLong).to(torch::kBool));
    auto [best, token] = logp.max(1);
    const auto best_of = best.accessor<double, 1>();
    const auto token_of = token.accessor<int64_t, 1>();
    for (int64_t b = 0; b < B; ++b) {
      const auto s = static_cast<size_t>(b);
      if (done[s]) continue;
      const int64_t y = token_of[b];
      out[s].log_probability += best_of[b];
      if (y == ids.eos) {
        done[s] = true;
        --remaining;
      } else {
        out[s].tokens.push_back(y);
      }
    }
    last = token;
  }
  for (auto& h : out) h.score = h.log_probability;
  return out;
}

}  // namespace recurlab::models
