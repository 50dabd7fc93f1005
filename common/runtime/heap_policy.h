#pragma once
// glibc's malloc gives each allocation over its mmap threshold (128 KiB, raised up to 32 MiB as
// it sees frees) its own mapping and unmaps it on free, and trims the heap top past 128 KiB.
// A training step allocates the same large activations and gradients every batch, so each of
// them was paged in afresh: page faults and the kernel's zero-fill were a fifth of an SRU
// reader epoch's perf samples; retained, its recurrent part takes 12-17% less (docs/qa.md).
// Every recurlab binary calls retainFreedHeapMemory() at the start of main(), right after
// ensureFastOpenBlas(): freed memory stays in the process for the next batch (the policy of
// caching allocators); the peak resident size is the same, it is just not returned until exit.
#include <functional>
#include <string>

namespace recurlab {

// The policy this process runs under: "retained" (set by retainFreedHeapMemory),
// "glibc default", or "user's MALLOC_* / GLIBC_TUNABLES" when the environment chose.
std::string heapPolicy();

// Applies the policy above unless the environment already tunes glibc's malloc (any of
// MALLOC_MMAP_MAX_, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, MALLOC_TOP_PAD_,
// GLIBC_TUNABLES) or RECURLAB_SYSTEM_MALLOC=1 asks for glibc's defaults. Idempotent.
void retainFreedHeapMemory();

// The decision alone, for tests: `getenv` looks a variable up (nullptr when unset).
enum class HeapPolicyChoice { Retain, GlibcDefault, UserTuned };
HeapPolicyChoice chooseHeapPolicy(const std::function<const char*(const char*)>& getenv);

}  // namespace recurlab
