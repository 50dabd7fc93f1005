# shellcheck shell=bash
# Sourced by scripts/gpu-run.sh and scripts/gpu-check.sh: the choice of a C++ compiler that links
# the shared libstdc++, the one LibTorch loads. Some GPU nodes set CXX to a g++ wrapper that adds
# -static-libstdc++; built with it, recurlab carries a second C++ runtime and dies with SIGSEGV
# (CMake refuses such a compiler: cmake/shared_libstdcxx.cmake).

# The probe program CMake's check links too.
SHARED_RUNTIME_CXX_PROBE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../cmake" && pwd)/shared_libstdcxx_probe.cpp

# cxx_links_shared_libstdcxx CXX: status 0 when CXX links the probe so that its C++ runtime calls
# bind to libstdc++.so (its version needs, readelf -V, name that file); 1 when they do not (a
# static copy); 2 when CXX (or readelf) is missing or cannot link it.
cxx_links_shared_libstdcxx() {
  local cxx=$1 dir status=2
  command -v "$cxx" > /dev/null 2>&1 || return 2
  command -v readelf > /dev/null 2>&1 || return 2
  dir=$(mktemp -d)
  if "$cxx" "$SHARED_RUNTIME_CXX_PROBE" -o "$dir/probe" > /dev/null 2>&1; then
    status=1
    grep -q 'File: libstdc++\.so' <<< "$(readelf -V "$dir/probe" 2> /dev/null)" && status=0
  fi
  rm -rf "$dir"
  return "$status"
}

# pick_shared_runtime_cxx: the first of $CXX (when set), c++, g++, /usr/bin/c++ and /usr/bin/g++
# that links the shared libstdc++ becomes CXX (exported, its full path); where one before it was
# refused, CUDAHOSTCXX too when that was unset or the refused $CXX (nvcc's host compiler).
# Sets SHARED_RUNTIME_CXX_NOTE to what it did, in one line. Status 1 when none qualifies (CXX is
# then left as it was, and CMake's check says why).
# shellcheck disable=SC2034  # SHARED_RUNTIME_CXX_NOTE is read by the scripts that source this
pick_shared_runtime_cxx() {
  local candidate refused='' why='' status previous=${CXX:-}
  local -a candidates=()
  [[ -n $previous ]] && candidates+=("$previous")
  candidates+=(c++ g++ /usr/bin/c++ /usr/bin/g++)
  for candidate in "${candidates[@]}"; do
    cxx_links_shared_libstdcxx "$candidate" && status=0 || status=$?
    if ((status == 0)); then
      candidate=$(command -v "$candidate")
      export CXX=$candidate
      if [[ -n $refused ]]; then
        if [[ -z ${CUDAHOSTCXX:-} || ${CUDAHOSTCXX:-} == "$previous" ]]; then
          export CUDAHOSTCXX=$candidate
        fi
        SHARED_RUNTIME_CXX_NOTE="C++ compiler $candidate (not $refused: $why)"
      else
        SHARED_RUNTIME_CXX_NOTE="C++ compiler $candidate (links the shared libstdc++)"
      fi
      return 0
    fi
    if [[ -z $refused ]]; then
      refused=$candidate
      why="it cannot link a C++ program"
      ((status == 1)) && why="it links libstdc++ statically"
    fi
  done
  SHARED_RUNTIME_CXX_NOTE="no C++ compiler that links the shared libstdc++ among: ${candidates[*]}"
  return 1
}
