#include "common/runtime/machine_info.h"

#include <torch/torch.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>

#include "common/runtime/heap_policy.h"
#include "common/runtime/openblas_core.h"
#include "common/runtime/thread_wait_policy.h"

namespace recurlab {

namespace {

// Debian's LibTorch has no CUDA headers to ask for the device name; nvidia-smi knows it.
std::string cudaDeviceName(int index) {
  const std::string cmd = "nvidia-smi --query-gpu=name --format=csv,noheader --id=" +
                          std::to_string(index) + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::array<char, 256> buf{};
  std::string name;
  while (fgets(buf.data(), static_cast<int>(buf.size()), pipe.get())) name += buf.data();
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name;
}

}  // namespace

double measureGemmGflops(const std::string& device, int n, int repeats) {
  torch::NoGradGuard no_grad;
  const torch::Device dev(device);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(dev);
  torch::manual_seed(0);
  const torch::Tensor a = torch::randn({n, n}, opts), b = torch::randn({n, n}, opts);
  torch::Tensor c = torch::empty({n, n}, opts);
  // .item() on a scalar forces the (possibly asynchronous) matmul to finish.
  auto run = [&] {
    torch::mm_out(c, a, b);
    if (dev.is_cuda()) c.sum().item<float>();
  };
  run();  // warm-up: thread pool start, BLAS buffers, CUDA context
  double best = 1e300;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  return flops / best / 1e9;
}

MachineInfo collectMachineInfo(const std::string& device, bool measure_gemm) {
  MachineInfo info;
  info.blas_core = openBlasCoreName();
  info.heap_policy = heapPolicy();
  info.libtorch_version = TORCH_VERSION;
  info.threads = torch::get_num_threads();
  info.blas_threads = openBlasThreads();
  info.thread_waits = threadWaitPolicy();
  const torch::Device dev(device);
  if (dev.is_cuda()) {
    const int index = dev.has_index() ? dev.index() : 0;
    const std::string name = cudaDeviceName(index);
    info.device = "cuda:" + std::to_string(index) + (name.empty() ? "" : " (" + name + ")");
  } else {
    info.device = "cpu";
  }
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;
  if (measure_gemm) info.gemm_gflops = measureGemmGflops(device);
  return info;
}

}  // namespace recurlab
