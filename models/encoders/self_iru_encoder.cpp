// Adds "self_iru": a stack of autoregressive Self-IRU layers (Zhang et al., 2021).
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/encoders/recurrent_stack.h"
#include "models/layers/self_iru.h"

namespace recurlab::models {

void addSelfIruEncoders(const EncoderSink& add) {
  add(
      "self_iru",
      "Self-IRU stack (Zhang et al., 2021), 2^(depth+1)-1 cells per layer; keys: depth, layers, "
      "hidden, dropout, rnn_dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'self_iru'");
        RecurrentStackOptions s;
        s.num_layers = j.getInt("layers", 2, 1, 64);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const int64_t depth = j.getInt("depth", 1, 0, 8);
        s.dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        s.rnn_dropout = j.getDouble("rnn_dropout", 0.0, 0.0, 0.99);
        j.finish();
        return std::make_shared<RecurrentStackEncoder>(
            input_size, s, [=](int64_t, int64_t in) -> std::shared_ptr<StackableLayer> {
              return std::make_shared<SelfIruLayerImpl>(SelfIruLayerOptions{in, hidden, depth});
            });
      });
}

}  // namespace recurlab::models
