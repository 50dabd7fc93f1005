#pragma once
// The kernels split their loops with at::parallel_for, an inline template of LibTorch's: it
// runs on several threads only where the including file is compiled with the parallel backend's
// flags (ATen/ParallelOpenMP.h defines INTRA_OP_PARALLEL under _OPENMP). Without them every
// loop runs on the calling thread whatever --threads says, and nothing fails: until this guard,
// the kernels were built with -fopenmp-simd alone and never used a second thread.
// CMakeLists.txt builds kernels/ with OpenMP; a build that does not stops here.
#include <ATen/Parallel.h>

#if !defined(INTRA_OP_PARALLEL)
#error "kernels/ must be compiled with OpenMP (-fopenmp): at::parallel_for would run on one thread"
#endif
