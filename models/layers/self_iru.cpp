#include "models/layers/self_iru.h"

#include <torch/torch.h>

#include <cmath>

#include "kernels/qrnn_pooling.h"

namespace recurlab::models {

SelfIruCellImpl::SelfIruCellImpl(int64_t input_size, int64_t hidden_size, int64_t levels_below)
    : input_size_(input_size), hidden_size_(hidden_size), levels_below_(levels_below) {
  TORCH_CHECK(input_size > 0 && hidden_size > 0,
              "SelfIruCell: input_size and hidden_size must be positive, got ", input_size,
              " and ", hidden_size);
  TORCH_CHECK(levels_below >= 0, "SelfIruCell: recursion depth must be >= 0, got ", levels_below);
  const double a = std::sqrt(3.0 / static_cast<double>(input_size));
  weight = register_parameter("weight", torch::empty({input_size, 3 * hidden_size}).uniform_(-a, a));
  bias = register_parameter("bias", torch::zeros({3 * hidden_size}));
  if (levels_below > 0) {
    gate_weight = register_parameter("gate_weight", torch::empty({input_size, 2}).uniform_(-a, a));
    gate_bias = register_parameter("gate_bias", torch::zeros({2}));
    child_f = register_module("child_f",
                              std::make_shared<SelfIruCellImpl>(input_size, hidden_size, levels_below - 1));
    child_o = register_module("child_o",
                              std::make_shared<SelfIruCellImpl>(input_size, hidden_size, levels_below - 1));
  }
}

int64_t SelfIruCellImpl::numCells() const {
  return 1 + (child_f ? child_f->numCells() + child_o->numCells() : 0);
}

SequenceOutput SelfIruCellImpl::forwardSequence(const torch::Tensor& input,
                                                const torch::Tensor& mask_pad,
                                                const SequenceState& state) {
  TORCH_CHECK(input.dim() == 3 && input.size(2) == input_size_,
              "SelfIruCell: input must be (length, batch, ", input_size_, "), got ",
              input.sizes());
  const int64_t L = input.size(0), B = input.size(1), d = hidden_size_;
  const torch::Tensor flat = input.reshape({L * B, input_size_});
  torch::Tensor u = torch::addmm(bias, flat, weight).view({L, B, d, 3});
  SequenceOutput out;
  if (child_f) {
    const torch::Tensor tau = torch::sigmoid(torch::addmm(gate_bias, flat, gate_weight))
                                  .view({L, B, 1, 2});
    const torch::Tensor t1 = tau.select(3, 0), t2 = tau.select(3, 1);
    SequenceOutput from_f =
        child_f->forwardSequence(input, mask_pad, state.child(0, "SelfIruCell"));
    SequenceOutput from_o =
        child_o->forwardSequence(input, mask_pad, state.child(1, "SelfIruCell"));
    const torch::Tensor f = t1 * from_f.features + (1 - t1) * u.select(3, 1);
    const torch::Tensor o = t2 * from_o.features + (1 - t2) * u.select(3, 2);
    u = torch::stack({u.select(3, 0), f, o}, 3);
    out.state.children = {std::move(from_f.state), std::move(from_o.state)};
  }
  auto res = kernels::qrnnPooling(u.reshape({L, B, 3 * d}), state.tensor(0, "SelfIruCell"), {},
                                  mask_pad, {d, true});
  out.features = hasResidual() ? res[0] + input : res[0];
  out.state.tensors = {res[1]};
  return out;
}

SelfIruLayerImpl::SelfIruLayerImpl(SelfIruLayerOptions options) : options_(options) {
  TORCH_CHECK(options_.depth >= 0 && options_.depth <= 8,
              "SelfIruLayer: depth must be in [0, 8] (2^(depth+1) - 1 cells), got ",
              options_.depth);
  root = register_module("root",
                         SelfIruCell(options_.input_size, options_.hidden_size, options_.depth));
}

}  // namespace recurlab::models
