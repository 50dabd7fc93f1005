#!/usr/bin/env bash
# cmake/shared_libstdcxx.cmake on a project of nothing else: this machine's compiler passes; a
# compiler that links libstdc++ statically is refused, naming the compiler, for an executable
# and (with libstdc++ linked first for executables only) for a module; with libstdc++ linked
# first for both, as CMakeLists.txt does under LibTorch 2, the same compiler passes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
project=$root/tests/cmake/shared_libstdcxx_project
static_cxx=$tmp/static-g++
"$root/tests/support/static-libstdcxx-cxx.sh" "$static_cxx"
first=" -Wl,--push-state,--no-as-needed -lstdc++ -Wl,--pop-state"
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# expect NAME passes|refused PATTERN CMAKE_ARGS...: configures the project in its own folder.
expect() {
  local name=$1 outcome=$2 pattern=$3 status=0
  shift 3
  cmake -S "$project" -B "$tmp/$name" "$@" > "$tmp/$name.log" 2>&1 || status=$?
  if [[ $outcome == passes && $status != 0 ]]; then
    fail "$name: the configure failed:"; cat "$tmp/$name.log"
  elif [[ $outcome == refused && $status == 0 ]]; then
    fail "$name: the configure passed, expected a refusal"; cat "$tmp/$name.log"
  elif ! grep -q -- "$pattern" <<< "$(tr -s ' \n' ' ' < "$tmp/$name.log")"; then
    fail "$name: no '$pattern' in its output:"; cat "$tmp/$name.log"
  else
    echo "ok: $name $outcome ($pattern)"
  fi
}

expect this-machine passes "executables and modules load the shared libstdc++"
expect static refused "$static_cxx links libstdc++ statically: a probe executable" \
  -DCMAKE_CXX_COMPILER="$static_cxx"
expect static-module refused "links libstdc++ statically: a probe module" \
  -DCMAKE_CXX_COMPILER="$static_cxx" -DCMAKE_EXE_LINKER_FLAGS="$first"
expect static-libstdcxx-first passes "executables and modules load the shared libstdc++" \
  -DCMAKE_CXX_COMPILER="$static_cxx" -DCMAKE_EXE_LINKER_FLAGS="$first" \
  -DCMAKE_MODULE_LINKER_FLAGS="$first"
((failures == 0))
