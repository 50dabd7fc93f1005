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

// The numbers an encoder of this config carries from one step to the next, per sequence,
// after `length` steps: what a recurrence must compress its past into (Arora et al. 2023 call
// it the recurrent state size). An entry without one gets it measured (models/registry.h).
using EncoderStateSize = std::function<int64_t(const nlohmann::json& config, int64_t input_size,
                                               int64_t length)>;

struct EncoderEntry {
  std::string name;
  std::string description;
  EncoderFactory factory;
  EncoderStateSize state_size = {};  // empty: measured from the state encode() returns
};

// Where a family adds its encoders: add(name, description, factory), or with a state size of
// its own as a fourth argument.
struct EncoderSink {
  std::function<void(EncoderEntry entry)> add_entry;
  void operator()(const std::string& name, const std::string& description, EncoderFactory factory,
                  EncoderStateSize state_size = {}) const {
    add_entry({name, description, std::move(factory), std::move(state_size)});
  }
};

}  // namespace recurlab::models
