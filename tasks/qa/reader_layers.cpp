#include "tasks/qa/reader_layers.h"

#include <torch/torch.h>

#include <limits>

namespace recurlab::experiments::qa {

at::Tensor alignedQuestionEmbedding(const at::Tensor& paragraph, const at::Tensor& question,
                                    const at::Tensor& question_pad, const at::Tensor& weight,
                                    const at::Tensor& bias) {
  const auto p = torch::relu(torch::nn::functional::linear(paragraph, weight, bias));
  const auto q = torch::relu(torch::nn::functional::linear(question, weight, bias));
  auto scores = torch::bmm(p, q.transpose(1, 2));  // (B, Lp, Lq)
  scores = scores.masked_fill(question_pad.unsqueeze(1), -std::numeric_limits<double>::infinity());
  return torch::bmm(torch::softmax(scores, 2), question);
}

at::Tensor selfAttentionPool(const at::Tensor& hidden, const at::Tensor& pad,
                             const at::Tensor& weight, const at::Tensor& bias) {
  auto scores = torch::nn::functional::linear(hidden, weight, bias).squeeze(2);  // (B, L)
  scores = scores.masked_fill(pad, -std::numeric_limits<double>::infinity());
  return torch::bmm(torch::softmax(scores, 1).unsqueeze(1), hidden).squeeze(1);
}

at::Tensor bilinearScores(const at::Tensor& paragraph, const at::Tensor& question,
                          const at::Tensor& paragraph_pad, const at::Tensor& weight,
                          const at::Tensor& bias) {
  const auto wq = torch::nn::functional::linear(question, weight, bias);  // (B, H)
  auto scores = torch::bmm(paragraph, wq.unsqueeze(2)).squeeze(2);       // (B, Lp)
  return scores.masked_fill(paragraph_pad, -std::numeric_limits<double>::infinity());
}

}  // namespace recurlab::experiments::qa
