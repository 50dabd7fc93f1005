#pragma once
// How idle worker threads wait, for both sides of the bench. LibTorch's OpenMP workers (libgomp)
// spin a while after every parallel region, and OpenBLAS's own pthread workers spin up to 2^28
// cycles (about 0.1 s) after every GEMM before sleeping. With two thread pools on two cores,
// one pool's spinning worker holds the core the other pool's worker needs next, and every
// parallel op waits for a time slice. The bench therefore runs with waits that sleep at once
// (OMP_WAIT_POLICY=PASSIVE, OPENBLAS_THREAD_TIMEOUT=4, its minimum: 2^4 cycles); its PyTorch
// child inherits them. Both libraries read these variables when they are loaded, so the only
// way to set them for the running process is to re-exec it.
#include <string>

namespace recurlab::bench {

// Sets OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4 where unset and re-execs this
// process once. RECURLAB_BENCH_LIBRARY_WAITS=1 keeps the libraries' defaults (and whatever the
// environment sets). Returns normally when nothing is to do or the exec fails.
void sleepingThreadWaits(char** argv);

// The waits this process runs with, for the log: e.g. "OMP_WAIT_POLICY=PASSIVE,
// OPENBLAS_THREAD_TIMEOUT=4" or "library defaults".
std::string threadWaitPolicy();

}  // namespace recurlab::bench
