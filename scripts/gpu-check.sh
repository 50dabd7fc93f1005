#!/usr/bin/env bash
# On a GPU machine with a CUDA build of PyTorch: configures recurlab against the PyTorch wheel's
# LibTorch, builds it with the CUDA kernels, runs the CUDA tests (they must run,
# not skip), optionally the whole suite and compute-sanitizer, then the speed experiment on the
# GPU, optionally beside the reference SRU CUDA kernel.
#
# usage: scripts/gpu-check.sh [options] [-- recurlab_speed options...]
#   --deps PACK          an offline node: unpack the Debian packages that
#                        scripts/collect-gpu-deps.sh packed (its folder, or gpu-deps.tar.xz)
#                        into a private prefix first
#   --all-tests          also run the whole test suite against this LibTorch
#   --sanitize           run compute-sanitizer (memcheck, racecheck) over the CUDA tests
#   --reference-sru DIR  time asappresearch/sru's CUDA kernel (DIR holds its `sru` package)
#                        on the same shapes (scripts/bench-reference-sru.py)
#   --no-speed           skip recurlab_speed
#   --out DIR            where recurlab_speed's run folder and the logs go (default results/gpu-check)
#   environment: BUILD (default build-gpu), JOBS (default nproc), PYTHON (default python3),
#                CUDACXX (default /usr/local/cuda/bin/nvcc), TORCH_CUDA_ARCH_LIST (default
#                the visible GPU's compute capability, else 9.0), TORCH_PREFIX (a LibTorch
#                to use instead of the wheel's), RECURLAB_DEPS_PREFIX (default /tmp/recurlab-deps)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD:-build-gpu}
jobs=${JOBS:-$(nproc)}
python=${PYTHON:-python3}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
fail() { echo "gpu-check: $*" >&2; exit 1; }

deps= all_tests= sanitize= reference_sru= speed=1 out=results/gpu-check
while (($#)); do
  case $1 in
    --deps) deps=$2; shift 2 ;;
    --all-tests) all_tests=1; shift ;;
    --sanitize) sanitize=1; shift ;;
    --reference-sru) reference_sru=$2; shift 2 ;;
    --no-speed) speed=; shift ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

[[ -x $nvcc ]] || fail "no nvcc at $nvcc (set CUDACXX)"
export CUDACXX=$nvcc
export CUDA_HOME=${CUDA_HOME:-$(cd "$(dirname "$nvcc")/.." && pwd)}
export PATH="$CUDA_HOME/bin:$PATH"

extra_prefixes=()
cmake_extra=()
if [[ -n $deps ]]; then
  [[ -e $deps ]] || fail "--deps $deps: no such pack (make it with scripts/collect-gpu-deps.sh)"
  source "$root/scripts/unpack-gpu-deps.sh"
  unpack_gpu_deps "$deps" "${RECURLAB_DEPS_PREFIX:-/tmp/recurlab-deps}"
  extra_prefixes+=("$GPU_DEPS_PREFIX/usr" "$GPU_DEPS_PREFIX/usr/lib/x86_64-linux-gnu/cmake")
  cmake_extra+=(-DHDF5_ROOT="$GPU_DEPS_HDF5_ROOT")
fi

if [[ -z ${TORCH_PREFIX:-} ]]; then
  $python -c 'import torch' 2>/dev/null ||
    fail "$python cannot import torch (set PYTHON or TORCH_PREFIX)"
  # The package's root (lib/ and share/ below it), not torch.utils.cmake_prefix_path: with
  # share/cmake, TorchConfig finds a system LibTorch's libraries before its own.
  TORCH_PREFIX=$($python -c 'import os, torch; print(os.path.dirname(torch.__file__))')
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

# PyTorch's CMake files take the architectures from TORCH_CUDA_ARCH_LIST and turn
# CMAKE_CUDA_ARCHITECTURES off; unset, they build for a list that nvcc 13 partly refuses.
if [[ -z ${TORCH_CUDA_ARCH_LIST:-} ]]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 || true)
  [[ $cap =~ ^[0-9]+\.[0-9]+$ ]] || cap=9.0
  export TORCH_CUDA_ARCH_LIST=$cap
fi
echo "TORCH_CUDA_ARCH_LIST=$TORCH_CUDA_ARCH_LIST"

# A C++ compiler that links the shared libstdc++, the one LibTorch loads.
# shellcheck source=scripts/shared-runtime-cxx.sh
source "$root/scripts/shared-runtime-cxx.sh"
pick_shared_runtime_cxx || fail "$SHARED_RUNTIME_CXX_NOTE"
echo "$SHARED_RUNTIME_CXX_NOTE"

generator=()
command -v ninja > /dev/null && [[ ! -f $build/CMakeCache.txt ]] && generator=(-G Ninja)
prefix_path=$(IFS=';'; echo "$TORCH_PREFIX${extra_prefixes:+;${extra_prefixes[*]}}")
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix_path" "${cmake_extra[@]}" \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DTORCH_CUDA_ARCH_LIST="$TORCH_CUDA_ARCH_LIST"
grep -q '^RECURLAB_CUDA_ENABLED:INTERNAL=ON' "$build/CMakeCache.txt" ||
  fail "CMake did not enable the CUDA kernels (the Torch at $TORCH_PREFIX has no CUDA?)"
# Keep going past a failing file, so one run shows every compile error.
if [[ -f $build/build.ninja ]]; then keep_going=(-- -k 0); else keep_going=(-- -k); fi
cmake --build "$build" -j "$jobs" "${keep_going[@]}"

# The CUDA tests; a skipped CUDA test is a failure here.
log="$out/gpu-check-tests.log"
status=0
(cd "$build" && ctest --output-on-failure -j 4 -R 'CudaTest\.') > "$log" 2>&1 || status=1
tail -n 25 "$log"
if grep -q 'CudaTest\..*Skipped' "$log"; then
  fail "CUDA tests were skipped on this machine (see $log): is recurlab built with CUDA?"
fi

if [[ -n $all_tests ]]; then
  (cd "$build" && ctest -j "$jobs" --timeout 600 -E 'CudaTest\.') > "$out/all-tests.log" 2>&1 || status=1
  echo "--- whole suite (CUDA tests excluded) against LibTorch $TORCH_PREFIX:"
  grep -E 'tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|\(Timeout\)|Not Run' "$out/all-tests.log" | tail -n 40
fi

if [[ -n $sanitize ]]; then
  command -v compute-sanitizer > /dev/null || fail "--sanitize: compute-sanitizer is not on PATH"
  for tool in memcheck racecheck; do
    echo "--- compute-sanitizer --tool $tool over the CUDA tests"
    if compute-sanitizer --tool "$tool" --error-exitcode 99 \
        "$build/recurlab_tests" --gtest_filter='*CudaTest.*' > "$out/sanitizer-$tool.log" 2>&1; then
      grep -E 'ERROR SUMMARY|PASSED|FAILED' "$out/sanitizer-$tool.log" | tail -n 5
    else
      status=1
      grep -E 'ERROR SUMMARY|=========|FAILED' "$out/sanitizer-$tool.log" | head -n 40
    fi
  done
fi

if [[ -n $speed ]]; then
  "$build/recurlab_speed" --device cuda --out "$out/speed" "$@" || status=1
fi
if [[ -n $reference_sru ]]; then
  $python "$root/scripts/bench-reference-sru.py" --sru "$reference_sru" \
    --out "$out/reference-sru.json" || status=1
fi
exit $status
