#pragma once
// The state a sequence layer or stack carries from one segment of a sequence to the next (a
// language model's BPTT segments, a decoder's steps). A layer keeps its own tensors in
// `tensors`; a stack or a tree of cells keeps one child state per part. Every tensor is
// batch-first (B, ...), so a state can be detached or reordered along the batch as a whole.
// An empty state means "the start of a sequence" (zeros, or the semiring's zero).
#include <ATen/core/Tensor.h>

#include <vector>

namespace recurlab::models {

struct SequenceState {
  std::vector<at::Tensor> tensors;
  std::vector<SequenceState> children;

  bool empty() const { return tensors.empty() && children.empty(); }
  // The same state cut from the autograd graph (the end of a BPTT segment).
  SequenceState detached() const;
  // Batch rows `index` (int64 on the state's device), e.g. to follow beam search hypotheses.
  SequenceState indexSelect(const at::Tensor& index) const;
  // Child i, or an empty state when this state is empty; throws naming `who` when this state
  // has children but not i + 1 of them.
  const SequenceState& child(size_t i, const char* who) const;
  // Tensor i, or an undefined tensor when this state is empty; throws naming `who` otherwise.
  at::Tensor tensor(size_t i, const char* who) const;
};

// What an encoder or a stackable layer returns: per-step features (L, B, D) and the state
// after the last real (non-pad) step of each sequence.
struct SequenceOutput {
  at::Tensor features;
  SequenceState state;
};

// The last `count` real steps of each sequence of the context [previous ; input]:
// previous (B, count, C) or undefined (zeros), input (L, B, C) right-padded, mask_pad (L, B)
// nonzero = pad or undefined. Returns (B, count, C). What a convolution of width count + 1 or
// a QRNN of window 2 carries to the next segment.
at::Tensor lastRealSteps(const at::Tensor& previous, const at::Tensor& input,
                         const at::Tensor& mask_pad, int64_t count);

}  // namespace recurlab::models
