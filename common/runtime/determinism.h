#pragma once
// The determinism switch (--deterministic). On the CPU recurlab's runs repeat bit for bit with
// or without it (every kernel has one fixed reduction order). On CUDA it asks LibTorch for
// deterministic algorithms where they exist (cuDNN's deterministic convolutions, no cuDNN
// benchmarking, cuBLAS with a fixed workspace), and warns, instead of failing, on the ops that
// have none (e.g. index_add_ and scatter-add backward on CUDA): docs/gpu.md says what it costs.
namespace recurlab {

void applyDeterministicAlgorithms(bool deterministic);

}  // namespace recurlab
