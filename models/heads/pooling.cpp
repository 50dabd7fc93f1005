#include "models/heads/pooling.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <limits>
#include <stdexcept>

namespace recurlab::models {

Pooling choosePooling(const std::string& name, const std::string& encoder,
                      const nlohmann::json& config) {
  if (name == "last") return Pooling::Last;
  if (name == "mean") return Pooling::Mean;
  if (name == "max") return Pooling::Max;
  if (name != "auto")
    throw std::invalid_argument("pooling '" + name +
                                "' is not one of \"auto\", \"last\", \"mean\", \"max\"");
  if (encoder == "cnn" || encoder == "gated_conv") return Pooling::Max;
  const bool bidirectional = config.is_object() && config.contains("bidirectional") &&
                             config.at("bidirectional").is_boolean() &&
                             config.at("bidirectional").get<bool>();
  if ((encoder == "sru" || encoder == "lstm") && bidirectional) return Pooling::Mean;
  return Pooling::Last;
}

torch::Tensor poolOverTime(const torch::Tensor& features, const torch::Tensor& mask_pad,
                           const torch::Tensor& lengths, Pooling pooling) {
  // Encoders that change the number of steps get no mask: pool over all their steps.
  const bool masked = mask_pad.defined() && features.size(0) == mask_pad.size(0);
  switch (pooling) {
    case Pooling::Last: {
      if (!masked) return features[-1];
      auto index = (lengths - 1).clamp_min(0).view({1, -1, 1}).expand(
          {1, features.size(1), features.size(2)});
      return features.gather(0, index).squeeze(0);
    }
    case Pooling::Mean: {
      if (!masked) return features.mean(0);
      auto real = (~mask_pad).unsqueeze(2).to(features.dtype());
      return (features * real).sum(0) / real.sum(0).clamp_min(1.0);
    }
    case Pooling::Max: {
      if (!masked) return std::get<0>(features.max(0));
      auto f = features.masked_fill(mask_pad.unsqueeze(2),
                                    -std::numeric_limits<float>::infinity());
      return std::get<0>(f.max(0));
    }
  }
  throw std::logic_error("poolOverTime: unknown pooling");
}

}  // namespace recurlab::models
