#pragma once
// "1 model", "3 models": counts in the one-line descriptions a run prints (regular plurals only).
#include <cstddef>
#include <string>

namespace recurlab::experiments {

inline std::string nounCount(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace recurlab::experiments
