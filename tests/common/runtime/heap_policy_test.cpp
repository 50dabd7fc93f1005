#include "common/runtime/heap_policy.h"
#include "tests/support/required.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace recurlab {
namespace {

HeapPolicyChoice choiceWith(const std::map<std::string, std::string>& env) {
  return chooseHeapPolicy([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(HeapPolicy, RetainsUnlessTheEnvironmentChooses) {
  EXPECT_EQ(choiceWith({}), HeapPolicyChoice::Retain);
  EXPECT_EQ(choiceWith({{"RECURLAB_SYSTEM_MALLOC", "0"}}), HeapPolicyChoice::Retain);
  EXPECT_EQ(choiceWith({{"RECURLAB_SYSTEM_MALLOC", "1"}}), HeapPolicyChoice::GlibcDefault);
  for (const char* name : {"MALLOC_MMAP_MAX_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                           "MALLOC_TOP_PAD_", "GLIBC_TUNABLES"}) {
    EXPECT_EQ(choiceWith({{name, "1"}}), HeapPolicyChoice::UserTuned) << name;
    // The user's own tuning wins over RECURLAB_SYSTEM_MALLOC too: we touch nothing.
    EXPECT_EQ(choiceWith({{name, "1"}, {"RECURLAB_SYSTEM_MALLOC", "1"}}),
              HeapPolicyChoice::UserTuned) << name;
  }
}

long minorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Allocates `bytes`, writes every page, frees it; returns the page faults that took.
long faultsToTouch(size_t bytes) {
  const long before = minorFaults();
  auto* p = static_cast<char*>(std::malloc(bytes));
  EXPECT_NE(p, nullptr);
  std::memset(p, 1, bytes);
  asm volatile("" : : "r"(p) : "memory");  // the stores must happen: no malloc/free elision
  std::free(p);
  return minorFaults() - before;
}

TEST(HeapPolicy, AFreedLargeBlockIsReusedWithoutPageFaults) {
  // The test binary's main() ran retainFreedHeapMemory(), like every recurlab binary.
  RECURLAB_REQUIRE_OR_SKIP(heapPolicy() == "retained"
                               ? ""
                               : "heap policy here is '" + heapPolicy() + "' (set by the environment)");
  // Past glibc's largest mmap threshold (32 MiB) and the 64 MiB the heap top grows by.
  constexpr size_t kBytes = size_t{96} << 20;
  faultsToTouch(kBytes);                       // the first touch pages it in
  const long pages = static_cast<long>(kBytes / 4096);
  // Under glibc's defaults every round maps fresh pages: ~24,600 faults. Retained: the same
  // pages again, no faults (a few from other allocations are allowed).
  for (int round = 0; round < 3; ++round) EXPECT_LT(faultsToTouch(kBytes), pages / 20) << round;
}

}  // namespace
}  // namespace recurlab
