#include "tasks/synthetic/sequence_scores.h"

#include <stdexcept>

#include "tasks/synthetic/synthetic_sequence.h"

namespace recurlab::experiments {

double SequenceScores::accuracy() const {
  int64_t right = 0, total = 0;
  for (size_t i = 0; i < asked.size(); ++i) {
    right += correct[i];
    total += asked[i];
  }
  return total == 0 ? 0.0 : static_cast<double>(right) / static_cast<double>(total);
}

double SequenceScores::exactMatch() const {
  if (asked.empty()) return 0.0;
  int64_t exact = 0;
  for (size_t i = 0; i < asked.size(); ++i) exact += correct[i] == asked[i];
  return static_cast<double>(exact) / static_cast<double>(asked.size());
}

std::vector<double> SequenceScores::perSequenceAccuracy() const {
  std::vector<double> out;
  for (size_t i = 0; i < asked.size(); ++i)
    out.push_back(asked[i] == 0 ? 0.0 : static_cast<double>(correct[i]) / static_cast<double>(asked[i]));
  return out;
}

void SequenceScores::append(const SequenceScores& more) {
  correct.insert(correct.end(), more.correct.begin(), more.correct.end());
  question_correct.insert(question_correct.end(), more.question_correct.begin(),
                          more.question_correct.end());
  question_prediction.insert(question_prediction.end(), more.question_prediction.begin(),
                             more.question_prediction.end());
  asked.insert(asked.end(), more.asked.begin(), more.asked.end());
}

SequenceScores scorePredictions(const torch::Tensor& predictions, const torch::Tensor& targets) {
  if (predictions.sizes() != targets.sizes() || targets.dim() != 2)
    throw std::invalid_argument("scorePredictions: predictions and targets must both be (N, L)");
  const auto asked_mask = targets.ne(kNoTarget);
  const auto hits = predictions.eq(targets).logical_and(asked_mask);
  const auto right = hits.sum(1).to(torch::kCPU);
  const auto asked = asked_mask.sum(1).to(torch::kCPU);
  // Boolean indexing walks the (N, L) mask row-major: row by row, in position order.
  const auto per_question = hits.index({asked_mask}).to(torch::kCPU, torch::kUInt8).contiguous();
  const auto predicted = predictions.index({asked_mask}).to(torch::kCPU, torch::kLong).contiguous();
  SequenceScores s;
  s.question_correct.assign(per_question.data_ptr<uint8_t>(),
                            per_question.data_ptr<uint8_t>() + per_question.numel());
  s.question_prediction.assign(predicted.data_ptr<int64_t>(),
                               predicted.data_ptr<int64_t>() + predicted.numel());
  for (int64_t i = 0; i < targets.size(0); ++i) {
    s.correct.push_back(right[i].item<int64_t>());
    s.asked.push_back(asked[i].item<int64_t>());
  }
  return s;
}

torch::Tensor spreadAskedPredictions(const torch::Tensor& asked_predictions,
                                     const torch::Tensor& targets) {
  auto predictions = torch::full_like(targets, kNoTarget - 1);
  predictions.index_put_({targets.ne(kNoTarget)}, asked_predictions);
  return predictions;
}

}  // namespace recurlab::experiments
