#pragma once
// What the tests of the commands on a kept model share: files read whole, a kept model's file
// replaced with its checksum updated (a consistent folder that is still wrong), and the error
// of a call.
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "common/sha256.h"

namespace recurlab::testing {

inline std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json readJsonAt(const std::string& path) { return nlohmann::json::parse(readWholeFile(path)); }

inline void writeJsonAt(const std::string& path, const nlohmann::json& value) {
  std::ofstream(path) << value.dump(2) << "\n";
}

// Replaces `file` of the kept model in `dir` and records its new sha256 in the manifest.
inline void replaceKeptFile(const std::string& dir, const std::string& file, const std::string& bytes) {
  std::ofstream(dir + "/" + file, std::ios::binary) << bytes;
  auto manifest = readJsonAt(dir + "/manifest.json");
  manifest["files"][file] = sha256Hex(bytes);
  writeJsonAt(dir + "/manifest.json", manifest);
}

inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace recurlab::testing
