#pragma once
// Registry name -> factory for sequence encoders, so configs name models ("sru", "lstm",
// "cnn", "qrnn", ...). Each model family adds itself in registerBuiltinEncoders()
// (registry.cpp): explicit calls, because static registrars are dropped by the linker from
// a static library.
#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

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

void registerEncoder(const std::string& name, const std::string& description,
                     EncoderFactory factory);
std::shared_ptr<SequenceEncoder> makeEncoder(const std::string& name,
                                             const nlohmann::json& config, int64_t input_size);
std::vector<std::string> encoderNames();
std::string encoderDescription(const std::string& name);
// Every registered encoder, one "  name: description" line each (for the drivers' --help).
std::string encoderListing();

}  // namespace recurlab::models
