#include "common/config_json.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace recurlab::experiments {
namespace {

// `text` with every byte outside printable ASCII written \xNN, so that a message about bad
// bytes is itself valid UTF-8 and shows where they are.
std::string escaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace

std::optional<size_t> firstInvalidUtf8(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
      if (c == 0xED) hi = 0x9F;  // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // no overlong 4-byte forms
      if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;  // a continuation byte, C0/C1 (overlong) or F5..FF
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += len;
  }
  return std::nullopt;
}

void requireUtf8(const std::string& value, const std::string& what) {
  const auto bad = firstInvalidUtf8(value);
  if (!bad) return;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(value[*bad]));
  throw std::invalid_argument(what + " '" + escaped(value) + "' is not valid UTF-8: byte " +
                              byte + " at offset " + std::to_string(*bad) +
                              " (configs, paths and the run log are UTF-8 JSON text; rename the "
                              "file or re-encode the value, e.g. with iconv -t UTF-8)");
}

nlohmann::json readJsonFile(const std::string& path) {
  requireUtf8(path, "config file path");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("config file " + path + ": cannot open it");
  try {
    return nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument("config file " + path + ": invalid JSON: " + e.what());
  } catch (const nlohmann::json::exception& e) {
    // out_of_range.406: a number beyond a 64-bit float (e.g. 1e400); found by fuzz/config.
    throw std::invalid_argument("config file " + path + ": a number is out of range: " +
                                e.what());
  }
}

void applyOverride(nlohmann::json& config, const std::string& assignment) {
  requireUtf8(assignment, "--set");
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--set '" + assignment + "': expected key=value, e.g. train.lr=0.001");
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    value = text;
  } catch (const nlohmann::json::exception& e) {
    // out_of_range.406: a number beyond a 64-bit float, e.g. 1e400 (found by fuzz/config).
    throw std::invalid_argument("--set '" + assignment + "': the value is out of range (" +
                                e.what() + ")");
  }
  nlohmann::json* node = &config;
  std::string walked;
  size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) throw std::invalid_argument("--set '" + assignment + "': empty key part");
    if (node->is_null()) *node = nlohmann::json::object();
    if (!node->is_object())
      throw std::invalid_argument("--set '" + assignment + "': '" + walked +
                                  "' is not an object, cannot set a key inside it");
    walked += (walked.empty() ? "" : ".") + part;
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  *node = value;
}

nlohmann::json withOverrides(nlohmann::json base, const nlohmann::json& overrides) {
  for (auto it = overrides.begin(); it != overrides.end(); ++it) base[it.key()] = it.value();
  return base;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

}  // namespace recurlab::experiments
