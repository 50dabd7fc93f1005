#pragma once
// How idle worker threads wait. LibTorch's OpenMP workers (libgomp) spin a while after every
// parallel region, and OpenBLAS's own pthread workers spin up to 2^28 cycles (about 0.1 s)
// after every GEMM before sleeping. With two thread pools on two cores, one pool's spinning
// worker holds the core the other pool's worker needs next, and every parallel op waits for a
// time slice: measured on a 2-core machine, a PTB-char LM run at --threads 2 took 110 s with
// OpenBLAS on one thread, 167 s with OpenBLAS on two and these spinning waits, and 71 s with
// OpenBLAS on two and waits that sleep at once (docs/performance.md). Both libraries read
// their wait settings when they are loaded, so the only way to set them for the running process
// is to re-exec it.
#include <string>

namespace recurlab {

// Sets OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4 (its minimum: 2^4 cycles) where
// unset and re-execs this process once (`argv` as main received it). RECURLAB_LIBRARY_WAITS=1
// keeps the libraries' defaults (and whatever the environment sets). Returns normally when
// nothing is to do or the exec fails. Call it before LibTorch or OpenBLAS start a thread.
void sleepingThreadWaits(char** argv);

// The waits this process runs with, for the log: e.g. "OMP_WAIT_POLICY=PASSIVE,
// OPENBLAS_THREAD_TIMEOUT=4" or "library defaults".
std::string threadWaitPolicy();

}  // namespace recurlab
