#pragma once
// Multi-head scaled dot-product attention as fairseq builds it (modules/multihead_attention.py):
// separate q/k/v projections with bias, q scaled by head_dim^-1/2, softmax, dropout on
// the probabilities, an output projection. Written here rather than torch::nn::MultiheadAttention
// because a decoder caches the projected keys and values of the steps it has seen.
//
// Time-major: query (T, B, D), key/value (S, B, D). Keys and values may also be given already
// projected and batch-first (B, S, D): what a decoder keeps in its SequenceState.
// Init (fairseq): q/k/v weights xavier_uniform with gain 1/sqrt(2), their biases PyTorch's
// default; out_proj xavier_uniform, bias 0.
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace recurlab::models {

struct MultiHeadAttentionOptions {
  int64_t d_model = 0;
  int64_t heads = 1;
  double attention_dropout = 0.0;  // on the attention probabilities
};

struct AttentionResult {
  torch::Tensor output;   // (T, B, D)
  torch::Tensor weights;  // (B, T, S) averaged over heads, when asked; else undefined
};

class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  explicit MultiHeadAttentionImpl(MultiHeadAttentionOptions options);
  void reset_parameters();

  // Projected keys / values (B, S, D) of a time-major input (S, B, D).
  torch::Tensor projectKeys(const torch::Tensor& input) { return k_proj(input).transpose(0, 1); }
  torch::Tensor projectValues(const torch::Tensor& input) { return v_proj(input).transpose(0, 1); }

  // query (T, B, D); keys, values projected (B, S, D); key_pad (B, S) bool, true = pad, or
  // undefined; causal_offset >= 0 makes query t see keys 0..causal_offset + t only (a decoder
  // whose first query is step causal_offset), -1 = no causal mask.
  AttentionResult attend(const torch::Tensor& query, const torch::Tensor& keys,
                         const torch::Tensor& values, const torch::Tensor& key_pad,
                         int64_t causal_offset, bool need_weights);

  // The whole thing on time-major key/value inputs (S, B, D); key_pad (S, B) or undefined.
  AttentionResult forward(const torch::Tensor& query, const torch::Tensor& key,
                          const torch::Tensor& value, const torch::Tensor& key_pad = {},
                          bool causal = false, bool need_weights = false);

  const MultiHeadAttentionOptions& options() const { return options_; }

  torch::nn::Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, out_proj{nullptr};

 private:
  MultiHeadAttentionOptions options_;
};
TORCH_MODULE(MultiHeadAttention);

}  // namespace recurlab::models
