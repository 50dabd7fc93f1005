#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages recurlab needs that are missing.
# Idempotent: with everything present it installs nothing. `--check` only reports, exit 1 if
# something is missing. `--bench` adds the optional PyTorch (Python) that `make bench` times
# recurlab against (with --check: checks it too).
set -euo pipefail

PACKAGES=(
  build-essential cmake git pkg-config ccache
  libtorch-dev                      # LibTorch 1.13 (CPU)
  libopenblas0-pthread libopenblas-pthread-dev  # without it every matmul is 5-10x slower
  libhdf5-dev hdf5-tools            # HDF5 C++ API; h5dump to read the logs
  libboost-program-options-dev
  nlohmann-json3-dev
  libgnuplot-iostream-dev gnuplot-nox
  libgtest-dev
  libsentencepiece-dev
  libgloo-dev                       # c10d's ProcessGroupGloo headers: data-parallel training
  libicu-dev                        # Unicode lowercase and classes (SQuAD evaluator)
  clang libclang-rt-dev             # libFuzzer targets of fuzz/ (make fuzz, the FuzzLoaders test)
)

check=0
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    --bench) PACKAGES+=(python3-torch) ;;  # the same LibTorch and OpenBLAS, from Python
    *) echo "usage: $0 [--check] [--bench]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((check)); then
  if ((${#missing[@]})); then
    echo "recurlab: missing Debian packages: ${missing[*]}" >&2
    exit 1
  fi
  exit 0
fi

if ((${#missing[@]} == 0)); then
  echo "recurlab: all dependencies are installed"
  exit 0
fi

echo "recurlab: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "recurlab: need root (or sudo) to apt-get install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "recurlab: dependencies installed"
