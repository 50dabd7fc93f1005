#!/usr/bin/env bash
# Checks that the offline GPU pack (scripts/collect-gpu-deps.sh) holds everything recurlab's
# CMake looks for: unpacks it into a temporary prefix as scripts/gpu-check.sh --deps does and
# configures the project against that prefix and the PyTorch wheel's LibTorch alone, with the
# system's /usr, /usr/local, / and /opt invisible to CMake's find_* calls (the compiler, CMake's
# own modules and CUDA stay). Then it checks that
#   - every package was found in the prefix, none on the system (CMakeCache.txt), and
#   - every header the sources #include that a packed package provides is in the pack, and
#     preprocesses with nothing of the system's copies (which catches Boost headers pruned
#     too far).
# A missing package fails the configure with CMake's "Could NOT find ..." error.
#
# usage: scripts/check-offline-configure.sh [PACK]
#   PACK  what collect-gpu-deps.sh made: its folder, gpu-deps.tar.xz, or a folder of .deb files.
#         Default: collect a pack now (GPU_DEPS_CACHE keeps its .deb files between runs; it is
#         compressed with GPU_DEPS_XZ, default -0 here: the check needs the contents, not the
#         size).
#   environment: TORCH_ROOT (default: scripts/install-torch2.sh --root, the torch package
#                folder of a PyTorch >= 2 install), CUDACXX (default
#                /usr/local/cuda/bin/nvcc; needed where that torch has CUDA), KEEP=1 (keep the
#                temporary folder)
# exit status: 0 configured; 1 a failure (the reason on stderr); 77 prerequisites absent (no
# apt-get/dpkg-deb, torch install, nvcc for a CUDA torch, or cmake): a CTest skip; under
# RECURLAB_REQUIRE_ALL_TESTS=1 (.ci/run) a failure, except for the missing nvcc (CUDA toolchain).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pack=${1:-}
torch=${TORCH_ROOT:-$("$root/scripts/install-torch2.sh" --root 2>/dev/null || true)}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
# skip REASON: exit 77, or 1 under RECURLAB_REQUIRE_ALL_TESTS=1; cuda_skip REASON: always 77.
cuda_skip() { echo "recurlab skip: no CUDA toolchain: $*"; exit 77; }
skip() {
  if [[ ${RECURLAB_REQUIRE_ALL_TESTS:-} == 1 ]]; then
    fail "RECURLAB_REQUIRE_ALL_TESTS=1, and this test cannot run: $*"
  fi
  echo "recurlab skip: missing: $*"
  exit 77
}
fail() { echo "check-offline-configure: FAILED: $*" >&2; exit 1; }

command -v cmake > /dev/null || skip "no cmake"
[[ -f $torch/share/cmake/Torch/TorchConfig.cmake ]] ||
  skip "no PyTorch install at $torch (set TORCH_ROOT to its torch folder)"
if [[ -z $pack ]]; then
  if ! command -v apt-get > /dev/null || ! command -v dpkg-deb > /dev/null; then
    skip "no apt-get/dpkg-deb to collect the pack with"
  fi
elif [[ ! -e $pack ]]; then
  fail "no pack at $pack"
fi
cuda_args=()
if compgen -G "$torch/lib/libtorch_cuda.so" > /dev/null; then
  [[ -x $nvcc ]] || cuda_skip "the torch at $torch has CUDA, and there is no nvcc at $nvcc (set CUDACXX)"
  cuda_args=(-DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90)
fi

tmp_base=${TMPDIR:-/tmp}
if [[ -z ${TMPDIR:-} && -w /dev/shm ]] &&
   (($(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') > 1024 * 1024)); then
  tmp_base=/dev/shm
fi
tmp=$(mktemp -d "$tmp_base/check-offline-configure.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
  echo "check-offline-configure: keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
start=$SECONDS

if [[ -z $pack ]]; then
  GPU_DEPS_XZ=${GPU_DEPS_XZ:--0} "$root/scripts/collect-gpu-deps.sh" "$tmp/pack"
  pack=$tmp/pack
fi
collected=$SECONDS
# shellcheck source=scripts/unpack-gpu-deps.sh
source "$root/scripts/unpack-gpu-deps.sh"
unpack_gpu_deps "$pack" "$tmp/prefix"
prefix=$GPU_DEPS_PREFIX

# ---- configure, the system's prefixes hidden ---------------------------------------------------
# CMAKE_SYSTEM_PREFIX_PATH's entries (CMake's install prefix is /usr here); config mode and every
# find_library/find_path/find_program below them, PATH's bin folders' prefixes included. The
# compiler's own folders (OpenMP's libgomp) are not prefixes and stay; so does CUDA's.
ignored='/usr;/usr/local;/;/opt;/usr/X11R6;/usr/pkg'
unset CMAKE_PREFIX_PATH CMAKE_INCLUDE_PATH CMAKE_LIBRARY_PATH CMAKE_PROGRAM_PATH
echo "check-offline-configure: cmake -S $root -B $tmp/build (prefix $prefix, torch $torch)"
if ! cmake -S "$root" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$torch;$prefix/usr;$prefix/usr/lib/x86_64-linux-gnu/cmake" \
    -DHDF5_ROOT="$GPU_DEPS_HDF5_ROOT" \
    -DCMAKE_IGNORE_PREFIX_PATH="$ignored" -DCMAKE_SYSTEM_IGNORE_PREFIX_PATH="$ignored" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
    "${cuda_args[@]}" > "$tmp/configure.log" 2>&1; then
  grep -B 2 -A 12 'CMake Error' "$tmp/configure.log" | head -n 60 >&2
  fail "cmake cannot configure recurlab against the pack $pack alone (log above)"
fi
configured=$SECONDS

# ---- every packed package came from the prefix -------------------------------------------------
cache=$tmp/build/CMakeCache.txt
leaks=$(grep -E '^(HDF5|Boost|boost|ICU|ZLIB|GTest|GMock|GTEST|GMOCK|nlohmann_json|SENTENCEPIECE|GLOO)[A-Za-z0-9_]*:[A-Z]+=' \
          "$cache" | while IFS= read -r entry; do
  [[ ${entry%%:*} == *_EXECUTABLE ]] && continue  # ICU's tools, say: PATH is not hidden
  IFS=';' read -ra values <<< "${entry#*=}"
  for value in "${values[@]}"; do
    [[ $value == /* && $value != "$prefix"/* ]] && echo "  ${entry%%:*} = $value"
  done
done || :)
[[ -z $leaks ]] || fail "found on the system instead of in the pack:"$'\n'"$leaks"
torch_dir=$(sed -n 's/^Torch_DIR:PATH=//p' "$cache")
[[ $torch_dir == "$torch"/* ]] || fail "Torch came from $torch_dir, not from $torch"
echo "check-offline-configure: configured; HDF5, Boost, ICU, ZLIB, GTest, nlohmann_json and" \
     "sentencepiece all from the pack, Torch from $torch"

# ---- the headers the sources include -----------------------------------------------------------
# Each #include <X> of the sources is looked up in the pack, then in torch and CUDA; where it is
# only in the system's /usr/include, it must come from the C library or the kernel headers.
includes=("$prefix/usr/include" "$prefix/usr/include/hdf5/serial")
others=("$torch/include" "$torch/include/torch/csrc/api/include" "$(dirname "$nvcc")/../include")
in_pack=() system_only=()
while IFS= read -r header; do
  found=
  for dir in "${includes[@]}"; do [[ -e $dir/$header ]] && found=pack; done
  if [[ -z $found ]]; then
    for dir in "${others[@]}"; do [[ -e $dir/$header ]] && found=other; done
  fi
  case $found in
    pack) in_pack+=("$header") ;;
    other) ;;
    *) for dir in /usr/include /usr/include/hdf5/serial; do
         [[ -e $dir/$header ]] && { system_only+=("$dir/$header"); break; }
       done ;;
  esac
done < <(cd "$root" && git ls-files -- '*.cpp' '*.h' '*.hpp' '*.cc' '*.cu' '*.cuh' |
           xargs grep -hoE '^\s*#\s*include\s*<[^>]+>' | sed -E 's/.*<([^>]+)>/\1/' | sort -u)
if ((${#system_only[@]})) && command -v dpkg > /dev/null; then
  missing=$(dpkg -S "${system_only[@]}" 2>/dev/null |
    grep -Ev '^(libc6-dev|linux-libc-dev|libc6|libgcc-[0-9]+-dev|libstdc\+\+-[0-9]+-dev|libcrypt-dev)(:[a-z0-9]+)?: ' || :)
  [[ -z $missing ]] || fail "the sources include headers the pack lacks (package: header):"$'\n'"$missing"
fi
printf '#include <%s>\n' "${in_pack[@]}" > "$tmp/includes.cpp"
"${CXX:-c++}" -std=c++17 -x c++ -M -MT x "${includes[@]/#/-I}" "$tmp/includes.cpp" > "$tmp/includes.d" ||
  fail "the headers the sources include from the pack do not preprocess against it"
# A header of a packed library resolved on the system (its first folder is one the pack has).
leaks=$(awk '{ for (i = 1; i <= NF; i++) print $i }' "$tmp/includes.d" | grep '^/usr/include/' | sed 's|^/usr/include/||' |
  while IFS= read -r path; do
    [[ -e $prefix/usr/include/${path%%/*} ]] && echo "  /usr/include/$path"
  done || :)
[[ -z $leaks ]] || fail "headers of packed libraries resolved outside the pack (pruned too far?):"$'\n'"$leaks"
echo "check-offline-configure: the ${#in_pack[@]} headers the sources include from the pack" \
     "preprocess against it alone"
echo "check-offline-configure: passed (collect $((collected - start)) s, unpack + configure" \
     "$((configured - collected)) s, checks $((SECONDS - configured)) s)"
