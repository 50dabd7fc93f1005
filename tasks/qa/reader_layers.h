#pragma once
// The attention pieces of the DrQA document reader (Chen et al. 2017, §3.1), as functions of
// their weights so that tests can check them against plain loops in double precision.
// Batch-major: (B, L, D); masks are (B, L) bool, true = pad.
#include <ATen/core/Tensor.h>

namespace recurlab::experiments::qa {

// Aligned question embedding: a_ij = softmax_j(relu(W p_i + b) . relu(W q_j + b)) over the
// question's real tokens; returns sum_j a_ij q_j (B, Lp, E) over the raw question embeddings.
at::Tensor alignedQuestionEmbedding(const at::Tensor& paragraph, const at::Tensor& question,
                                    const at::Tensor& question_pad, const at::Tensor& weight,
                                    const at::Tensor& bias);

// Self-attention pooling of the question: b_j = softmax_j(w . q_j + c) over real tokens;
// returns sum_j b_j q_j (B, H).
at::Tensor selfAttentionPool(const at::Tensor& hidden, const at::Tensor& pad,
                             const at::Tensor& weight, const at::Tensor& bias);

// Bilinear span scores: s_i = p_i . (W q + b), pads set to -inf; (B, Lp) logits.
at::Tensor bilinearScores(const at::Tensor& paragraph, const at::Tensor& question,
                          const at::Tensor& paragraph_pad, const at::Tensor& weight,
                          const at::Tensor& bias);

}  // namespace recurlab::experiments::qa
