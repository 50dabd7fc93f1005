#pragma once
// --shard i/n: which units of work one process runs.
#include <cstddef>
#include <string>

namespace recurlab::experiments {

struct Shard {
  int index = 0;  // i in [0, count)
  int count = 1;  // n; 1 = no sharding
  bool active() const { return count > 1; }
  bool owns(size_t unit) const { return static_cast<int>(unit % count) == index; }
};

// "i/n" with 0 <= i < n; throws std::invalid_argument naming the option otherwise.
Shard parseShard(const std::string& text);

}  // namespace recurlab::experiments
