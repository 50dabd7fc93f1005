// Adds the rational recurrences of Peng et al. (2018), App. D and the n-gram RCNN of
// Proposition 12: "rrnn_b", "rrnn_bmp" (max-plus), "rrnn_c", "rrnn_f", "ngram".
#include <torch/torch.h>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/encoders/recurrent_stack.h"
#include "models/layers/ngram_rcnn_layer.h"
#include "models/layers/rational_rnn_layer.h"

namespace recurlab::models {
namespace {

constexpr const char* kStackKeys = "keys: layers, hidden, output_gate, dropout, rnn_dropout";

RecurrentStackOptions readStack(JsonOptions& j) {
  RecurrentStackOptions s;
  s.num_layers = j.getInt("layers", 2, 1, 64);
  s.dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
  s.rnn_dropout = j.getDouble("rnn_dropout", 0.0, 0.0, 0.99);
  return s;
}

void addRational(const EncoderSink& add, const std::string& name, const std::string& what,
                      kernels::RationalPattern pattern, kernels::Semiring semiring) {
  add(
      name, what + "; " + kStackKeys,
      [name, pattern, semiring](const nlohmann::json& config,
                                int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model '" + name + "'");
        const RecurrentStackOptions s = readStack(j);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const bool gate = j.getBool("output_gate", false);
        j.finish();
        return std::make_shared<RecurrentStackEncoder>(
            input_size, s, [=](int64_t, int64_t in) -> std::shared_ptr<StackableLayer> {
              return std::make_shared<RationalRnnLayerImpl>(
                  RationalRnnLayerOptions{in, hidden, pattern, semiring, gate});
            });
      });
}

}  // namespace

void addRationalEncoders(const EncoderSink& add) {
  using kernels::RationalPattern;
  using kernels::Semiring;
  addRational(add, "rrnn_b", "RRNN(B), Peng et al. (2018), eq. 23", RationalPattern::B,
                   Semiring::PlusTimes);
  addRational(add, "rrnn_bmp", "RRNN(B)m+ (max-plus semiring), Peng et al. (2018), eq. 24",
                   RationalPattern::B, Semiring::MaxPlus);
  addRational(add, "rrnn_c", "RRNN(C), Peng et al. (2018), eq. 25", RationalPattern::C,
                   Semiring::PlusTimes);
  addRational(add, "rrnn_f", "RRNN(F), Peng et al. (2018), eq. 26 (26g fixed)", RationalPattern::F,
                   Semiring::PlusTimes);
  add(
      "ngram",
      "n-gram RCNN, Peng et al. (2018), Prop. 12; keys: n (1-4), layers, hidden, output_gate, "
      "dropout, rnn_dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'ngram'");
        const RecurrentStackOptions s = readStack(j);
        const int64_t hidden = j.getInt("hidden", 256, 1, 1 << 16);
        const int64_t n = j.getInt("n", 2, 1, 4);
        const bool gate = j.getBool("output_gate", false);
        j.finish();
        return std::make_shared<RecurrentStackEncoder>(
            input_size, s, [=](int64_t, int64_t in) -> std::shared_ptr<StackableLayer> {
              return std::make_shared<NgramRcnnLayerImpl>(NgramRcnnLayerOptions{in, hidden, n, gate});
            });
      });
}

}  // namespace recurlab::models
