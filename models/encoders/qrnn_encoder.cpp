// Adds "qrnn": a multi-layer QRNN (window 1 or 2, fo- or f-pooling, zoneout).
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/encoders/recurrent_stack.h"
#include "models/layers/qrnn_layer.h"

namespace recurlab::models {

void addQrnnEncoders(const EncoderSink& add) {
  add(
      "qrnn", "QRNN stack (Bradbury et al. 2017); keys: layers, hidden, window (1|2), "
              "pooling ('fo'|'f'), zoneout, dropout, rnn_dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'qrnn'");
        RecurrentStackOptions s;
        s.num_layers = j.getInt("layers", 2, 1, 64);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const int64_t window = j.getInt("window", 1, 1, 2);
        const bool fo = j.getString("pooling", "fo", {"fo", "f"}) == "fo";
        const double zoneout = j.getDouble("zoneout", 0.0, 0.0, 0.99);
        s.dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        s.rnn_dropout = j.getDouble("rnn_dropout", 0.0, 0.0, 0.99);
        j.finish();
        return std::make_shared<RecurrentStackEncoder>(
            input_size, s, [=](int64_t, int64_t in) -> std::shared_ptr<StackableLayer> {
              return std::make_shared<QrnnLayerImpl>(QrnnLayerOptions{in, hidden, window, fo, zoneout});
            });
      });
}

}  // namespace recurlab::models
