#!/usr/bin/env bash
# Installs the second LibTorch recurlab is built and tested against: the one inside PyPI's
# `torch` wheel at the version the project's GPU machines run (PyTorch 2.11.0 with CUDA 13.0,
# the cu130 build PyPI serves for Linux x86-64), with its CUDA libraries, into a folder of its
# own (no virtual environment, nothing on sys.path). Its LibTorch builds and runs on a machine
# without a GPU: CUDA initialises only when a CUDA tensor is made.
#
# usage: scripts/install-torch2.sh [--root]
#   --root   print the torch package's root folder (for CMAKE_PREFIX_PATH) and install nothing;
#            exit 1 if it is not installed
# environment: RECURLAB_TORCH2_DIR (default ~/.cache/recurlab/torch-<version>), PYTHON (python3)
set -euo pipefail

# The one pin of the second LibTorch: the version on the GPU machines (python3's torch there).
TORCH2_VERSION=2.11.0

dir=${RECURLAB_TORCH2_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/recurlab/torch-$TORCH2_VERSION}
python=${PYTHON:-python3}
root=$dir/torch

installed() {
  [[ -f $root/share/cmake/Torch/TorchConfig.cmake ]] &&
    grep -q "^__version__ = '$TORCH2_VERSION[+']" "$root/version.py" 2>/dev/null
}

if [[ ${1:-} == --root ]]; then
  installed || { echo "install-torch2: torch $TORCH2_VERSION is not in $dir" >&2; exit 1; }
  echo "$root"
  exit 0
fi
[[ $# -eq 0 ]] || { echo "usage: $0 [--root]" >&2; exit 2; }

if installed; then
  echo "install-torch2: torch $TORCH2_VERSION is in $dir"
  exit 0
fi
command -v "$python" > /dev/null || { echo "install-torch2: no $python (set PYTHON)" >&2; exit 1; }
echo "install-torch2: installing torch==$TORCH2_VERSION from PyPI into $dir (about 4.5 GB)"
rm -rf "$dir.partial"
"$python" -m pip install --quiet --no-compile --disable-pip-version-check \
  --target "$dir.partial" "torch==$TORCH2_VERSION"
rm -rf "$dir"
mv "$dir.partial" "$dir"
installed || { echo "install-torch2: $root has no TorchConfig.cmake after pip install" >&2; exit 1; }
echo "install-torch2: done ($(du -sh "$dir" | cut -f1))"
