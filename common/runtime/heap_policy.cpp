#include "common/runtime/heap_policy.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace recurlab {
namespace {

std::string& appliedPolicy() {
  static std::string policy = "glibc default";
  return policy;
}

}  // namespace

HeapPolicyChoice chooseHeapPolicy(const std::function<const char*(const char*)>& getenv) {
  for (const char* name : {"MALLOC_MMAP_MAX_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                           "MALLOC_TOP_PAD_", "GLIBC_TUNABLES"})
    if (getenv(name)) return HeapPolicyChoice::UserTuned;
  const char* system = getenv("RECURLAB_SYSTEM_MALLOC");
  if (system && std::strcmp(system, "0") != 0) return HeapPolicyChoice::GlibcDefault;
  return HeapPolicyChoice::Retain;
}

std::string heapPolicy() { return appliedPolicy(); }

void retainFreedHeapMemory() {
  const auto choice = chooseHeapPolicy([](const char* name) { return std::getenv(name); });
  if (choice == HeapPolicyChoice::UserTuned) {
    appliedPolicy() = "user's MALLOC_* / GLIBC_TUNABLES";
    return;
  }
  if (choice == HeapPolicyChoice::GlibcDefault) return;
#if defined(__GLIBC__)
  // No private mappings: every block comes from the heap and returns to it on free. The top
  // is never trimmed, and grows 64 MiB at a time (address space only until touched).
  const bool ok = mallopt(M_MMAP_MAX, 0) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1 &&  // int: the largest round value
                  mallopt(M_TOP_PAD, 64 << 20) == 1;
  if (ok) appliedPolicy() = "retained";
#endif
}

}  // namespace recurlab
