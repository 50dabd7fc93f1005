#pragma once
// Registry name -> factory for sequence encoders, so configs name models ("sru", "lstm",
// "cnn", "qrnn", ...). The built-in families are collected on first use
// (models/encoders/builtin_encoders.h): explicit calls, because static registrars are dropped
// by the linker from a static library. registerEncoder adds one of your own.
#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/encoders/encoder_entry.h"

namespace recurlab::models {

void registerEncoder(const std::string& name, const std::string& description,
                     EncoderFactory factory);
std::shared_ptr<SequenceEncoder> makeEncoder(const std::string& name,
                                             const nlohmann::json& config, int64_t input_size);
std::vector<std::string> encoderNames();
std::string encoderDescription(const std::string& name);
// Every registered encoder, one "  name: description" line each, under a heading naming the
// config keys (for the drivers' --help).
std::string encoderListing();

}  // namespace recurlab::models
