#pragma once
// What every run log records about the machine it ran on, so that timings
// and ratios can be read against the machine's floor.
#include <string>

namespace recurlab {

struct MachineInfo {
  std::string blas_core;         // OpenBLAS core in use (openBlasCoreName())
  std::string heap_policy;       // glibc malloc policy in use (heapPolicy())
  double gemm_gflops = 0.0;      // measured float GEMM throughput on `device`
  std::string libtorch_version;  // TORCH_VERSION
  std::string device;            // "cpu" or "cuda:0 (<device name>)"
  int threads = 0;               // LibTorch intra-op threads
  int blas_threads = 0;          // OpenBLAS's threads (openBlasThreads(); 0: not OpenBLAS)
  std::string thread_waits;      // how idle threads wait (threadWaitPolicy())
  std::string hostname;
};

// Best-of-`repeats` GFLOP/s of an n x n x n float matmul on `device` ("cpu" or "cuda[:i]"),
// after one warm-up, at the current LibTorch thread count.
double measureGemmGflops(const std::string& device = "cpu", int n = 1024, int repeats = 5);

// Collects everything above; measures the GEMM (about 0.1 s on CPU) when `measure_gemm`.
MachineInfo collectMachineInfo(const std::string& device = "cpu", bool measure_gemm = true);

}  // namespace recurlab
