#include "common/runtime/crash_report.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace recurlab {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr int kMaxFrames = 64;

// write(2) of a string, a decimal and a hexadecimal number: no stdio, no allocation.
void put(const char* s) {
  ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

void putHex(uintptr_t v) {
  char buf[2 + 2 * sizeof v + 1];
  char* p = buf + sizeof buf - 1;
  *p = '\0';
  do {
    *--p = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v);
  *--p = 'x';
  *--p = '0';
  put(p);
}

void putDecimal(long v) {
  char buf[24];
  char* p = buf + sizeof buf - 1;
  *p = '\0';
  const bool negative = v < 0;
  unsigned long u = negative ? -static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u);
  if (negative) *--p = '-';
  put(p);
}

void onFatalSignal(int signal, siginfo_t* info, void*) {
  put("\nrecurlab: fatal signal ");
  putDecimal(signal);
  put(" (");
  put(strsignal(signal));
  put(") in process ");
  putDecimal(::getpid());
  if (signal != SIGABRT) {
    put(", address ");
    putHex(reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr));
  }
  put("; stack (addr2line -f -C -e MODULE OFFSET):\n");
  void* frames[kMaxFrames];
  const int n = backtrace(frames, kMaxFrames);
  for (int i = 0; i < n; ++i) {
    // dladdr is not on POSIX's async-signal-safe list, but takes no lock that a crashing
    // thread is likely to hold; this is the last thing the process does.
    Dl_info where{};
    const auto pc = reinterpret_cast<uintptr_t>(frames[i]);
    put("  #");
    putDecimal(i);
    put(" ");
    if (dladdr(frames[i], &where) && where.dli_fname) {
      put(where.dli_fname);
      put("+");
      putHex(pc - reinterpret_cast<uintptr_t>(where.dli_fbase));
      if (where.dli_sname) {
        put(" (");
        put(where.dli_sname);
        put("+");
        putHex(pc - reinterpret_cast<uintptr_t>(where.dli_saddr));
        put(")");
      }
    } else {
      putHex(pc);
    }
    put("\n");
  }
  // The default action, as if no handler had run: the same status for the parent.
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

}  // namespace

void reportFatalSignals() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  if (const char* off = std::getenv("RECURLAB_NO_CRASH_REPORT"); off && std::strcmp(off, "1") == 0)
    return;
  // backtrace() loads libgcc's unwinder on its first call, which allocates: do it now.
  void* warm[1];
  backtrace(warm, 1);
  static char alternate_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof alternate_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction action {};
  action.sa_sigaction = onFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int s : kFatalSignals) sigaction(s, &action, nullptr);
}

}  // namespace recurlab
