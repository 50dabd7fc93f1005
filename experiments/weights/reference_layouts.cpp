#include "experiments/weights/reference_layouts.h"

#include <stdexcept>

#include "models/encoders/hgrn_encoder.h"
#include "models/encoders/recurrent_stack.h"
#include "models/layers/gla_block.h"
#include "models/layers/min_gru_layer.h"
#include "models/layers/min_lstm_layer.h"
#include "models/layers/rg_lru_block.h"

namespace recurlab::experiments::weights {
namespace {

using Transform = ReferenceTransform;

const char* const kMinRnns = "BorealisAI/minRNNs' ";
const char* const kFla = "fla-org/flash-linear-attention's ";
const char* const kRecurrentGemma = "google-deepmind/recurrentgemma's ";

void require(bool ok, const std::string& encoder, const std::string& message) {
  if (!ok)
    throw std::runtime_error("model '" + encoder + "': " + message +
                             " (docs/weights.md, \"Names\")");
}

std::string layerText(int64_t i) { return "layer " + std::to_string(i); }

// The reference's to_out, absent from recurlab's minGRU and minLSTM: the identity (d, d) and a
// zero bias make the reference's layer output its h_t, as recurlab's does.
void addIdentityOutput(ReferenceLayout& layout, const std::string& p, const torch::Tensor& like,
                       int64_t d) {
  const auto o = like.options();
  const std::string why = "recurlab's layer has no output projection: only the identity maps";
  layout.tensors.push_back({p + "to_out.weight", torch::eye(d, o),
                            "the identity (" + why + ")"});
  layout.tensors.push_back(
      {p + "to_out.bias", torch::zeros({d}, o), "zero (" + why + ")"});
}

// A tensor of the reference's MLP half, which recurlab's blocks lack: a constant (zero weights,
// unit gains) under which that half adds nothing and the residual passes the block's sum on.
void addAbsentMlpTensor(ReferenceLayout& layout, const std::string& name, torch::Tensor value,
                        const std::string& block) {
  const std::string what = value.eq(0).all().item<bool>() ? "zero" : "one";
  layout.tensors.push_back({name, std::move(value),
                            what + " (the MLP half of " + block + ", which recurlab's lacks, "
                                   "adds nothing)"});
}

// Options of a minGRU/minLSTM layer that the reference module cannot take, checked.
template <typename Options>
void requireMinRnnFits(const std::string& encoder, const char* module, int64_t i,
                       const Options& o) {
  require(o.log_space, encoder,
          std::string(kMinRnns) + module + " passes its candidate through g (the log-space "
          "form): set \"log_space\": true");
  require(!o.bidirectional, encoder,
          std::string(kMinRnns) + module + " is causal: set \"bidirectional\": false");
  require(o.input_size == o.hidden_size, encoder,
          std::string(kMinRnns) + module + " maps its width back with to_out, which recurlab's "
          "layer lacks (exported as the identity): " + layerText(i) + " has input " +
          std::to_string(o.input_size) + ", set \"hidden\" to " + std::to_string(o.input_size));
}

const models::RecurrentStackEncoder& stackOf(const torch::nn::Module& m, const std::string& e) {
  const auto* stack = dynamic_cast<const models::RecurrentStackEncoder*>(&m);
  if (!stack) throw std::logic_error("weights: model '" + e + "' is not a recurrent stack");
  return *stack;
}

// minGRU: to_hidden_and_gate = Linear(dim, 2·dim_inner), chunked as [hidden | gate];
// recurlab's weight is (input, 2·d) = [k (the gate) | h̃].
ReferenceLayout minGruLayout(const torch::nn::Module& encoder) {
  const auto& stack = stackOf(encoder, "min_gru");
  ReferenceLayout layout{std::string(kMinRnns) + "minGRU", {}};
  for (int64_t i = 0; i < stack.numLayers(); ++i) {
    const auto& l = dynamic_cast<const models::MinGruLayerImpl&>(*stack.layer(i));
    requireMinRnnFits("min_gru", "minGRU", i, l.options());
    const std::string p = "layers." + std::to_string(i) + ".";
    layout.tensors.push_back({p + "to_hidden_and_gate.weight",
                              {{p + "weight", 1, 2}, {p + "weight", 0, 2}},
                              Transform::kTranspose});
    layout.tensors.push_back(
        {p + "to_hidden_and_gate.bias", {{p + "bias", 1, 2}, {p + "bias", 0, 2}}});
    addIdentityOutput(layout, p, l.weight, l.options().hidden_size);
  }
  return layout;
}

// minLSTM: to_hidden_and_gate = Linear(dim, 3·dim_inner), chunked as [hidden | forget |
// input]; recurlab's weight is (input, 3·d) = [f | i | h̃]. The reference normalizes the gates
// only with use_coeff_norm=True, which recurlab's layer always does.
ReferenceLayout minLstmLayout(const torch::nn::Module& encoder) {
  const auto& stack = stackOf(encoder, "min_lstm");
  ReferenceLayout layout{std::string(kMinRnns) + "minLSTM", {}};
  for (int64_t i = 0; i < stack.numLayers(); ++i) {
    const auto& l = dynamic_cast<const models::MinLstmLayerImpl&>(*stack.layer(i));
    requireMinRnnFits("min_lstm", "minLSTM", i, l.options());
    const std::string p = "layers." + std::to_string(i) + ".";
    const std::string w = p + "weight", b = p + "bias";
    layout.tensors.push_back(
        {p + "to_hidden_and_gate.weight", {{w, 2, 3}, {w, 0, 3}, {w, 1, 3}}, Transform::kTranspose});
    layout.tensors.push_back({p + "to_hidden_and_gate.bias", {{b, 2, 3}, {b, 0, 3}, {b, 1, 3}}});
    addIdentityOutput(layout, p, l.weight, l.options().hidden_size);
  }
  return layout;
}

// HGRNAttention (expand_ratio 1, no short convolution): i_proj, f_proj, g_proj without biases,
// g_norm (FusedRMSNormGated: RMSNorm, then Swish of g), o_proj; recurlab's weight is
// (input, 3·d) = [f | c (the reference's i) | g]. HGRNModel's bound for layer k is
// cumsum(softmax(lower_bounds))[k] - softmax[0], recurlab's the exclusive cumulative sum: the
// same bounds with the reference's rows rotated by one.
ReferenceLayout hgrnLayout(const torch::nn::Module& encoder) {
  const auto* hgrn = dynamic_cast<const models::HgrnEncoder*>(&encoder);
  if (!hgrn) throw std::logic_error("weights: model 'hgrn' is not an HgrnEncoder");
  ReferenceLayout layout{std::string(kFla) + "HGRNAttention", {}};
  layout.tensors.push_back({"lower_bounds", {{"lower_bound_logits"}}, Transform::kRollRows});
  const std::string module = std::string(kFla) + "HGRNAttention";
  for (int64_t i = 0; i < hgrn->lower_bound_logits.size(0); ++i) {
    const auto& o = hgrn->layer(i)->options();
    require(o.gated_rms_norm, "hgrn",
            module + " normalizes with a Swish-gated RMSNorm: set \"norm\": \"gated_rms\"");
    require(!o.bias, "hgrn", module + " has no biases: set \"bias\": false");
    require(!o.negative_eigenvalues, "hgrn",
            module + "'s forget gates lie in (0, 1): set \"negative_eigenvalues\": false");
    require(o.input_size == o.hidden_size, "hgrn",
            module + " maps hidden_size to hidden_size: " + layerText(i) + " has input " +
                std::to_string(o.input_size) + ", set \"hidden\" to " +
                std::to_string(o.input_size));
    const std::string p = "layers." + std::to_string(i) + ".";
    const std::string w = p + "weight";
    layout.tensors.push_back({p + "i_proj.weight", {{w, 1, 3}}, Transform::kTranspose});
    layout.tensors.push_back({p + "f_proj.weight", {{w, 0, 3}}, Transform::kTranspose});
    layout.tensors.push_back({p + "g_proj.weight", {{w, 2, 3}}, Transform::kTranspose});
    layout.tensors.push_back({p + "g_norm.weight", {{p + "norm_weight"}}});
    layout.tensors.push_back({p + "o_proj.weight", {{p + "weight_out"}}, Transform::kTranspose});
  }
  return layout;
}

// GLAModel's blocks and final norm (fla/models/gla/modeling_gla.py: GLABlock = attn_norm, attn,
// mlp_norm, mlp; GLAModel.norm). attn is a GatedLinearAttention (Swish output gate fused with
// the norm, no short convolution, no feature map, num_kv_heads = num_heads): key_dim =
// int(hidden_size · expand_k), value_dim likewise, heads laid out head-major ('(h d)') as
// recurlab's. recurlab's block is the temporal half; the MLP half (GatedMLP, intermediate_size
// 256·ceil(int(hidden·4·2/3) / 256)) is a constant that adds nothing: zero weights, so that
// down_proj gives 0 and the residual passes the attention's sum on.
ReferenceLayout glaLayout(const torch::nn::Module& encoder) {
  const auto& stack = stackOf(encoder, "gla");
  const std::string module = std::string(kFla) + "GLAModel (GLABlock)";
  ReferenceLayout layout{module, {}};
  const int64_t last = stack.numLayers() - 1;
  for (int64_t i = 0; i <= last; ++i) {
    const auto& block = dynamic_cast<const models::GlaBlockImpl&>(*stack.layer(i));
    const auto& o = block.options().attention;
    require(o.input_size == o.hidden_size, "gla",
            module + " adds its input back (a residual of width " +
                std::to_string(o.input_size) + "): " + layerText(i) + " has input " +
                std::to_string(o.input_size) + ", set \"hidden\" to " +
                std::to_string(o.input_size));
    const double d = static_cast<double>(o.hidden_size);
    require(o.keyWidth() == static_cast<int64_t>(d * o.expand_k), "gla",
            module + " has key_dim int(hidden·expand_k) = " +
                std::to_string(static_cast<int64_t>(d * o.expand_k)) + ", recurlab " +
                std::to_string(o.keyWidth()) + ": choose \"expand_k\" and \"heads\" so that "
                "hidden·expand_k is a whole multiple of heads");
    require(o.valueWidth() == static_cast<int64_t>(d * o.expand_v), "gla",
            module + " has value_dim int(hidden·expand_v) = " +
                std::to_string(static_cast<int64_t>(d * o.expand_v)) + ", recurlab " +
                std::to_string(o.valueWidth()) + ": choose \"expand_v\" and \"heads\" so that "
                "hidden·expand_v is a whole multiple of heads");
    const std::string p = "layers." + std::to_string(i) + ".", a = p + "attn.";
    layout.tensors.push_back({p + "attn_norm.weight", {{p + "attn_norm.weight"}}});
    const auto linear = [&](const std::string& name, const std::string& ours) {
      layout.tensors.push_back({a + name, {{a + ours}}, Transform::kTranspose});
    };
    linear("q_proj.weight", "weight_q");
    linear("k_proj.weight", "weight_k");
    linear("v_proj.weight", "weight_v");
    linear("g_proj.weight", "weight_out_gate");
    linear("gk_proj.0.weight", "weight_gate_down");
    linear("gk_proj.1.weight", "weight_gate_up");
    layout.tensors.push_back({a + "gk_proj.1.bias", {{a + "bias_gate"}}});
    linear("o_proj.weight", "weight_out");
    layout.tensors.push_back({a + "g_norm_swish_gate.weight", {{a + "norm_weight"}}});
    const int64_t width = o.hidden_size;
    const int64_t mlp = 256 * ((width * 4 * 2 / 3 + 255) / 256);
    const auto opts = block.attn->weight_q.options();
    const auto mlpTensor = [&](const std::string& name, torch::Tensor value) {
      addAbsentMlpTensor(layout, p + name, std::move(value), "the GLA block");
    };
    mlpTensor("mlp_norm.weight", torch::ones({width}, opts));
    mlpTensor("mlp.gate_proj.weight", torch::zeros({mlp, width}, opts));
    mlpTensor("mlp.up_proj.weight", torch::zeros({mlp, width}, opts));
    mlpTensor("mlp.down_proj.weight", torch::zeros({width, mlp}, opts));
  }
  layout.tensors.push_back({"norm.weight", {{"layers." + std::to_string(last) + ".norm.weight"}}});
  return layout;
}

// Griffin's residual blocks of type RECURRENT (recurrentgemma/torch/modules.py, ResidualBlock
// with num_heads 1 and mlp_expanded_width 3·width, as Griffin's default expansion) and the
// model's final_norm: recurlab's block is the temporal half; the MLP half is a constant that
// adds nothing (zero weights: ffw_down gives 0, the residual passes x on). recurrentgemma's
// RGLRU stores a_param = -Λ (log a_t = -8·r_t·softplus(a_param)) and its gates as
// BlockDiagonalLinear weights (blocks, in, out): one block, recurlab's [W_a | W_x] split.
ReferenceLayout griffinLayout(const torch::nn::Module& encoder) {
  const auto& stack = stackOf(encoder, "rg_lru");
  const std::string module = std::string(kRecurrentGemma) + "ResidualBlock (RECURRENT)";
  ReferenceLayout layout{module, {}};
  const int64_t last = stack.numLayers() - 1;
  for (int64_t i = 0; i <= last; ++i) {
    const auto& block = dynamic_cast<const models::RgLruBlockImpl&>(*stack.layer(i));
    const auto& o = block.options();
    require(o.input_size == o.hidden_size, "rg_lru",
            module + " adds its input back (a residual of width " + std::to_string(o.input_size) +
                "): " + layerText(i) + " has input " + std::to_string(o.input_size) +
                ", set \"hidden\" to " + std::to_string(o.input_size));
    require(o.decay_scale == 8.0, "rg_lru",
            module + " fixes c = 8 in a^(c·r): set \"decay_scale\": 8");
    require(!o.negative_eigenvalues, "rg_lru",
            module + "'s a_t lies in (0, 1): set \"negative_eigenvalues\": false");
    const std::string p = "layers." + std::to_string(i) + ".", t = p + "recurrent_block.";
    const auto same = [&](const std::string& name, const std::string& ours,
                          Transform transform = Transform::kNone) {
      layout.tensors.push_back({name, {{ours}}, transform});
    };
    same(p + "temporal_pre_norm.scale", p + "temporal_pre_norm.scale");
    for (const char* linear : {"linear_y", "linear_x", "linear_out"}) {
      same(t + linear + ".weight", p + linear + ".weight");
      same(t + linear + ".bias", p + linear + ".bias");
    }
    same(t + "conv_1d.w", p + "conv_1d.weight");
    same(t + "conv_1d.b", p + "conv_1d.bias");
    same(t + "rg_lru.a_param", p + "rg_lru.decay_logit", Transform::kNegate);
    const std::string w = p + "rg_lru.weight_gates", b = p + "rg_lru.bias_gates";
    layout.tensors.push_back({t + "rg_lru.input_gate.w", {{w, 1, 2}}, Transform::kLeadingUnitDim});
    layout.tensors.push_back({t + "rg_lru.input_gate.b", {{b, 1, 2}}, Transform::kLeadingUnitDim});
    layout.tensors.push_back({t + "rg_lru.a_gate.w", {{w, 0, 2}}, Transform::kLeadingUnitDim});
    layout.tensors.push_back({t + "rg_lru.a_gate.b", {{b, 0, 2}}, Transform::kLeadingUnitDim});
    const int64_t d = o.hidden_size, e = 3 * d;
    const auto opts = block.linear_x->weight.options();
    const auto zeros = [&](const std::string& name, std::vector<int64_t> shape) {
      addAbsentMlpTensor(layout, p + name, torch::zeros(shape, opts), "Griffin's block");
    };
    zeros("channel_pre_norm.scale", {d});
    zeros("mlp_block.ffw_up.w", {2, d, e});
    zeros("mlp_block.ffw_up.b", {2, 1, 1, e});
    zeros("mlp_block.ffw_down.weight", {d, e});
    zeros("mlp_block.ffw_down.bias", {d});
  }
  layout.tensors.push_back(
      {"final_norm.scale", {{"layers." + std::to_string(last) + ".final_norm.scale"}}});
  return layout;
}

}  // namespace

std::optional<ReferenceLayout> referenceLayout(const std::string& encoder_name,
                                               const torch::nn::Module& encoder) {
  if (encoder_name == "min_gru") return minGruLayout(encoder);
  if (encoder_name == "min_lstm") return minLstmLayout(encoder);
  if (encoder_name == "hgrn") return hgrnLayout(encoder);
  if (encoder_name == "gla") return glaLayout(encoder);
  if (encoder_name == "rg_lru") return griffinLayout(encoder);
  return std::nullopt;
}

}  // namespace recurlab::experiments::weights
