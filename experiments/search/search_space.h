#pragma once
// Search spaces inside a JSON config: any value may be one of
//   {"loguniform": [a, b]}  0 < a <= b, sampled as exp(U(log a, log b))
//   {"uniform": [a, b]}     a <= b
//   {"int": [a, b]}         integers a <= b, both ends included
//   {"choice": [v1, ...]}   one of the values, equally likely
// sampleSearchSpaces() replaces every space by a draw, in key order, so a seed fixes it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace recurlab::experiments {

bool isSearchSpace(const nlohmann::json& value);
bool hasSearchSpace(const nlohmann::json& config);

// Throws std::invalid_argument naming the dotted key (prefixed by `where`) of a malformed
// space: a wrong kind, not two numbers, a > b, loguniform with a <= 0, an empty choice.
void validateSearchSpaces(const nlohmann::json& config, const std::string& where);

nlohmann::json sampleSearchSpaces(const nlohmann::json& config, uint64_t seed);

// Concrete configs at the corners of every space (all lower ends, all upper ends, every
// choice value), so a consumer can check each one before any work starts.
std::vector<nlohmann::json> searchSpaceCorners(const nlohmann::json& config);

}  // namespace recurlab::experiments
