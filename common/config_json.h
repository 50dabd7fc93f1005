#pragma once
// The JSON side of the command line, torch- and boost-free (the config fuzz target builds it
// alone): reading a config file, applying a --set override, and the UTF-8 check that keeps a
// value JSON cannot hold out of the config (it would throw only later, when the config is
// written into the log, after the data loaded).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace recurlab::experiments {

// The offset of the first byte of `text` that is not part of well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when all of it is.
std::optional<size_t> firstInvalidUtf8(const std::string& text);

// Throws std::invalid_argument when `value` is not UTF-8: names `what` (e.g. "--set value" or
// "--data-dir"), the byte offset and the byte, and shows the value with bad bytes as \xNN.
void requireUtf8(const std::string& value, const std::string& what);

// Reads a JSON file; errors name the file and the parser's line/column.
nlohmann::json readJsonFile(const std::string& path);

// Applies "a.b.c=value" to `config`, creating nested objects; the value is parsed as JSON
// and taken as a plain string when it is not valid JSON. Throws std::invalid_argument naming
// the assignment for a missing '=', an empty key part, a key inside a non-object, or bytes that
// are not UTF-8.
void applyOverride(nlohmann::json& config, const std::string& assignment);

// The shared keys of a config section with one model's overrides of it: `base` with every
// top-level key of `overrides` replaced.
nlohmann::json withOverrides(nlohmann::json base, const nlohmann::json& overrides);

// "a, b, c": the accepted names in an error message.
std::string joinNames(const std::vector<std::string>& names);

// The spec whose `name` is `name` (a config's models); throws naming `where` and the name.
template <typename Spec>
const Spec& specNamed(const std::vector<Spec>& specs, const std::string& name,
                      const std::string& where) {
  for (const auto& s : specs)
    if (s.name == name) return s;
  throw std::invalid_argument(where + ": no model named '" + name + "'");
}

}  // namespace recurlab::experiments
