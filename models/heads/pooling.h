#pragma once
// Pooling over time: how a sentence-level head (models/heads/text_classifier.h) turns an
// encoder's per-step features into one vector per sentence.
#include <ATen/core/Tensor.h>
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace recurlab::models {

enum class Pooling { Last, Mean, Max };

// "last", "mean" or "max"; "auto" picks by the encoder: max over time for the convolutional
// ones ("cnn", "gated_conv"), the mean for a bidirectional recurrent one ("sru" or "lstm" with
// "bidirectional": true; its backward direction ends at the first word), the last real step
// otherwise. `encoder` and `config` are the registry name and model config
// (models/registry.h). Throws std::invalid_argument naming a bad pooling name.
Pooling choosePooling(const std::string& name, const std::string& encoder,
                      const nlohmann::json& config);

// Pools per-step features (L, B, D) to (B, D) over the real steps of each sentence: mask_pad
// (L, B) true = pad, lengths (B). Features of another length than the mask pool over all steps.
at::Tensor poolOverTime(const at::Tensor& features, const at::Tensor& mask_pad,
                        const at::Tensor& lengths, Pooling pooling);

}  // namespace recurlab::models
