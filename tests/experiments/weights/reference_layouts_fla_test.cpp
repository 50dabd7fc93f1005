// The fla-org/flash-linear-attention layouts (experiments/weights/reference_layouts.h) carry the
// model's function, not only its names: the exported tensors, run through that reference's
// forward pass written here step by step from its source (fla/layers/hgrn.py with
// fla/models/hgrn/modeling_hgrn.py's lower bounds; fla/models/gla/modeling_gla.py with
// fla/layers/gla.py and fla/modules/mlp.py), give recurlab's outputs. The package itself cannot
// run here: its layers call its Triton GPU kernels. A swapped block, a missing transpose, the
// lower bounds' rows unrotated or a norm's gain not moved by one change the outputs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <map>
#include <string>

#include "experiments/weights/weights_exchange.h"
#include "models/registry.h"

namespace recurlab::experiments::weights {
namespace {

namespace F = torch::nn::functional;
using Tensor = torch::Tensor;
using StateDict = std::map<std::string, Tensor>;

StateDict stateDict(const SafetensorsContents& contents) {
  StateDict out;
  for (const auto& t : contents.tensors) out[t.name] = toTorchTensor(t);
  return out;
}

// nn.Linear without bias: x (L, B, in) W^T, W (out, in).
Tensor noBiasLinear(const Tensor& x, const Tensor& w) { return torch::matmul(x, w.t()); }

// fla's RMSNorm over the last dimension.
Tensor rmsNorm(const Tensor& x, const Tensor& w, double eps) {
  return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * w;
}

// fla's FusedRMSNormGated with the Swish gate (the layers' default eps 1e-5; GLAModel passes
// its config's norm_eps, 1e-6).
Tensor rmsNormSwishGate(const Tensor& o, const Tensor& g, const Tensor& w, double eps = 1e-5) {
  return rmsNorm(o, w, eps) * F::silu(g);
}

// HGRNModel's layers (their attention part) on x (L, B, D).
Tensor flaHgrn(StateDict& s, Tensor x, int64_t layers) {
  Tensor bounds = torch::softmax(s["lower_bounds"], 0);
  bounds = torch::cumsum(bounds, 0) - bounds[0];
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    Tensor i = noBiasLinear(x, s[p + "i_proj.weight"]);
    Tensor f = F::logsigmoid(noBiasLinear(x, s[p + "f_proj.weight"]));
    if (l > 0)  // "the lower bound for the first layer is zero"
      f = torch::logaddexp(bounds[l].log(), torch::log1p(-bounds[l]) + f);
    i = F::silu(i) * (1 - f.exp());
    Tensor h = torch::zeros_like(i[0]);
    std::vector<Tensor> o;
    for (int64_t t = 0; t < x.size(0); ++t) o.push_back(h = f[t].exp() * h + i[t]);
    const Tensor g = noBiasLinear(x, s[p + "g_proj.weight"]);
    x = noBiasLinear(rmsNormSwishGate(torch::stack(o), g, s[p + "g_norm.weight"]), s[p + "o_proj.weight"]);
  }
  return x;
}

// GLAModel's blocks and final norm on x (L, B, D), norm_eps 1e-6, as GLABlock.forward without
// the fused norm: x + attn(attn_norm(x)), then + mlp(mlp_norm(·)); attn a GatedLinearAttention
// (num_kv_heads = num_heads), mlp a GatedMLP (down_proj(silu(gate_proj(·)) · up_proj(·))).
Tensor flaGla(StateDict& s, Tensor x, int64_t layers, int64_t heads, double normalizer) {
  const double eps = 1e-6;
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".", a = p + "attn.";
    const int64_t L = x.size(0), B = x.size(1);
    const auto split = [&](const Tensor& t) { return t.view({L, B, heads, -1}); };  // (h d)
    const Tensor u = rmsNorm(x, s[p + "attn_norm.weight"], eps);
    const Tensor q = split(noBiasLinear(u, s[a + "q_proj.weight"]));
    const Tensor k = split(noBiasLinear(u, s[a + "k_proj.weight"]));
    const Tensor v = split(noBiasLinear(u, s[a + "v_proj.weight"]));
    const Tensor gk = split(F::logsigmoid(torch::matmul(noBiasLinear(u, s[a + "gk_proj.0.weight"]),
                                                         s[a + "gk_proj.1.weight"].t()) +
                                          s[a + "gk_proj.1.bias"]) /
                            normalizer);
    const double scale = std::pow(static_cast<double>(q.size(3)), -0.5);
    Tensor state = torch::zeros({B, heads, k.size(3), v.size(3)}, x.options());
    std::vector<Tensor> o;
    for (int64_t t = 0; t < L; ++t) {
      state = gk[t].exp().unsqueeze(-1) * state + k[t].unsqueeze(-1) * v[t].unsqueeze(-2);
      o.push_back(torch::matmul((q[t] * scale).unsqueeze(-2), state).squeeze(-2));
    }
    const Tensor g = split(noBiasLinear(u, s[a + "g_proj.weight"]));
    const Tensor gated =
        rmsNormSwishGate(torch::stack(o), g, s[a + "g_norm_swish_gate.weight"], eps);
    x = x + noBiasLinear(gated.reshape({L, B, -1}), s[a + "o_proj.weight"]);
    const Tensor m = rmsNorm(x, s[p + "mlp_norm.weight"], eps);
    x = x + noBiasLinear(F::silu(noBiasLinear(m, s[p + "mlp.gate_proj.weight"])) *
                             noBiasLinear(m, s[p + "mlp.up_proj.weight"]),
                         s[p + "mlp.down_proj.weight"]);
  }
  return rmsNorm(x, s["norm.weight"], eps);
}

// recurlab's encoder with random weights (float64), and its output on a random input.
struct EncoderRun {
  std::shared_ptr<models::SequenceEncoder> model;
  Tensor x, y;
};

EncoderRun runEncoder(const std::string& name, const nlohmann::json& config, int64_t dim) {
  torch::manual_seed(7);
  EncoderRun r{models::makeEncoder(name, config, dim), {}, {}};
  r.model->to(torch::kDouble);
  r.model->eval();
  torch::NoGradGuard no_grad;
  for (auto& p : r.model->parameters()) p.normal_(0.0, 0.5);
  r.x = torch::randn({9, 2, dim}, torch::kDouble);
  r.y = r.model->encode(r.x, Tensor());
  return r;
}

TEST(ReferenceLayoutsFlaTest, TheExportedHgrnComputesRecurlabsOutputs) {
  const int64_t layers = 3;
  EncoderRun r = runEncoder("hgrn", {{"layers", layers}, {"hidden", 6}, {"norm", "gated_rms"}, {"bias", false}}, 6);
  StateDict s = stateDict(exportEncoderWeights(*r.model, "hgrn"));
  torch::NoGradGuard no_grad;
  EXPECT_LE((flaHgrn(s, r.x, layers) - r.y).abs().max().item<double>(), 1e-12);
}

TEST(ReferenceLayoutsFlaTest, TheExportedGlaComputesRecurlabsOutputs) {
  const int64_t layers = 2, heads = 2;
  EncoderRun r = runEncoder("gla",
              {{"layers", layers}, {"hidden", 8}, {"heads", heads}, {"expand_k", 1.0},
               {"expand_v", 2.0}, {"gate_rank", 3}, {"gate_normalizer", 8.0}, {"chunk", 4}},
              8);
  StateDict s = stateDict(exportEncoderWeights(*r.model, "gla"));
  torch::NoGradGuard no_grad;
  EXPECT_LE((flaGla(s, r.x, layers, heads, 8.0) - r.y).abs().max().item<double>(), 1e-12);
}

}  // namespace
}  // namespace recurlab::experiments::weights
