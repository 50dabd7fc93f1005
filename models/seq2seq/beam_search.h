#pragma once
// Decoding with any Seq2SeqModel (models/seq2seq/seq2seq_model.h), batched over sentences,
// incremental (one decode() call per step with the state carried).
//
// Beam search scores a hypothesis Y by  log P(Y | X) / lp(Y),  lp = ((5 + |Y|) / 6)^alpha
// (the GNMT length penalty of Wu et al. 2016, as Lei et al. 2018, App. B.3 decode: beam 5,
// alpha 0.6), |Y| counting the tokens generated including eos. Greedy decoding is beam 1.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace recurlab::models {

class Seq2SeqModel;

struct BeamSearchOptions {
  int64_t beam = 5;           // >= 1; 1 = greedy
  double alpha = 0.6;         // GNMT length penalty exponent; 0 = raw log-probability
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
