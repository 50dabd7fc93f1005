// Adds "gated_conv": a stack of ConvS2S gated convolution blocks (Gehring et al., 2017) as
// an encoder.
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/layers/gated_conv_block.h"

namespace recurlab::models {
namespace {

// Blocks of width k with GLU, residual·sqrt(0.5) (from the second block on, where sizes
// match) and Gehring et al.'s (2017) dropout-aware init. "Same" padding by default (an encoder
// sees both sides); causal padding for language models and decoders, which then carry each
// block's last k-1 inputs as state (one child per block).
class GatedConvEncoder : public SequenceEncoder {
 public:
  GatedConvEncoder(int64_t input_size, int64_t hidden, int64_t layers, int64_t width,
                   double dropout, bool causal)
      : hidden_(hidden), causal_(causal) {
    blocks_ = register_module("blocks", torch::nn::ModuleList());
    for (int64_t i = 0; i < layers; ++i) {
      GatedConvBlockOptions o;
      o.input_channels = i == 0 ? input_size : hidden;
      o.output_channels = hidden;
      o.kernel_width = width;
      o.dropout = dropout;
      o.padding = causal ? ConvPadding::Causal : ConvPadding::Same;
      blocks_->push_back(GatedConvBlock(o));
    }
  }
  int64_t outputSize() const override { return hidden_; }
  bool causal() const override { return causal_; }

 protected:
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override {
    TORCH_CHECK(state.empty() || state.children.size() == blocks_->size(),
                "gated_conv: the state has ", state.children.size(), " blocks, the encoder ",
                blocks_->size());
    SequenceOutput out;
    torch::Tensor x = input;
    for (size_t i = 0; i < blocks_->size(); ++i) {
      SequenceOutput block_out = blocks_->ptr<GatedConvBlockImpl>(i)->forwardSequence(
          x, mask_pad, state.child(i, "gated_conv"));
      x = block_out.features;
      if (causal_) out.state.children.push_back(std::move(block_out.state));
    }
    out.features = x;
    return out;
  }

 private:
  torch::nn::ModuleList blocks_;
  int64_t hidden_;
  bool causal_;
};

}  // namespace

void addGatedConvEncoders(const EncoderSink& add) {
  add(
      "gated_conv",
      "ConvS2S gated convolution blocks (Gehring et al., 2017); keys: width (2|3), layers, "
      "hidden, dropout, causal (false: centred windows; true: each step sees itself and the "
      "width-1 steps before it)",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'gated_conv'");
        const int64_t width = j.getInt("width", 3, 2, 3);
        const int64_t layers = j.getInt("layers", 2, 1, 64);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const double dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        const bool causal = j.getBool("causal", false);
        j.finish();
        return std::make_shared<GatedConvEncoder>(input_size, hidden, layers, width, dropout,
                                                  causal);
      });
}

}  // namespace recurlab::models
