#pragma once
// One SRU layer (Lei et al. 2018, §2; parameter names and layouts as asappresearch/sru v2.6's
// SRUCell, so weights map one to one):
//   weight       (d_in', out·k)  k sub-matrices interleaved per unit (d_in' = projection or input)
//   weight_proj  (input, projection_size)     only with 0 < projection_size < min(input, out)
//   weight_c     (2·out)  peephole vectors [v_f | v_r]
//   bias         (2·out)  [b_f | b_r]; b_r starts at the highway bias
//   layer_norm   LayerNorm over the input (pre) or over h (normalize_after)
//   scale_x      buffer holding α (for the reference's names; the layer runs with alpha())
#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <optional>
#include <utility>

namespace recurlab::models {

struct SruLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;  // d per direction
  bool bidirectional = false;
  bool has_skip_term = true;
  bool rescale = false;       // scaling correction α = sqrt(1 + 2·e^b)
  double highway_bias = 0.0;  // initial b_r
  double rc_dropout = 0.0;    // variational mask on the r⊙c branch (config key "dropout")
  double rnn_dropout = 0.0;   // variational mask on the input
  int64_t projection_size = 0;
  bool layer_norm = false;
  bool normalize_after = false;
  std::optional<double> weight_c_init;  // U(±a); default U(±sqrt(3))·sqrt(0.5)

  int64_t outputSize() const { return (bidirectional ? 2 : 1) * hidden_size; }
  // k: 4 when the skip needs its own projection (input size differs from the output).
  int64_t numMatrices() const { return has_skip_term && input_size != outputSize() ? 4 : 3; }
  bool usesProjection() const {
    return projection_size > 0 && projection_size < input_size &&
           projection_size < outputSize();
  }
  double alpha() const;  // α used at run time (1 unless rescale with k = 3)
};

class SruLayerImpl : public torch::nn::Module {
 public:
  explicit SruLayerImpl(SruLayerOptions options);

  void reset_parameters();

  // input (L, B, input_size); c0 (B, out) or undefined; mask_pad (L, B), nonzero = pad.
  // Returns (h (L, B, out), last c (B, out)).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  const torch::Tensor& c0 = {},
                                                  const torch::Tensor& mask_pad = {});

  const SruLayerOptions& options() const { return options_; }
  // The skip scale α the recurrence runs with: options().alpha() as the scale_x buffer holds it
  // (in the default dtype), fixed at construction, so forward never reads a device tensor.
  double alpha() const { return alpha_; }

  torch::Tensor weight, weight_proj, weight_c, bias, scale_x;
  torch::nn::LayerNorm layer_norm{nullptr};

 private:
  SruLayerOptions options_;
  double alpha_ = 1.0;
};
TORCH_MODULE(SruLayer);

}  // namespace recurlab::models
