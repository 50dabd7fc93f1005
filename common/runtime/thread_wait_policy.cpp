#include "common/runtime/thread_wait_policy.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace recurlab {
namespace {

constexpr const char* kMarker = "RECURLAB_THREAD_WAITS_SET";  // set before the re-exec

bool enabled(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "0") != 0;
}

}  // namespace

void sleepingThreadWaits(char** argv) {
  if (enabled("RECURLAB_LIBRARY_WAITS") || std::getenv(kMarker)) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);  // 0: a value the user set stays
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 0);
  setenv(kMarker, "1", 1);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "recurlab: re-exec failed (%s); idle threads keep spinning\n",
               std::strerror(errno));
}

std::string threadWaitPolicy() {
  std::string policy;
  for (const char* name : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT"})
    if (const char* v = std::getenv(name))
      policy += (policy.empty() ? "" : ", ") + std::string(name) + "=" + v;
  return policy.empty() ? "library defaults" : policy;
}

}  // namespace recurlab
