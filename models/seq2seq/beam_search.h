#pragma once
// Decoding with any Seq2SeqModel (models/seq2seq/seq2seq_model.h), batched over sentences,
// incremental (one decode() call per step with the state carried).
//
// Beam search scores a hypothesis Y by  log P(Y | X) / lp(Y), |Y| counting the tokens
// generated including eos, with one of two length penalties:
//   gnmt:    lp = ((5 + |Y|) / 6)^alpha  (Wu et al. 2016; Lei et al. 2018, App. B.3 decode with
//            beam 5, alpha 0.6)
//   fairseq: lp = |Y|^alpha  (fairseq-generate's --lenpen, 1 by default: the decoding of the
//            papers trained with fairseq)
// Greedy decoding is beam 1.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::models {

class Seq2SeqModel;

enum class LengthPenalty { Gnmt, Fairseq };

// "gnmt" or "fairseq"; anything else throws std::invalid_argument naming the choices.
LengthPenalty parseLengthPenalty(const std::string& name);
std::string lengthPenaltyName(LengthPenalty kind);
// lp(|Y|) of the kind, |Y| = tokens generated including eos.
double lengthPenaltyDivisor(LengthPenalty kind, int64_t length, double alpha);

struct BeamSearchOptions {
  int64_t beam = 5;           // >= 1; 1 = greedy
  double alpha = 0.6;         // length penalty exponent; 0 = raw log-probability
  LengthPenalty length_penalty = LengthPenalty::Gnmt;
  double max_length_a = 1.2;  // at most a * source_length + b tokens (eos excluded)
  int64_t max_length_b = 10;
};

struct Hypothesis {
  std::vector<int64_t> tokens;  // without bos and eos
  double score = 0.0;           // log P / lp
  double log_probability = 0.0;
};

// source (S, B) int64, source_pad (S, B) bool. Returns the best hypothesis per sentence, in
// the batch's order. The model is run under NoGradGuard in eval mode by the caller.
std::vector<Hypothesis> beamSearch(Seq2SeqModel& model, const at::Tensor& source,
                                   const at::Tensor& source_pad,
                                   const BeamSearchOptions& options);
// The n best hypotheses of each sentence (1 <= n <= beam), best first: the first is
// beamSearch's.
std::vector<std::vector<Hypothesis>> beamSearchNBest(Seq2SeqModel& model, const at::Tensor& source,
                                                     const at::Tensor& source_pad,
                                                     const BeamSearchOptions& options, int64_t n);
std::vector<Hypothesis> greedyDecode(Seq2SeqModel& model, const at::Tensor& source,
                                     const at::Tensor& source_pad, int64_t max_length_b = 10,
                                     double max_length_a = 1.2);

}  // namespace recurlab::models
