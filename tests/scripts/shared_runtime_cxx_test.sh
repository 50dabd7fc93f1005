#!/usr/bin/env bash
# scripts/shared-runtime-cxx.sh, the C++ compiler gpu-run.sh and gpu-check.sh build with: with CXX
# and the c++ and g++ first on PATH all linking libstdc++ statically (as on a GPU node whose CXX
# is such a wrapper), it picks /usr/bin's, exports it as CXX and CUDAHOSTCXX and says which it
# refused and why; a CXX that links the shared libstdc++ is kept; a CXX that is not there is
# refused as unable to link.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
"$root/tests/support/static-libstdcxx-cxx.sh" "$tmp/bin/g++"
"$root/tests/support/static-libstdcxx-cxx.sh" "$tmp/bin/c++"
system_cxx=$(PATH=/usr/bin command -v c++)
failures=0
check() {  # check WHAT GOT EXPECTED
  if [[ $2 == "$3" ]]; then echo "ok: $1: $2"; else echo "FAILED: $1: '$2', expected '$3'"; failures=$((failures + 1)); fi
}

# pick ENV...: runs the picker in a clean shell with ENV; prints status, CXX, CUDAHOSTCXX, note.
pick() {
  env -u CXX -u CUDAHOSTCXX "$@" bash -c 'source "$0"; pick_shared_runtime_cxx && s=0 || s=$?
    printf "%s|%s|%s|%s\n" "$s" "${CXX:-}" "${CUDAHOSTCXX:-}" "$SHARED_RUNTIME_CXX_NOTE"' \
    "$root/scripts/shared-runtime-cxx.sh"
}

IFS='|' read -r status cxx host note < <(pick PATH="$tmp/bin:$PATH" CXX="$tmp/bin/g++")
check "static CXX and PATH: status" "$status" 0
check "static CXX and PATH: CXX" "$cxx" "$system_cxx"
check "static CXX and PATH: CUDAHOSTCXX" "$host" "$system_cxx"
check "static CXX and PATH: note" "$note" \
  "C++ compiler $system_cxx (not $tmp/bin/g++: it links libstdc++ statically)"

IFS='|' read -r status cxx host note < <(pick CXX="$system_cxx" CUDAHOSTCXX=/somewhere/g++)
check "shared CXX: status" "$status" 0
check "shared CXX: CXX" "$cxx" "$system_cxx"
check "shared CXX: CUDAHOSTCXX untouched" "$host" /somewhere/g++
check "shared CXX: note" "$note" "C++ compiler $system_cxx (links the shared libstdc++)"

IFS='|' read -r status cxx host note < <(pick CXX="$tmp/no-such-g++")
check "missing CXX: CXX" "$cxx" "$(command -v c++)"
check "missing CXX: note" "$note" \
  "C++ compiler $(command -v c++) (not $tmp/no-such-g++: it cannot link a C++ program)"
((failures == 0))
