#!/usr/bin/env bash
# Compiles recurlab's CUDA sources where there is no GPU and no CUDA-enabled LibTorch (the CI
# machine), so they cannot rot:
#   1. nvcc -c on every kernels/cuda/*.cu, for sm_80 and sm_90 in one nvcc call per file,
#      warnings as errors;
#   2. with --glue: the Torch glue (kernels/cuda/*.cpp) and the CUDA tests that use c10's CUDA
#      API (tests/kernels/cuda/*.cpp), with RECURLAB_WITH_CUDA defined, syntax only, against the
#      Torch headers given. Debian's CPU LibTorch ships c10's CUDA headers but not the header
#      its build generates (c10/cuda/impl/cuda_cmake_macros.h, one macro); a stub stands in.
# Exits 77 (CTest: skipped) when nvcc is not found. Used by the CTest test cuda_sources_compile.
#
# usage: scripts/check-cuda-sources.sh [--nvcc PATH] [--glue] [--cxx PATH]
#                                      [--torch-include DIR]... [--jobs N]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvcc=${NVCC:-}
cxx=${CXX:-c++}
glue=0
jobs=1
torch_includes=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --nvcc) nvcc=$2; shift 2 ;;
    --cxx) cxx=$2; shift 2 ;;
    --glue) glue=1; shift ;;
    --torch-include) torch_includes+=("$2"); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "check-cuda-sources: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [[ -z $nvcc || ! -x $nvcc ]]; then
  nvcc=$(command -v nvcc || true)
  [[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
fi
if [[ -z $nvcc ]]; then
  echo "SKIPPED: nvcc not found (looked at \$NVCC, PATH and /usr/local/cuda/bin); the CUDA" \
       "sources were not compiled"
  exit 77
fi
if [[ ${#torch_includes[@]} -eq 0 ]]; then
  torch_includes=(/usr/include /usr/include/torch/csrc/api/include)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/recurlab-cuda-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
cuda_include=$(cd "$(dirname "$nvcc")/.." && pwd)/include

echo "nvcc: $nvcc ($("$nvcc" --version | tail -n 2 | head -n 1))"
# Runs "$@" in the background, at most $jobs at a time; a failure leaves its log on stdout and
# the file $work/failed behind.
run() {
  local name=$1; shift
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
  (
    start=$SECONDS
    if "$@" > "$work/$name.log" 2>&1; then
      echo "ok   $name ($((SECONDS - start)) s)"
    else
      echo "FAIL $name:"; cat "$work/$name.log"; touch "$work/failed"
    fi
  ) &
}

shopt -s nullglob
cu_files=("$root"/kernels/cuda/*.cu)
if [[ ${#cu_files[@]} -eq 0 ]]; then echo "no kernels/cuda/*.cu found under $root" >&2; exit 1; fi
for src in "${cu_files[@]}"; do
  name=$(basename "$src")
  run "$name" "$nvcc" -std=c++17 -I"$root" \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -Xcompiler=-Wall,-Wextra,-Werror --Werror all-warnings \
    -c "$src" -o "$work/$name.o"
done

if [[ $glue -eq 1 ]]; then
  mkdir -p "$work/stub/c10/cuda/impl"
  printf '#pragma once\n#define C10_CUDA_BUILD_SHARED_LIBS\n' \
    > "$work/stub/c10/cuda/impl/cuda_cmake_macros.h"
  include_flags=()
  for dir in "${torch_includes[@]}"; do
    # The compiler's own system directories must keep their place (#include_next).
    case $dir in /usr/include|/usr/local/include) continue ;; esac
    include_flags+=(-isystem "$dir")
  done
  # The CPU build compiles the CUDA tests too, all but their RECURLAB_WITH_CUDA parts; of those
  # only the ones using c10's CUDA API (streams, guards) are worth the time here.
  cuda_only_tests=()
  for src in "$root"/tests/kernels/cuda/*.cpp; do
    if grep -q '^#include <c10/cuda/' "$src"; then cuda_only_tests+=("$src"); fi
  done
  # The ops' dispatch by device (kernels/*.cpp) calls the CUDA glue only with RECURLAB_WITH_CUDA.
  op_dispatch=()
  for src in "$root"/kernels/*.cpp "$root"/kernels/cpu/*.cpp; do
    if grep -q 'RECURLAB_WITH_CUDA\|dispatchByDevice' "$src"; then op_dispatch+=("$src"); fi
  done
  for src in "$root"/kernels/cuda/*.cpp "${cuda_only_tests[@]}" "${op_dispatch[@]}"; do
    name=${src#"$root"/}; name=${name//\//_}
    run "$name" "$cxx" -std=c++17 -fsyntax-only -fopenmp-simd -Wall -Wextra -Werror -DRECURLAB_WITH_CUDA \
      -I"$root" "${include_flags[@]}" -isystem "$work/stub" -isystem "$cuda_include" "$src"
  done
fi
wait
if [[ -e $work/failed ]]; then echo "check-cuda-sources: FAILED"; exit 1; fi
echo "check-cuda-sources: all CUDA sources compile"
