#pragma once
// A file's whole content, byte for byte, for tests that read what a run or a tool wrote.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace recurlab::testing {

// "" when the file cannot be opened.
inline std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace recurlab::testing
