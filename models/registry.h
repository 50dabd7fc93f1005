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
                     EncoderFactory factory, EncoderStateSize state_size = {});
std::shared_ptr<SequenceEncoder> makeEncoder(const std::string& name,
                                             const nlohmann::json& config, int64_t input_size);
std::vector<std::string> encoderNames();
// The entry's state size (encoder_entry.h) or, without one, the numbers in the state that
// encode() returns after `length` steps of one sequence: LSTM's h and c, an SRU's c, a
// convolution's last inputs, a Transformer's keys and values (growing with the length). 0 for
// an encoder that carries none (a non-causal one).
int64_t encoderStateSize(const std::string& name, const nlohmann::json& config,
                         int64_t input_size, int64_t length);
// The same for an entry in hand (registered or not).
int64_t encoderStateSize(const EncoderEntry& entry, const nlohmann::json& config,
                         int64_t input_size, int64_t length);
std::string encoderDescription(const std::string& name);
// Every registered encoder, one "  name: description" line each, under a heading naming the
// config keys (for the drivers' --help).
std::string encoderListing();

}  // namespace recurlab::models
