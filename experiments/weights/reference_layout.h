#pragma once
// How a model's tensors become a PyTorch reference module's state_dict and back
// (docs/weights.md, "Names"): each reference tensor is blocks of recurlab's tensors joined along
// the last dimension (a fused matrix split, or joined in the reference's order), then
// transposed (recurlab keeps a Linear's weight as (in, out), PyTorch's nn.Linear as (out, in)),
// its rows rotated, negated or given a leading dimension of 1. A reference tensor that recurlab's model lacks is a constant: the
// value that makes the reference compute recurlab's function (an identity projection), which
// import requires exactly. The two directions are exact inverses (copies and permutations).
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "experiments/weights/weights_exchange.h"

namespace recurlab::experiments::weights {

// Block `block` of `blocks` equal blocks of recurlab's tensor `name` along its last dimension.
struct ReferencePiece {
  ReferencePiece(std::string name, int64_t block = 0, int64_t blocks = 1)
      : name(std::move(name)), block(block), blocks(blocks) {}
  std::string name;
  int64_t block;
  int64_t blocks;
};

enum class ReferenceTransform {
  kNone,
  kTranspose,  // a 2-D (in, out) matrix as nn.Linear's (out, in)
  kRollRows,   // row r of recurlab's tensor is row r + 1 (mod rows) of the reference's
  kNegate,     // the reference stores the parameter's negative
  kLeadingUnitDim,  // the reference's tensor has a leading dimension of 1 (one block of a
                    // block-diagonal matrix, one head)
};

struct ReferenceTensor {
  // Made of recurlab's pieces.
  ReferenceTensor(std::string name, std::vector<ReferencePiece> pieces,
                  ReferenceTransform transform = ReferenceTransform::kNone)
      : name(std::move(name)), pieces(std::move(pieces)), transform(transform) {}
  // A tensor recurlab's model lacks: `constant` makes the reference compute recurlab's function.
  ReferenceTensor(std::string name, torch::Tensor constant, std::string constant_meaning)
      : name(std::move(name)), constant(std::move(constant)),
        constant_meaning(std::move(constant_meaning)) {}

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
