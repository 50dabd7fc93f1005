// Registers "lstm": torch::nn::LSTM as a SequenceEncoder (cuDNN's on a GPU).
#include <torch/torch.h>

#include "models/builtin_encoders.h"
#include "models/json_options.h"
#include "models/registry.h"

namespace recurlab::models {
namespace {

class LstmEncoder : public SequenceEncoder {
 public:
  LstmEncoder(int64_t input_size, int64_t hidden, int64_t layers, bool bidirectional,
              double dropout)
      : lstm_(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(input_size, hidden)
                                                          .num_layers(layers)
                                                          .bidirectional(bidirectional)
                                                          .dropout(dropout)))),
        out_((bidirectional ? 2 : 1) * hidden),
        bidirectional_(bidirectional) {}

  torch::Tensor encode(const torch::Tensor& input, const torch::Tensor& mask_pad) override {
    // Right padding: the forward direction never sees the pads before a real step; the
    // backward direction does, which is why bidirectional LSTMs pool by mean over real steps.
    torch::Tensor h = std::get<0>(lstm_->forward(input));
    if (mask_pad.defined()) h = h.masked_fill(mask_pad.unsqueeze(2), 0.0);
    return h;
  }
  int64_t outputSize() const override { return out_; }
  Pooling preferredPooling() const override {
    return bidirectional_ ? Pooling::Mean : Pooling::Last;
  }

 private:
  torch::nn::LSTM lstm_;
  int64_t out_;
  bool bidirectional_;
};

}  // namespace

void registerLstmEncoders() {
  registerEncoder(
      "lstm", "LSTM baseline (torch::nn::LSTM); keys: layers, hidden, bidirectional, dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'lstm'");
        const int64_t layers = j.getInt("layers", 1, 1, 64);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const bool bidir = j.getBool("bidirectional", false);
        const double dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        j.finish();
        return std::make_shared<LstmEncoder>(input_size, hidden, layers, bidir, dropout);
      });
}

}  // namespace recurlab::models
