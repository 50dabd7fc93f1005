#include "models/seq2seq/transformer_layers.h"

#include <torch/torch.h>

namespace recurlab::models {
namespace {

torch::nn::LayerNorm makeNorm(int64_t d) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}).eps(1e-5));
}

MultiHeadAttention makeAttention(const TransformerLayerOptions& o) {
  return MultiHeadAttention(MultiHeadAttentionOptions{o.d_model, o.heads, o.attention_dropout});
}

// One residual sub-block: pre-norm normalizes its input, post-norm its output.
template <typename F>
torch::Tensor residual(const torch::Tensor& x, torch::nn::LayerNorm& norm, bool pre_norm,
                       double dropout, bool training, F&& body) {
  torch::Tensor y = torch::dropout(body(pre_norm ? norm(x) : x), dropout, training);
  return pre_norm ? x + y : norm(x + y);
}

}  // namespace

TransformerSeq2SeqEncoderLayerImpl::TransformerSeq2SeqEncoderLayerImpl(
    TransformerLayerOptions options)
    : options_(std::move(options)) {
  self_attention = register_module("self_attention", makeAttention(options_));
  self_attention_norm = register_module("self_attention_norm", makeNorm(options_.d_model));
  feed_forward = register_module("feed_forward", TransformerFeedForward(options_.feed_forward));
  final_norm = register_module("final_norm", makeNorm(options_.d_model));
}

torch::Tensor TransformerSeq2SeqEncoderLayerImpl::forward(const torch::Tensor& x,
                                                          const torch::Tensor& mask_pad) {
  const auto& o = options_;
  torch::Tensor h = residual(x, self_attention_norm, o.pre_norm, o.dropout, is_training(),
                             [&](const torch::Tensor& in) {
                               return self_attention->forward(in, in, in, mask_pad).output;
                             });
  return residual(h, final_norm, o.pre_norm, o.dropout, is_training(),
                  [&](const torch::Tensor& in) {
                    return feed_forward->forwardSequence(in, mask_pad, {}).features;
                  });
}

TransformerSeq2SeqDecoderLayerImpl::TransformerSeq2SeqDecoderLayerImpl(
    TransformerLayerOptions options)
    : options_(std::move(options)) {
  self_attention = register_module("self_attention", makeAttention(options_));
  self_attention_norm = register_module("self_attention_norm", makeNorm(options_.d_model));
  encoder_attention = register_module("encoder_attention", makeAttention(options_));
  encoder_attention_norm = register_module("encoder_attention_norm", makeNorm(options_.d_model));
  feed_forward = register_module("feed_forward", TransformerFeedForward(options_.feed_forward));
  final_norm = register_module("final_norm", makeNorm(options_.d_model));
}

DecoderLayerOutput TransformerSeq2SeqDecoderLayerImpl::forward(
    const torch::Tensor& x, const torch::Tensor& target_pad, const torch::Tensor& memory,
    const torch::Tensor& memory_pad, const SequenceState& state, bool need_attention) {
  const auto& o = options_;
  const char* who = "Transformer decoder layer";
  TORCH_CHECK(state.empty() || (state.tensors.size() == 4 && state.children.size() == 1),
              who, ": a state must hold 4 tensors and 1 child, got ", state.tensors.size(),
              " and ", state.children.size());
  DecoderLayerOutput out;
  torch::Tensor past_keys = state.tensor(0, who), past_values = state.tensor(1, who);
  const int64_t offset = past_keys.defined() ? past_keys.size(1) : 0;
  torch::Tensor h = residual(
      x, self_attention_norm, o.pre_norm, o.dropout, is_training(), [&](const torch::Tensor& in) {
        torch::Tensor keys = self_attention->projectKeys(in);
        torch::Tensor values = self_attention->projectValues(in);
        if (past_keys.defined()) {
          keys = torch::cat({past_keys, keys}, 1);
          values = torch::cat({past_values, values}, 1);
        }
        out.state.tensors = {keys, values};
        // Right padding: pad steps come after every real step, so the causal mask alone keeps
        // them out of the real steps' view.
        return self_attention->attend(in, keys, values, {}, offset, false).output;
      });
  torch::Tensor encoder_keys = state.tensor(2, who), encoder_values = state.tensor(3, who);
  if (!encoder_keys.defined()) {
    encoder_keys = encoder_attention->projectKeys(memory);
    encoder_values = encoder_attention->projectValues(memory);
  }
  out.state.tensors.push_back(encoder_keys);
  out.state.tensors.push_back(encoder_values);
  h = residual(h, encoder_attention_norm, o.pre_norm, o.dropout, is_training(),
               [&](const torch::Tensor& in) {
                 AttentionResult r = encoder_attention->attend(
                     in, encoder_keys, encoder_values, memory_pad.t(), -1, need_attention);
                 out.attention = r.weights;
                 return r.output;
               });
  out.features = residual(h, final_norm, o.pre_norm, o.dropout, is_training(),
                          [&](const torch::Tensor& in) {
                            SequenceOutput f =
                                feed_forward->forwardSequence(in, target_pad, state.child(0, who));
                            out.state.children.push_back(std::move(f.state));
                            return f.features;
                          });
  return out;
}

}  // namespace recurlab::models
