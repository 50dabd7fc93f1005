#pragma once
// One rational-recurrence layer (Peng et al., 2018, App. D): RRNN(B) eq. 23, RRNN(B)m+ eq. 24,
// RRNN(C) eq. 25, RRNN(F) eq. 26 (26g fixed), each with the optional output gate; the fused kernel
// is kernels/rational_recurrence.h (it documents the math, the semirings and the tie rule).
//   U = X·W + b, W (input, d·k) interleaved per unit like SRU; b is zero on the z columns
//   (eqs. 23b/25b/26b have no bias) and learned on the gate columns f (and o).
//   weight_final (3d) = [b_r | b_p1 | b_p2] for RRNN(F), zeros at start (r = p = 1/2, as the
//   reference code).
// Init: W ~ U(±sqrt(3/input)) (variance 1/input, as our SRU); gate biases 0.
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <utility>

#include "kernels/rational_recurrence.h"
#include "models/layers/stackable_layer.h"

namespace recurlab::models {

struct RationalRnnLayerOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  kernels::RationalPattern pattern = kernels::RationalPattern::B;
  kernels::Semiring semiring = kernels::Semiring::PlusTimes;
  bool output_gate = false;

  kernels::RationalRecurrenceOptions kernelOptions() const {
    return {hidden_size, pattern, semiring, output_gate};
  }
};

class RationalRnnLayerImpl : public StackableLayer {
 public:
  explicit RationalRnnLayerImpl(RationalRnnLayerOptions options);
  void reset_parameters();

  // input (L, B, input_size); c0 (B, S·d) or undefined (semiring zero); mask_pad (L, B).
  // Returns (h (L, B, d), last states (B, S·d)).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  const torch::Tensor& c0 = {},
                                                  const torch::Tensor& mask_pad = {});
  torch::Tensor preActivations(const torch::Tensor& input) const;  // U (L, B, d·k)

  // State: [last states (B, S·d)], as forward's c0. Causal.
  SequenceOutput forwardSequence(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                 const SequenceState& state) override {
    auto [h, c] = forward(input, state.tensor(0, "RationalRnnLayer"), mask_pad);
    return {h, SequenceState{{c}, {}}};
  }
  int64_t outputSize() const override { return options_.hidden_size; }
  bool causal() const override { return true; }
  const RationalRnnLayerOptions& options() const { return options_; }

  torch::Tensor weight;        // (input, d·k)
  torch::Tensor gate_bias;     // (d, k - S): biases of [f1, (f2), (o)] per unit
  torch::Tensor weight_final;  // (3d) pattern F only

 private:
  RationalRnnLayerOptions options_;
};
TORCH_MODULE(RationalRnnLayer);

}  // namespace recurlab::models
