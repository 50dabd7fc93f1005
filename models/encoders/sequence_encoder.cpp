#include "models/encoders/sequence_encoder.h"

#include <torch/torch.h>

namespace recurlab::models {

SequenceOutput SequenceEncoder::encode(const torch::Tensor& input, const torch::Tensor& mask_pad,
                                       const SequenceState& state) {
  TORCH_CHECK(input.dim() == 3, "encoder: input must be (length, batch, features), got ",
              input.sizes());
  if (mask_pad.defined())
    TORCH_CHECK(mask_pad.dim() == 2 && mask_pad.size(0) == input.size(0) &&
                    mask_pad.size(1) == input.size(1),
                "encoder: mask_pad must be (length, batch) = (", input.size(0), ", ",
                input.size(1), "), got ", mask_pad.sizes());
  return encodeSequence(input, mask_pad, state);
}

torch::Tensor SequenceEncoder::encode(const torch::Tensor& input, const torch::Tensor& mask_pad) {
  return encode(input, mask_pad, SequenceState{}).features;
}

}  // namespace recurlab::models
