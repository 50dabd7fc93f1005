#!/usr/bin/env bash
# static-libstdcxx-cxx.sh PATH: writes at PATH a C++ compiler that links libstdc++ statically, a
# wrapper around this machine's c++ that adds -static-libstdc++ (a GPU node's CXX was one).
set -euo pipefail
real=$(command -v c++ || command -v g++)
printf '#!/bin/sh\nexec %s -static-libstdc++ "$@"\n' "$real" > "$1"
chmod +x "$1"
