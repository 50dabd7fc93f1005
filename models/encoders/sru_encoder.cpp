// Adds "sru": a multi-layer SRU as a SequenceEncoder.
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/layers/sru.h"

namespace recurlab::models {
namespace {

// State: one child per layer holding its last c (B, out); a bidirectional SRU takes it as the
// initial c of both directions (the reference's c0) but is not causal.
class SruEncoder : public SequenceEncoder {
 public:
  explicit SruEncoder(const SruOptions& o) : sru_(register_module("sru", Sru(o))) {}
  int64_t outputSize() const override { return sru_->options().outputSize(); }
  bool causal() const override { return !sru_->options().bidirectional; }

 protected:
  SequenceOutput encodeSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                const SequenceState& state) override {
    const int64_t layers = sru_->numLayers();
    TORCH_CHECK(state.empty() || static_cast<int64_t>(state.children.size()) == layers,
                "sru: the state has ", state.children.size(), " layers, the encoder ", layers);
    SequenceOutput out;
    torch::Tensor x = input;
    for (int64_t i = 0; i < layers; ++i) {
      const torch::Tensor c0 = state.child(static_cast<size_t>(i), "sru").tensor(0, "sru layer");
      auto [h, c] = sru_->layer(i)->forward(x, c0, mask_pad);
      out.state.children.push_back(SequenceState{{c}, {}});
      x = h;
    }
    out.features = x;
    return out;
  }

 private:
  Sru sru_;
};

}  // namespace

void addSruEncoders(const EncoderSink& add) {
  add(
      "sru", "Simple Recurrent Unit stack (Lei et al., 2018); keys: layers, hidden, "
             "bidirectional, dropout, rnn_dropout, highway_bias, rescale, projection, layer_norm, "
             "normalize_after",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'sru'");
        SruOptions o;
        o.input_size = input_size;
        o.num_layers = j.getInt("layers", 2, 1, 64);
        o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
        o.bidirectional = j.getBool("bidirectional", false);
        o.rc_dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);  // inside each layer (sru.h)
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
