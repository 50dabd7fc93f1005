#include "experiments/data/symbol_json.h"

#include <stdexcept>

#include "common/config_json.h"

namespace recurlab::experiments {

nlohmann::json symbolToJson(const std::string& symbol) {
  if (!firstInvalidUtf8(symbol)) return symbol;
  nlohmann::json bytes = nlohmann::json::array();
  for (const char c : symbol) bytes.push_back(static_cast<int>(static_cast<unsigned char>(c)));
  return bytes;
}

std::string symbolFromJson(const nlohmann::json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array())
    throw std::runtime_error(where + ": expected a string or an array of byte values, got " +
                             value.dump());
  std::string symbol;
  for (const auto& b : value) {
    if (!b.is_number_integer() || b.get<int64_t>() < 0 || b.get<int64_t>() > 255)
      throw std::runtime_error(where + ": expected byte values 0-255, got " + b.dump());
    symbol.push_back(static_cast<char>(b.get<int>()));
  }
  return symbol;
}

nlohmann::json symbolsToJson(const std::vector<std::string>& symbols) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& s : symbols) array.push_back(symbolToJson(s));
  return array;
}

std::vector<std::string> symbolsFromJson(const nlohmann::json& array, const std::string& where) {
  if (!array.is_array()) throw std::runtime_error(where + ": expected an array of symbols");
  std::vector<std::string> symbols;
  symbols.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i)
    symbols.push_back(symbolFromJson(array[i], where + ": entry " + std::to_string(i)));
  return symbols;
}

}  // namespace recurlab::experiments
