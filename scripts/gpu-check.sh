#!/usr/bin/env bash
# On a GPU machine with a CUDA build of PyTorch installed: configures recurlab against the
# PyTorch wheel's LibTorch (design.md §2), builds it with the CUDA kernels, runs the CUDA tests
# (they must run, not skip) and then the speed experiment on the GPU.
#
# usage: scripts/gpu-check.sh [recurlab_speed options...]
#   environment: BUILD (default build-gpu), JOBS (default nproc), PYTHON (default python3),
#                CUDACXX (default /usr/local/cuda/bin/nvcc), CUDA_ARCHITECTURES (default
#                native), TORCH_PREFIX (a LibTorch to use instead of the wheel's)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD:-build-gpu}
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-python3}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
fail() { echo "gpu-check: $*" >&2; exit 1; }

[[ -x $nvcc ]] || fail "no nvcc at $nvcc (set CUDACXX)"
export CUDACXX=$nvcc
export CUDA_HOME=${CUDA_HOME:-$(cd "$(dirname "$nvcc")/.." && pwd)}
export PATH="$CUDA_HOME/bin:$PATH"

if [[ -z ${TORCH_PREFIX:-} ]]; then
  $python -c 'import torch' 2>/dev/null ||
    fail "$python cannot import torch (set PYTHON or TORCH_PREFIX)"
  TORCH_PREFIX=$($python -c 'import torch; print(torch.utils.cmake_prefix_path)')
  read -r torch_version torch_cuda torch_gpu torch_abi < <($python -c '
import torch
print(torch.__version__, torch.version.cuda, torch.cuda.is_available(),
      int(torch._C._GLIBCXX_USE_CXX11_ABI))')
  echo "PyTorch $torch_version, built with CUDA $torch_cuda, GPU visible: $torch_gpu"
  [[ $torch_cuda != None ]] || fail "this PyTorch has no CUDA"
  [[ $torch_gpu == True ]] || fail "PyTorch sees no GPU"
  # Debian's Boost, HDF5 and GoogleTest use the C++11 string ABI; a pre-C++11-ABI LibTorch
  # (PyTorch wheels before 2.7) cannot be linked with them.
  [[ $torch_abi == 1 ]] || fail "this PyTorch wheel uses the pre-C++11 ABI; install PyTorch" \
    ">= 2.7 or a cxx11-ABI LibTorch and set TORCH_PREFIX to it"
fi
echo "LibTorch: $TORCH_PREFIX"
echo "nvcc: $("$nvcc" --version | tail -n 2 | head -n 1)"
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-native}"
grep -q '^RECURLAB_CUDA_ENABLED:INTERNAL=ON' "$build/CMakeCache.txt" ||
  fail "CMake did not enable the CUDA kernels (the Torch at $TORCH_PREFIX has no CUDA?)"
cmake --build "$build" -j "$jobs"

# The CUDA tests, then the CUDA compile check; a skipped CUDA test is a failure here.
log="$build/gpu-check-tests.log"
(cd "$build" && ctest --output-on-failure -R 'CudaTest\.|cuda_sources_compile') | tee "$log"
if grep -q 'CudaTest\..*(Skipped)' "$log"; then
  fail "CUDA tests were skipped on this machine (see $log): is recurlab built with CUDA?"
fi

if [[ -x $build/recurlab_speed ]]; then
  "$build/recurlab_speed" --device cuda "$@"
else
  echo "gpu-check: $build/recurlab_speed not built (experiments/drivers/recurlab_speed.cpp missing);" \
       "speed experiment not run" >&2
  exit 1
fi
