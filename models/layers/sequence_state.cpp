#include "models/layers/sequence_state.h"

#include <torch/torch.h>

namespace recurlab::models {

SequenceState SequenceState::detached() const {
  SequenceState s;
  for (const auto& t : tensors) s.tensors.push_back(t.defined() ? t.detach() : t);
  for (const auto& c : children) s.children.push_back(c.detached());
  return s;
}

SequenceState SequenceState::indexSelect(const at::Tensor& index) const {
  SequenceState s;
  for (const auto& t : tensors) s.tensors.push_back(t.defined() ? t.index_select(0, index) : t);
  for (const auto& c : children) s.children.push_back(c.indexSelect(index));
  return s;
}

const SequenceState& SequenceState::child(size_t i, const char* who) const {
  static const SequenceState kEmpty;
  if (empty()) return kEmpty;
  TORCH_CHECK(i < children.size(), who, ": the state has ", children.size(),
              " parts, expected at least ", i + 1,
              " (a state from another model or configuration?)");
  return children[i];
}

at::Tensor SequenceState::tensor(size_t i, const char* who) const {
  if (empty()) return {};
  TORCH_CHECK(i < tensors.size(), who, ": the state holds ", tensors.size(),
              " tensors, expected at least ", i + 1,
              " (a state from another model or configuration?)");
  return tensors[i];
}

at::Tensor lastRealSteps(const at::Tensor& previous, const at::Tensor& input,
                         const at::Tensor& mask_pad, int64_t count) {
  const int64_t L = input.size(0), B = input.size(1), C = input.size(2);
  torch::Tensor before;
  if (previous.defined()) {
    TORCH_CHECK(previous.dim() == 3 && previous.size(0) == B && previous.size(1) == count &&
                    previous.size(2) == C,
                "carried input steps must be (batch = ", B, ", ", count, ", ", C, "), got ",
                previous.sizes());
    before = previous.transpose(0, 1);
  } else {
    before = torch::zeros({count, B, C}, input.options());
  }
  const torch::Tensor context = torch::cat({before, input});  // (count + L, B, C)
  torch::Tensor lengths = mask_pad.defined()
                              ? mask_pad.logical_not().sum(0).to(torch::kLong)
                              : torch::full({B}, L, torch::dtype(torch::kLong));
  lengths = lengths.to(input.device());
  // Real steps of row b sit at context rows count .. count + lengths[b] - 1; the last `count`
  // context rows before row count + lengths[b] are the ones to keep.
  const torch::Tensor index =
      (lengths.view({1, B}) + torch::arange(count, lengths.options()).view({count, 1}))
          .view({count, B, 1})
          .expand({count, B, C});
  return context.gather(0, index).transpose(0, 1).contiguous();
}

}  // namespace recurlab::models
