#pragma once
// The synthetic suite's metric: at the positions a task asks about (targets != kNoTarget),
// whether the prediction is the target: per asked position, and per sequence the number asked
// and answered right; the accuracy over all asked positions (Arora et al. 2023 count MQAR's
// this way) and the exact-match rate (sequences with every asked position right).
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace recurlab::experiments {

struct SequenceScores {
  std::vector<int64_t> correct, asked;  // one per sequence
  // One per asked position, row by row and in position order: 1 where the prediction is right.
  std::vector<uint8_t> question_correct;
  // The prediction at each asked position, in the same order: what a wrong answer was.
  std::vector<int64_t> question_prediction;

  double accuracy() const;    // sum correct / sum asked (0 when nothing was asked)
  double exactMatch() const;  // fraction of sequences with correct == asked
  // Per sequence correct / asked: the units of the paired tests between models.
  std::vector<double> perSequenceAccuracy() const;
  void append(const SequenceScores& more);
};

// predictions, targets (N, L) int64.
SequenceScores scorePredictions(const torch::Tensor& predictions, const torch::Tensor& targets);
// Predictions (K) at the K asked positions of targets (N, L), row by row (as
// TokenMixerModel::forwardAsked gives them), spread to (N, L): every other position gets a
// prediction that no target equals.
torch::Tensor spreadAskedPredictions(const torch::Tensor& asked_predictions,
                                     const torch::Tensor& targets);

}  // namespace recurlab::experiments
