#pragma once
// One JSON file read whole (a SQuAD data file, a predictions file): every way nlohmann's parser
// can refuse it becomes a std::runtime_error that names the file and the byte offset.
#include <nlohmann/json.hpp>

#include <string>

namespace recurlab::experiments::qa {

// `name` is what errors call the text (its path). Malformed JSON and numbers no double can hold
// (e.g. 1e400, which the parser refuses with out_of_range, not parse_error) both name the
// 0-based byte offset.
nlohmann::json parseJsonDocument(const std::string& bytes, const std::string& name);

}  // namespace recurlab::experiments::qa
