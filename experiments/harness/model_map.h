#pragma once
// The "models" key of every task's config: name -> {"<registry key>": <registry name>,
// "config": {...}, "train": {...}, ...}, one unit family per entry. One reader for all of
// them: the map must be a non-empty object, each entry names a registered model, the keys that
// must be objects are objects, the task reads its own keys through a callback, and an unknown
// key is an error naming its path ("lm config: models.sru: ...").
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/json_options.h"

namespace recurlab::experiments {

struct ModelMapFormat {
  std::string where;                      // the config's name in errors, e.g. "lm config"
  std::string registry_key = "encoder";   // the entry's key naming the registry entry
  std::vector<std::string> registered;    // the registry's names (models::encoderNames())
  std::string registered_noun = "encoders";
  std::string entry_form;                 // the entry's shape, for the error on a bad map
  std::vector<std::string> objects = {"config", "train"};  // entry keys that must be objects
};

struct ModelMapEntry {
  std::string name;           // its key in "models": the label in the log and the report
  std::string registry_name;  // the value of the registry key
  std::string where;          // "<where>: models.<name>"
  std::map<std::string, nlohmann::json> objects;  // each of ModelMapFormat::objects ({} if absent)
};

// Reads (and marks read) the key "models" of `config`. `own_keys` reads each entry's other
// keys, before the entry's unknown keys are refused.
std::vector<ModelMapEntry> readModelMap(
    JsonOptions& config, const ModelMapFormat& format,
    const std::function<void(const ModelMapEntry& entry, JsonOptions& keys)>& own_keys = {});

// The keys at the top of every trained task's config: "experiment" (the task's name, the only
// value allowed), "description" (prose), "seed" (the root seed) and "keep_model" (one of
// `keep_choices`); `seed` and `keep_model` hold the defaults and receive the values.
void readRunKeys(JsonOptions& config, const std::string& experiment, int64_t& seed,
                 std::string& keep_model, const std::vector<std::string>& keep_choices);

// Top-level keys of a config that must be objects (the shared "train", "lm", "reader", ...):
// each read with {} as its default; "<where>: keys 'lm' and 'train' must be objects" otherwise.
std::map<std::string, nlohmann::json> readObjectKeys(JsonOptions& config,
                                                     const std::vector<std::string>& keys);

}  // namespace recurlab::experiments
