#include "common/runtime/openblas_core.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <vector>

namespace recurlab {

std::string openBlasCoreName() {
  using CoreNameFn = char* (*)();
  auto fn = reinterpret_cast<CoreNameFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (!fn) return "unavailable";
  const char* name = fn();
  return name ? std::string(name) : std::string("unknown");
}

std::string preferredOpenBlasCore() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

bool isGenericOpenBlasCore(const std::string& core) {
  static const char* const kGeneric[] = {"Prescott", "Core2", "Katmai", "Coppermine",
                                         "Northwood", "Banias", "Penryn", "Dunnington",
                                         "Nehalem", "Atom", "Generic", "generic"};
  for (const char* g : kGeneric)
    if (core == g) return true;
  return false;
}

void ensureFastOpenBlas(int argc, char** argv) {
  (void)argc;
  const char* disabled = std::getenv("RECURLAB_NO_BLAS_FIX");
  if (disabled && std::strcmp(disabled, "0") != 0) return;
  if (std::getenv("OPENBLAS_CORETYPE")) return;  // the user's choice, or our re-exec
  const std::string core = openBlasCoreName();
  if (!isGenericOpenBlasCore(core)) return;
  const std::string wanted = preferredOpenBlasCore();
  if (wanted.empty()) return;
  if (!std::getenv("RECURLAB_QUIET_BLAS"))
    std::fprintf(stderr,
                 "recurlab: OpenBLAS chose its generic '%s' kernels on a CPU with %s; "
                 "re-running with OPENBLAS_CORETYPE=%s (set RECURLAB_NO_BLAS_FIX=1 to keep "
                 "the default)\n",
                 core.c_str(), wanted == "SkylakeX" ? "AVX-512" : "AVX2", wanted.c_str());
  setenv("OPENBLAS_CORETYPE", wanted.c_str(), 1);
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  // exec failed: carry on with the slow kernels rather than dying.
  std::fprintf(stderr, "recurlab: re-exec failed (%s); continuing with '%s'\n",
               std::strerror(errno), core.c_str());
}

void setOpenBlasThreads(int threads) {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    set(threads);
}

int openBlasThreads() {
  using GetThreads = int (*)();
  if (auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads")))
    return get();
  return 0;
}

void defaultOpenBlasThreads(int threads) {
  if (!std::getenv("OPENBLAS_NUM_THREADS")) setOpenBlasThreads(threads);
}

void singleThreadedOpenBlas() { defaultOpenBlasThreads(1); }

}  // namespace recurlab
