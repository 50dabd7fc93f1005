#include "experiments/harness/model_map.h"

#include <stdexcept>

#include "common/config_json.h"

namespace recurlab::experiments {
namespace {

// 'a', 'a' and 'b', 'a', 'b' and 'c'.
std::string quotedList(const std::vector<std::string>& keys) {
  std::string s;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) s += i + 1 == keys.size() ? " and " : ", ";
    s += "'" + keys[i] + "'";
  }
  return s;
}

void requireObjects(const std::map<std::string, nlohmann::json>& objects,
                    const std::vector<std::string>& keys, const std::string& where) {
  for (const auto& key : keys)
    if (!objects.at(key).is_object())
      throw std::invalid_argument(where + ": key" + (keys.size() > 1 ? "s " : " ") +
                                  quotedList(keys) + " must be " +
                                  (keys.size() > 1 ? "objects" : "an object"));
}

}  // namespace

std::vector<ModelMapEntry> readModelMap(
    JsonOptions& config, const ModelMapFormat& format,
    const std::function<void(const ModelMapEntry& entry, JsonOptions& keys)>& own_keys) {
  const auto models = config.getJson("models", nullptr);
  if (!models.is_object() || models.empty())
    throw std::invalid_argument(format.where + ": key 'models' must be a non-empty object of "
                                "name -> " + format.entry_form + "; registered " +
                                format.registered_noun + ": " + joinNames(format.registered));
  std::vector<ModelMapEntry> entries;
  for (auto it = models.begin(); it != models.end(); ++it) {
    ModelMapEntry e;
    e.name = it.key();
    e.where = format.where + ": models." + it.key();
    JsonOptions keys(it.value(), e.where);
    e.registry_name = keys.getString(format.registry_key, "", format.registered);
    if (e.registry_name.empty())
      throw std::invalid_argument(e.where + ": key '" + format.registry_key +
                                  "' is missing; expected one of " +
                                  joinNames(format.registered));
    for (const auto& key : format.objects)
      e.objects[key] = keys.getJson(key, nlohmann::json::object());
    if (own_keys) own_keys(e, keys);
    keys.finish();
    requireObjects(e.objects, format.objects, e.where);
    entries.push_back(std::move(e));
  }
  return entries;
}

void readRunKeys(JsonOptions& config, const std::string& experiment, int64_t& seed,
                 std::string& keep_model, const std::vector<std::string>& keep_choices) {
  config.getString("experiment", experiment, {experiment});
  config.getString("description", "");
  seed = config.getInt("seed", seed, 0, (1LL << 53) - 1);
  keep_model = config.getString("keep_model", keep_model, keep_choices);
}

std::map<std::string, nlohmann::json> readObjectKeys(JsonOptions& config,
                                                     const std::vector<std::string>& keys) {
  std::map<std::string, nlohmann::json> objects;
  for (const auto& key : keys) objects[key] = config.getJson(key, nlohmann::json::object());
  requireObjects(objects, keys, config.where());
  return objects;
}

}  // namespace recurlab::experiments
