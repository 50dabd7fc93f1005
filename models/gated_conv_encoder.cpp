// Registers "gated_conv": a stack of ConvS2S gated convolution blocks (seed 003) as an encoder.
#include <torch/torch.h>

#include "models/builtin_encoders.h"
#include "models/gated_conv_block.h"
#include "models/json_options.h"
#include "models/registry.h"

namespace recurlab::models {
namespace {

// Blocks of width k with GLU, residual·sqrt(0.5) (from the second block on, where sizes
// match) and seed 003's dropout-aware init; "same" padding (an encoder sees both sides).
class GatedConvEncoder : public SequenceEncoder {
 public:
  GatedConvEncoder(int64_t input_size, int64_t hidden, int64_t layers, int64_t width,
                   double dropout)
      : hidden_(hidden) {
    blocks_ = register_module("blocks", torch::nn::ModuleList());
    for (int64_t i = 0; i < layers; ++i) {
      GatedConvBlockOptions o;
      o.input_channels = i == 0 ? input_size : hidden;
      o.output_channels = hidden;
      o.kernel_width = width;
      o.dropout = dropout;
      o.padding = ConvPadding::Same;
      blocks_->push_back(GatedConvBlock(o));
    }
  }
  torch::Tensor encode(const torch::Tensor& input, const torch::Tensor& mask_pad) override {
    torch::Tensor x = input;
    for (size_t i = 0; i < blocks_->size(); ++i)
      x = blocks_->ptr<GatedConvBlockImpl>(i)->forward(x, mask_pad);
    return x;
  }
  int64_t outputSize() const override { return hidden_; }
  Pooling preferredPooling() const override { return Pooling::Max; }

 private:
  torch::nn::ModuleList blocks_;
  int64_t hidden_;
};

}  // namespace

void registerGatedConvEncoders() {
  registerEncoder(
      "gated_conv", "ConvS2S gated convolution blocks (seed 003); keys: width (2|3), layers, "
                    "hidden, dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'gated_conv'");
        const int64_t width = j.getInt("width", 3, 2, 3);
        const int64_t layers = j.getInt("layers", 2, 1, 64);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const double dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        j.finish();
        return std::make_shared<GatedConvEncoder>(input_size, hidden, layers, width, dropout);
      });
}

}  // namespace recurlab::models
