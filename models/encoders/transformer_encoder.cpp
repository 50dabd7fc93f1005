// Adds "transformer": a causal (decoder-only) Transformer stack as a sequence encoder, the
// attention baseline of the synthetic suite (Arora et al. 2023 compare every recurrence with
// it). Pre-norm layers (Xiong et al. 2020) of causal multi-head self-attention and a ReLU
// feed-forward block, sinusoidal positions added to the input projection (Vaswani et al. 2017,
// §3.5), a final layer norm. Its state is every layer's keys and values so far (the KV cache),
// the pad mask over them and each sequence's count of real steps (its next position): it grows
// with the length, and the entry's state size counts the keys and values only.
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/layers/multi_head_attention.h"
#include "models/seq2seq/sinusoidal_positions.h"

namespace recurlab::models {
namespace {

torch::nn::LayerNorm layerNorm(int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}));
}

struct CausalLayerImpl : torch::nn::Module {
  CausalLayerImpl(int64_t hidden, int64_t heads, int64_t feed_forward) {
    attention = register_module(
        "attention", MultiHeadAttention(MultiHeadAttentionOptions{hidden, heads, 0.0}));
    attention_norm = register_module("attention_norm", layerNorm(hidden));
    feed_forward_norm = register_module("feed_forward_norm", layerNorm(hidden));
    expand = register_module("expand", torch::nn::Linear(hidden, feed_forward));
    contract = register_module("contract", torch::nn::Linear(feed_forward, hidden));
  }
  MultiHeadAttention attention{nullptr};
  torch::nn::LayerNorm attention_norm{nullptr}, feed_forward_norm{nullptr};
  torch::nn::Linear expand{nullptr}, contract{nullptr};
};
TORCH_MODULE(CausalLayer);

class CausalTransformerEncoder : public SequenceEncoder {
 public:
  CausalTransformerEncoder(int64_t input_size, int64_t hidden, int64_t layers, int64_t heads,
                           int64_t feed_forward, double dropout)
      : hidden_(hidden), dropout_(dropout) {
    input_ = register_module("input", torch::nn::Linear(input_size, hidden));
    layers_ = register_module("layers", torch::nn::ModuleList());
    for (int64_t i = 0; i < layers; ++i)
      layers_->push_back(CausalLayer(hidden, heads, feed_forward));
    final_norm_ = register_module("final_norm", layerNorm(hidden));
  }
  int64_t outputSize() const override { return hidden_; }
  bool causal() const override { return true; }

 protected:
  // State: tensors [pad mask (B, P) int64 (1 = pad), real steps (B) int64], one child per
  // layer with tensors [keys (B, P, D), values (B, P, D)].
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override {
    const char* who = "transformer";
    TORCH_CHECK(state.empty() || state.children.size() == layers_->size(), who,
                ": the state has ", state.children.size(), " layers, the encoder ", layers_->size());
    const int64_t L = input.size(0), B = input.size(1);
    const auto pad = mask_pad.defined() ? mask_pad.to(torch::kBool)
                                        : torch::zeros({L, B}, input.options().dtype(torch::kBool));
    const auto past_pad = state.tensor(0, who), past_steps = state.tensor(1, who);
    const auto steps_before =
        past_steps.defined() ? past_steps : torch::zeros({B}, pad.options().dtype(torch::kLong));
    // Each real step's position: the real steps of its sequence before it.
    const auto real = pad.logical_not().to(torch::kLong);
    const auto positions = steps_before.view({1, B}) + real.cumsum(0) - real;
    auto x = input_(input) + sinusoidalPositions(positions, hidden_).to(input.dtype());
    SequenceOutput out;
    const auto new_pad = pad.t().to(torch::kLong);
    const auto key_pad = past_pad.defined() ? torch::cat({past_pad, new_pad}, 1) : new_pad;
    out.state.tensors = {key_pad, steps_before + real.sum(0)};
    // Pad steps zeroed after every layer: a sequence with no real step yet attends to nothing.
    for (size_t i = 0; i < layers_->size(); ++i)
      x = layer(*layers_->ptr<CausalLayerImpl>(i), x, key_pad, state.child(i, who), out.state)
              .masked_fill(pad.unsqueeze(2), 0.0);
    out.features = final_norm_(x).masked_fill(pad.unsqueeze(2), 0.0);
    return out;
  }

 private:
  torch::Tensor layer(CausalLayerImpl& l, const torch::Tensor& x, const torch::Tensor& key_pad,
                      const SequenceState& past, SequenceState& state) {
    const auto in = l.attention_norm(x);
    auto keys = l.attention->projectKeys(in), values = l.attention->projectValues(in);
    const auto past_keys = past.tensor(0, "transformer");
    const int64_t offset = past_keys.defined() ? past_keys.size(1) : 0;
    if (past_keys.defined()) {
      keys = torch::cat({past_keys, keys}, 1);
      values = torch::cat({past.tensor(1, "transformer"), values}, 1);
    }
    state.children.push_back(SequenceState{{keys, values}, {}});
    const auto attended = l.attention->attend(in, keys, values, key_pad, offset, false).output;
    const auto h = x + torch::dropout(attended, dropout_, is_training());
    const auto inner = torch::relu(l.expand(l.feed_forward_norm(h)));
    return h + torch::dropout(l.contract(torch::dropout(inner, dropout_, is_training())), dropout_,
                              is_training());
  }

  torch::nn::Linear input_{nullptr};
  torch::nn::ModuleList layers_;
  torch::nn::LayerNorm final_norm_{nullptr};
  int64_t hidden_;
  double dropout_;
};

}  // namespace

void addTransformerEncoders(const EncoderSink& add) {
  add(
      "transformer",
      "causal Transformer stack (decoder-only, pre-norm; Vaswani et al. 2017), its state the "
      "keys and values so far; keys: layers, hidden, heads (dividing hidden), feed_forward "
      "(default 4 x hidden), dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'transformer'");
        const int64_t layers = j.getInt("layers", 2, 1, 64);
        const int64_t hidden = j.getInt("hidden", 128, 1, 1 << 16);
        const int64_t heads = j.getInt("heads", hidden % 2 == 0 ? 2 : 1, 1, hidden);
        const int64_t feed_forward = j.getInt("feed_forward", 4 * hidden, 1, 1 << 20);
        const double dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        j.finish();
        if (hidden % heads != 0)
          throw std::invalid_argument("model 'transformer': key 'heads' = " +
                                      std::to_string(heads) + " does not divide key 'hidden' = " +
                                      std::to_string(hidden));
        return std::make_shared<CausalTransformerEncoder>(input_size, hidden, layers, heads,
                                                          feed_forward, dropout);
      },
      // The KV cache: keys and values of every layer at every step so far.
      [](const nlohmann::json& config, int64_t, int64_t length) -> int64_t {
        JsonOptions j(config, "model 'transformer'");
        const int64_t layers = j.getInt("layers", 2, 1, 64);
        const int64_t hidden = j.getInt("hidden", 128, 1, 1 << 16);
        return 2 * layers * hidden * length;
      });
}

}  // namespace recurlab::models
