#pragma once
// The loaders read paths, so each fuzz input is written to one private temporary file first.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace recurlab::fuzz {

inline const std::string& writeFuzzInput(const uint8_t* data, size_t size) {
  static const std::string path =
      "/tmp/recurlab-fuzz-" + std::to_string(static_cast<long>(getpid())) + ".input";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::logic_error("cannot write " + path);
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace recurlab::fuzz
