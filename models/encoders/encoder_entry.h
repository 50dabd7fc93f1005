#pragma once
// What an encoder family hands the registry (models/registry.h): a name, a one-line
// description listing its config keys, and a factory. The families know nothing of the
// registry; it collects them (models/encoders/builtin_encoders.h).
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "models/encoders/sequence_encoder.h"

namespace recurlab::models {

// `config` holds the model's own keys (e.g. {"layers": 2, "hidden": 256, "dropout": 0.5});
// a factory rejects unknown keys and bad values with an error naming the key.
using EncoderFactory =
    std::function<std::shared_ptr<SequenceEncoder>(const nlohmann::json& config,
                                                   int64_t input_size)>;

struct EncoderEntry {
  std::string name;
  std::string description;
  EncoderFactory factory;
};

// Where a family adds its encoders.
using EncoderSink = std::function<void(const std::string& name, const std::string& description,
                                       EncoderFactory factory)>;

}  // namespace recurlab::models
