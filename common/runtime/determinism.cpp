#include "common/runtime/determinism.h"

#include <ATen/Context.h>

#include <cstdlib>

namespace recurlab {

void applyDeterministicAlgorithms(bool deterministic) {
  // cuBLAS picks its reduction split by workspace: a fixed one makes GEMMs repeat (NVIDIA's
  // cuBLAS documentation, "Results reproducibility"). Read when cuBLAS starts, so set first.
  if (deterministic) setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
  auto& context = at::globalContext();
  context.setDeterministicAlgorithms(deterministic, /*warn_only=*/true);
  context.setDeterministicCuDNN(deterministic);
  if (deterministic) context.setBenchmarkCuDNN(false);
}

}  // namespace recurlab
