// Adds the linear recurrences (docs/linear-recurrences.md): the elementwise ones, all run by
// kernels/linear_recurrence.h, "min_gru", "min_lstm", "sru_linear", "rg_lru", "hgrn"; and the
// matrix-state one, "gla" (kernels/gated_linear_attention.h).
#include <torch/torch.h>

#include <stdexcept>
#include <string>

#include "common/json_options.h"
#include "models/encoders/builtin_encoders.h"
#include "models/encoders/hgrn_encoder.h"
#include "models/encoders/recurrent_stack.h"
#include "models/layers/gla_block.h"
#include "models/layers/min_gru_layer.h"
#include "models/layers/min_lstm_layer.h"
#include "models/layers/rg_lru_block.h"
#include "models/layers/sru_linear_layer.h"

namespace recurlab::models {
namespace {

// The keys every stack of these layers reads: layers, dropout, rnn_dropout.
RecurrentStackOptions stackOptions(JsonOptions& j) {
  RecurrentStackOptions s;
  s.num_layers = j.getInt("layers", 2, 1, 64);
  s.dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
  s.rnn_dropout = j.getDouble("rnn_dropout", 0.0, 0.0, 0.99);
  return s;
}

template <typename Layer, typename Options>
std::shared_ptr<SequenceEncoder> stackOf(int64_t input_size, const RecurrentStackOptions& s,
                                         Options o) {
  return std::make_shared<RecurrentStackEncoder>(
      input_size, s, [=](int64_t, int64_t in) -> std::shared_ptr<StackableLayer> {
        Options layer = o;
        layer.input_size = in;
        return std::make_shared<Layer>(layer);
      });
}

// A stack of residual blocks whose top block alone ends in the final norm: block(in, top)
// builds one from its input width.
template <typename MakeBlock>
std::shared_ptr<SequenceEncoder> blockStackOf(int64_t input_size, const RecurrentStackOptions& s,
                                              MakeBlock block) {
  return std::make_shared<RecurrentStackEncoder>(
      input_size, s, [=](int64_t layer, int64_t in) -> std::shared_ptr<StackableLayer> {
        return block(in, layer == s.num_layers - 1);
      });
}

// The key every elementwise recurrence reads (models/layers/signed_decay.h).
constexpr const char* kNegativeEigenvaluesKey =
    "negative_eigenvalues (true: a_t in (-1, 1) as 2a_t - 1, Grazzi et al. 2025; default false)";

bool negativeEigenvalues(JsonOptions& j) { return j.getBool("negative_eigenvalues", false); }

// minGRU and minLSTM: the same keys, the same options.
const std::string kMinRnnKeys =
    "keys: layers, hidden, bidirectional, log_space (the appendix's positive log-space form), " +
    std::string(kNegativeEigenvaluesKey) + " (not with log_space), dropout, rnn_dropout";

template <typename Layer, typename Options>
EncoderFactory minRnnFactory(const std::string& name) {
  return [name](const nlohmann::json& config,
                int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
    JsonOptions j(config, "model '" + name + "'");
    const RecurrentStackOptions s = stackOptions(j);
    Options o;
    o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
    o.bidirectional = j.getBool("bidirectional", false);
    o.log_space = j.getBool("log_space", false);
    o.negative_eigenvalues = negativeEigenvalues(j);
    j.finish();
    if (o.log_space && o.negative_eigenvalues)
      throw std::invalid_argument(j.where() + ": key 'negative_eigenvalues' = true needs "
                                  "'log_space' false (the log-space form takes log a_t)");
    return stackOf<Layer>(input_size, s, o);
  };
}

}  // namespace

void addLinearRecurrenceEncoders(const EncoderSink& add) {
  add("min_gru",
      "minGRU stack (Feng et al. 2024), gates from the input alone; " + kMinRnnKeys,
      minRnnFactory<MinGruLayerImpl, MinGruLayerOptions>("min_gru"));
  add("min_lstm",
      "minLSTM stack (Feng et al. 2024), normalized gates from the input alone; " + kMinRnnKeys,
      minRnnFactory<MinLstmLayerImpl, MinLstmLayerOptions>("min_lstm"));
  add("sru_linear",
      "the first SRU (Lei et al. 2017, arXiv:1709.02755v1), no c_{t-1} in its gates: linear; "
      "keys: layers, hidden, bidirectional, activation ('tanh'|'identity'), " +
          std::string(kNegativeEigenvaluesKey) + ", dropout, rnn_dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'sru_linear'");
        const RecurrentStackOptions s = stackOptions(j);
        SruLinearLayerOptions o;
        o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
        o.bidirectional = j.getBool("bidirectional", false);
        o.tanh_activation = j.getString("activation", "tanh", {"tanh", "identity"}) == "tanh";
        o.negative_eigenvalues = negativeEigenvalues(j);
        j.finish();
        return stackOf<SruLinearLayerImpl>(input_size, s, o);
      });
  add("rg_lru",
      "RG-LRU stack (De et al. 2024, Griffin/Hawk), causal: each layer Griffin's recurrent block "
      "(RMSNorm, GeLU branch times RG-LRU of a short causal convolution, output projection) in "
      "a residual, a final RMSNorm; keys: layers, hidden, decay_scale (c in a^(c·r), default 8), "
      "conv_width (default 4), " + std::string(kNegativeEigenvaluesKey) +
          " (the input scaled by sqrt(1 - a_t^2) of that a_t), dropout, rnn_dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'rg_lru'");
        const RecurrentStackOptions s = stackOptions(j);
        RgLruBlockOptions o;
        o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
        o.decay_scale = j.getDouble("decay_scale", 8.0, 0.01, 1000.0);
        o.conv_width = j.getInt("conv_width", 4, 1, 64);
        o.negative_eigenvalues = negativeEigenvalues(j);
        j.finish();
        return blockStackOf(input_size, s, [o](int64_t in, bool top) {
          RgLruBlockOptions block = o;
          block.input_size = in;
          block.output_norm = top;
          return std::make_shared<RgLruBlockImpl>(block);
        });
      });
  add("hgrn",
      "HGRN stack (Qin et al. 2023), forget gates with learned lower bounds rising with depth, "
      "real-valued, causal; keys: layers, hidden, dropout, norm ('layer': LayerNorm of the "
      "sigmoid-gated state, the paper's; 'gated_rms': RMSNorm then a Swish gate, "
      "flash-linear-attention's), bias (false: no biases, as flash-linear-attention), " +
          std::string(kNegativeEigenvaluesKey),
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'hgrn'");
        HgrnEncoderOptions o;
        o.input_size = input_size;
        o.num_layers = j.getInt("layers", 2, 1, 64);
        o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
        o.dropout = j.getDouble("dropout", 0.0, 0.0, 0.99);
        o.gated_rms_norm = j.getString("norm", "layer", {"layer", "gated_rms"}) == "gated_rms";
        o.bias = j.getBool("bias", true);
        o.negative_eigenvalues = negativeEigenvalues(j);
        j.finish();
        return std::make_shared<HgrnEncoder>(o);
      });
  add("gla",
      "gated linear attention stack (Yang et al. 2024), a d_k x d_v state per head with a "
      "data-dependent diagonal gate, chunkwise parallel, causal: each layer in a pre-norm "
      "residual (RMSNorm, GLA, residual) as the GLA Transformer's block without its MLP, a "
      "final RMSNorm; keys: layers, hidden, heads "
      "(default 4), expand_k (key width / hidden, 0.5), expand_v (value width / hidden, 1), "
      "gate_rank (the gate's low rank, 16), gate_normalizer (tau in alpha = sigmoid^(1/tau), 16), "
      "chunk (steps per chunk; 0: step by step; -1, the default: step by step on the CPU, "
      "where a fused kernel runs it, chunks of 16 on a GPU), dropout, rnn_dropout",
      [](const nlohmann::json& config, int64_t input_size) -> std::shared_ptr<SequenceEncoder> {
        JsonOptions j(config, "model 'gla'");
        const RecurrentStackOptions s = stackOptions(j);
        GlaLayerOptions o;
        o.hidden_size = j.getInt("hidden", 256, 1, 1 << 16);
        o.heads = j.getInt("heads", 4, 1, 1024);
        o.expand_k = j.getDouble("expand_k", 0.5, 0.0, 64.0);
        o.expand_v = j.getDouble("expand_v", 1.0, 0.0, 64.0);
        o.gate_rank = j.getInt("gate_rank", 16, 1, 1 << 16);
        o.gate_normalizer = j.getDouble("gate_normalizer", 16.0, 1e-3, 1e6);
        o.chunk_length = j.getInt("chunk", kernels::kGlaChunkLengthByDevice,
                                  kernels::kGlaChunkLengthByDevice, 1 << 20);
        j.finish();
        return blockStackOf(input_size, s, [o](int64_t in, bool top) {
          GlaBlockOptions block{o, top};
          block.attention.input_size = in;
          return std::make_shared<GlaBlockImpl>(block);
        });
      });
}

}  // namespace recurlab::models
