#include "common/runtime/kill_point.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace recurlab::experiments {
namespace {

struct KillAt {
  std::string point;
  long remaining = 0;
};

KillAt& target() {
  static KillAt k = [] {
    KillAt t;
    const char* env = std::getenv("RECURLAB_KILL_AT");
    if (!env) return t;
    const char* only_rank = std::getenv("RECURLAB_KILL_RANK");
    if (only_rank != nullptr && *only_rank != '\0') {
      const char* rank = std::getenv("RANK");
      if (std::string(rank ? rank : "0") != only_rank) return t;
    }
    const std::string s = env;
    const auto colon = s.rfind(':');
    t.point = s.substr(0, colon);
    t.remaining = colon == std::string::npos ? 1 : std::atol(s.c_str() + colon + 1);
    return t;
  }();
  return k;
}

}  // namespace

void killPoint(const char* point) {
  auto& k = target();
  if (k.remaining <= 0 || k.point != point) return;
  if (--k.remaining == 0) std::raise(SIGKILL);
}

}  // namespace recurlab::experiments
