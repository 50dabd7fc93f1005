#include "common/json_options.h"

#include <sstream>
#include <stdexcept>

namespace recurlab {

JsonOptions::JsonOptions(const nlohmann::json& object, std::string where)
    : object_(object.is_null() ? nlohmann::json::object() : object), where_(std::move(where)) {
  if (!object_.is_object())
    throw std::invalid_argument(where_ + ": expected a JSON object of options, got " +
                                object_.dump());
}

const nlohmann::json* JsonOptions::find(const std::string& key) {
  known_.insert(key);
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

nlohmann::json JsonOptions::getJson(const std::string& key, const nlohmann::json& fallback) {
  const auto* v = find(key);
  return v ? *v : fallback;
}

bool JsonOptions::has(const std::string& key) const { return object_.contains(key); }

void JsonOptions::fail(const std::string& key, const std::string& expected) const {
  std::ostringstream msg;
  msg << where_ << ": key '" << key << "' = " << object_.at(key).dump() << " is invalid; expected "
      << expected;
  throw std::invalid_argument(msg.str());
}

int64_t JsonOptions::getInt(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  const auto* v = find(key);
  if (!v) return fallback;
  const std::string range =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!v->is_number_integer()) fail(key, range);
  const int64_t x = v->get<int64_t>();
  if (x < min || x > max) fail(key, range);
  return x;
}

double JsonOptions::getDouble(const std::string& key, double fallback, double min, double max) {
  const auto* v = find(key);
  if (!v) return fallback;
  std::ostringstream range;
  range << "a number in [" << min << ", " << max << "]";
  if (!v->is_number()) fail(key, range.str());
  const double x = v->get<double>();
  if (!(x >= min && x <= max)) fail(key, range.str());
  return x;
}

bool JsonOptions::getBool(const std::string& key, bool fallback) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "true or false");
  return v->get<bool>();
}

std::string JsonOptions::getString(const std::string& key, const std::string& fallback,
                                   const std::vector<std::string>& accepted) {
  const auto* v = find(key);
  if (!v) return fallback;
  std::string list;
  for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + ("'" + a + "'");
  const std::string expected = accepted.empty() ? "a string" : "one of " + list;
  if (!v->is_string()) fail(key, expected);
  const std::string s = v->get<std::string>();
  if (!accepted.empty()) {
    bool ok = false;
    for (const auto& a : accepted) ok = ok || a == s;
    if (!ok) fail(key, expected);
  }
  return s;
}

std::vector<int64_t> JsonOptions::getIntList(const std::string& key,
                                             const std::vector<int64_t>& fallback, int64_t min,
                                             int64_t max) {
  const auto* v = find(key);
  if (!v) return fallback;
  const std::string expected = "a non-empty list of integers in [" + std::to_string(min) +
                               ", " + std::to_string(max) + "]";
  if (!v->is_array() || v->empty()) fail(key, expected);
  std::vector<int64_t> xs;
  for (const auto& e : *v) {
    if (!e.is_number_integer()) fail(key, expected);
    const int64_t x = e.get<int64_t>();
    if (x < min || x > max) fail(key, expected);
    xs.push_back(x);
  }
  return xs;
}

void JsonOptions::finish() const {
  std::string unknown;
  for (auto it = object_.begin(); it != object_.end(); ++it)
    if (!known_.count(it.key())) unknown += (unknown.empty() ? "'" : ", '") + it.key() + "'";
  if (unknown.empty()) return;
  std::string accepted;
  for (const auto& k : known_) accepted += (accepted.empty() ? "'" : ", '") + k + "'";
  throw std::invalid_argument(where_ + ": unknown key" +
                              (unknown.find(',') != std::string::npos ? "s " : " ") + unknown +
                              "; accepted keys: " + accepted);
}

}  // namespace recurlab
