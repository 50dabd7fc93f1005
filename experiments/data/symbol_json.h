#pragma once
// A vocabulary symbol (word, character or byte) as JSON. JSON strings hold only UTF-8, but the
// training data need not be UTF-8: MR and CR (Pang and Lee's files) carry Latin-1 bytes and
// enwik8 is raw bytes. So a symbol is written as a string when it is valid UTF-8, and otherwise
// as the array of its byte values (0-255), which reads back to the same bytes.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace recurlab::experiments {

nlohmann::json symbolToJson(const std::string& symbol);

// Throws std::runtime_error naming `where` when `value` is neither a string nor an array of
// integers in 0..255.
std::string symbolFromJson(const nlohmann::json& value, const std::string& where);

nlohmann::json symbolsToJson(const std::vector<std::string>& symbols);
// `where` names the file; errors add the index of the bad entry.
std::vector<std::string> symbolsFromJson(const nlohmann::json& array, const std::string& where);

}  // namespace recurlab::experiments
