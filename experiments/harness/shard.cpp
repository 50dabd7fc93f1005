#include "experiments/harness/shard.h"

#include <stdexcept>

namespace recurlab::experiments {

Shard parseShard(const std::string& text) {
  const auto slash = text.find('/');
  Shard s;
  try {
    if (slash == std::string::npos) throw std::invalid_argument("");
    size_t used = 0;
    s.index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) throw std::invalid_argument("");
    const std::string n = text.substr(slash + 1);
    s.count = std::stoi(n, &used);
    if (used != n.size()) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument("--shard '" + text + "': expected i/n, e.g. 0/4");
  }
  if (s.count < 1 || s.index < 0 || s.index >= s.count)
    throw std::invalid_argument("--shard '" + text + "': expected i/n with 0 <= i < n");
  return s;
}

}  // namespace recurlab::experiments
