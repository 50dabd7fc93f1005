#pragma once
// How a model's tensors become a PyTorch reference module's state_dict and back
// (docs/weights.md, "Names"): each reference tensor is blocks of recurlab's tensors joined along
// the last dimension (a fused matrix split, or joined in the reference's order), then
// transposed (recurlab keeps a Linear's weight as (in, out), PyTorch's nn.Linear as (out, in))
// or its rows rotated. A reference tensor that recurlab's model lacks is a constant: the
// value that makes the reference compute recurlab's function (an identity projection), which
// import requires exactly. The two directions are exact inverses (copies and permutations).
#include <torch/torch.h>

#include <string>
#include <vector>

#include "experiments/weights/weights_exchange.h"

namespace recurlab::experiments::weights {

// Block `block` of `blocks` equal blocks of recurlab's tensor `name` along its last dimension.
struct ReferencePiece {
  std::string name;
  int64_t block = 0;
  int64_t blocks = 1;
};

enum class ReferenceTransform {
  kNone,
  kTranspose,  // a 2-D (in, out) matrix as nn.Linear's (out, in)
  kRollRows,   // row r of recurlab's tensor is row r + 1 (mod rows) of the reference's
};

struct ReferenceTensor {
  std::string name;                    // the reference's
  std::vector<ReferencePiece> pieces;  // joined in this order; empty for a constant
  ReferenceTransform transform = ReferenceTransform::kNone;
  torch::Tensor constant;              // defined: a tensor recurlab's model lacks
  std::string constant_meaning;        // for the error when a file holds another value
};

struct ReferenceLayout {
  std::string reference;  // the module, for errors: "BorealisAI/minRNNs' minGRU"
  std::vector<ReferenceTensor> tensors;  // in the reference's state_dict order
};

// recurlab's tensors (namedWeights order) as the reference's; throws std::logic_error if the
// layout leaves one of them out or names one the model lacks.
NamedTensors toReference(const ReferenceLayout& layout, const NamedTensors& recurlab);

// The reference's tensors, each named and shaped as toReference gives them, as recurlab's
// (in the order of `like`, the model's namedWeights, whose shapes they take). Throws
// std::runtime_error naming `source` and the tensor when a constant holds another value.
NamedTensors fromReference(const ReferenceLayout& layout, const NamedTensors& reference,
                           const NamedTensors& like, const std::string& source);

}  // namespace recurlab::experiments::weights
