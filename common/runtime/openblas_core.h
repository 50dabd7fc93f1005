#pragma once
// OpenBLAS misdetects virtual CPUs that report a generic model name and falls back to its
// oldest x86-64 kernels (about 5x slower matmuls). OpenBLAS reads OPENBLAS_CORETYPE once,
// when it is loaded, so the only fix that works for the running process is to re-exec it
// with the variable set. Every binary calls ensureFastOpenBlas() first thing in main().
#include <string>

namespace recurlab {

// Core name OpenBLAS is using ("SkylakeX", "Haswell", "Prescott", ...), or "unavailable"
// when the loaded BLAS is not OpenBLAS.
std::string openBlasCoreName();

// The best OpenBLAS core for this CPU from its feature flags ("SkylakeX", "Haswell"), or ""
// when the CPU has neither AVX-512 nor AVX2.
std::string preferredOpenBlasCore();

// True when `core` is one of OpenBLAS's pre-AVX fallback cores (Prescott, Core2, ...).
bool isGenericOpenBlasCore(const std::string& core);

// If OpenBLAS runs a generic core on a CPU that has AVX2/AVX-512 and the user did not set
// OPENBLAS_CORETYPE, re-exec this process with the right core (says so once on stderr).
// Returns normally otherwise. RECURLAB_NO_BLAS_FIX=1 disables it; RECURLAB_QUIET_BLAS=1
// silences the message.
void ensureFastOpenBlas(int argc, char** argv);

// OpenBLAS's threads for this process (a no-op when the BLAS is not OpenBLAS).
void setOpenBlasThreads(int threads);

// The threads OpenBLAS uses now; 0 when the BLAS is not OpenBLAS.
int openBlasThreads();

// The training drivers' setting: OpenBLAS on `threads` threads unless OPENBLAS_NUM_THREADS
// says otherwise. With one, LibTorch's own threads (--threads) parallelise and a GEMM stays on
// one core; with OpenBLAS's pool inside LibTorch's and the libraries' spinning waits, epochs
// on CR ran 3x (CNN) to 17x (LSTM) slower on a 2-core machine (thread_wait_policy.h).
void defaultOpenBlasThreads(int threads);

// defaultOpenBlasThreads(1).
void singleThreadedOpenBlas();

}  // namespace recurlab
