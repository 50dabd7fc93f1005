#pragma once
// Reads a model's or experiment's JSON options with checks: every value is type- and
// range-checked, and finish() rejects keys nobody asked for, naming them and the accepted keys.
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace recurlab {

class JsonOptions {
 public:
  // `where` names the owner in errors, e.g. "model 'sru'".
  JsonOptions(const nlohmann::json& object, std::string where);

  int64_t getInt(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double getDouble(const std::string& key, double fallback, double min, double max);
  bool getBool(const std::string& key, bool fallback);
  std::string getString(const std::string& key, const std::string& fallback,
                        const std::vector<std::string>& accepted = {});
  std::vector<int64_t> getIntList(const std::string& key, const std::vector<int64_t>& fallback,
                                  int64_t min, int64_t max);
  // Any JSON value, unchecked (the caller checks it): nested objects, lists of names.
  nlohmann::json getJson(const std::string& key, const nlohmann::json& fallback);
  bool has(const std::string& key) const;
  // The owner as errors name it, for checks across keys made by the caller.
  const std::string& where() const { return where_; }

  // Throws std::invalid_argument naming every unknown key and the accepted ones.
  void finish() const;

 private:
  const nlohmann::json* find(const std::string& key);
  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;

  nlohmann::json object_;
  std::string where_;
  std::set<std::string> known_;
};

}  // namespace recurlab
