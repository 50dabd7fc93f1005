// Registers "sru": a multi-layer SRU as a SequenceEncoder.
#include <torch/torch.h>

#include "models/builtin_encoders.h"
#include "models/json_options.h"
#include "models/registry.h"
#include "models/sru.h"

namespace recurlab::models {
namespace {

class SruEncoder : public SequenceEncoder {
 public:
  explicit SruEncoder(const SruOptions& o) : sru_(register_module("sru", Sru(o))) {}
  torch::Tensor encode(const torch::Tensor& input, const torch::Tensor& mask_pad) override {
    return sru_->forward(input, {}, mask_pad).first;
  }
  int64_t outputSize() const override { return sru_->options().outputSize(); }
  Pooling preferredPooling() const override {
    return sru_->options().bidirectional ? Pooling::Mean : Pooling::Last;
  }

 private:
  Sru sru_;
};

}  // namespace

void registerSruEncoders() {
  registerEncoder(
      "sru", "Simple Recurrent Unit stack (seed 000); keys: layers, hidden, bidirectional, "
             "dropout, rnn_dropout, highway_bias, rescale, projection, layer_norm, "
             "normalize_after",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'sru'");
        SruOptions o;
        o.input_size = input_size;
        o.num_layers = j.getInt("layers", 2, 1, 64);
        o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
        o.bidirectional = j.getBool("bidirectional", false);
        o.dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        o.rnn_dropout = j.getDouble("rnn_dropout", 0.0, 0.0, 0.99);
        o.highway_bias = j.getDouble("highway_bias", 0.0, -10.0, 10.0);
        o.rescale = j.getBool("rescale", false);
        o.projection_size = j.getInt("projection", 0, 0, 1 << 16);
        o.layer_norm = j.getBool("layer_norm", false);
        o.normalize_after = j.getBool("normalize_after", false);
        j.finish();
        return std::make_shared<SruEncoder>(o);
      });
}

}  // namespace recurlab::models
