#include "experiments/harness/command_input.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/config_json.h"

namespace recurlab::experiments {

std::string inputName(const std::string& path) { return path == "-" ? "standard input" : path; }

std::string readCommandInput(const std::string& path, bool any_bytes) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot be read");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (text.empty()) throw std::runtime_error(inputName(path) + ": empty input");
  if (any_bytes) return text;
  if (const auto bad = firstInvalidUtf8(text)) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[*bad]));
    throw std::runtime_error(inputName(path) + ": not valid UTF-8: byte " + byte + " at offset " +
                             std::to_string(*bad) + " (re-encode it, e.g. with iconv -t UTF-8)");
  }
  return text;
}

std::vector<std::string> readCommandInputLines(const std::string& path) {
  std::istringstream in(readCommandInput(path));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

void writeCommandOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  writeFileAtomically(path, [&](const std::string& temporary) {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error(path + ": cannot be written");
  });
}

}  // namespace recurlab::experiments
