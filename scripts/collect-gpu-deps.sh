#!/usr/bin/env bash
# Collects, on a Debian 12 machine with network, the Debian packages recurlab needs to build
# on an offline GPU node (a cluster compute node, a bare device machine) that has CUDA, nvcc,
# a C++ compiler and PyTorch but none of Debian's -dev packages: HDF5 C++, Boost
# (program_options, iostreams, filesystem, system), nlohmann/json, GoogleTest, gnuplot-iostream,
# sentencepiece, and the run-time libraries they pull in. The C library and the compiler's
# run-time libraries are left out: the node's own are newer and must be the ones used.
#
# usage: scripts/collect-gpu-deps.sh [DIR]      (default DIR: gpu-deps, git-ignored)
# then carry DIR to the node and run: scripts/gpu-check.sh --deps DIR
set -euo pipefail

out=${1:-gpu-deps}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# What CMake and the compiler read (headers, CMake configs, .so links, static GoogleTest).
DEV_PACKAGES=(
  libhdf5-dev hdf5-tools
  libboost1.74-dev libboost-program-options1.74-dev libboost-iostreams1.74-dev
  libboost-filesystem1.74-dev libboost-system1.74-dev libboost-atomic1.74-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev libgnuplot-iostream-dev
  libsentencepiece-dev libprotobuf-lite32
)
# What the binaries load at run time; their dependency closure is added below.
RUNTIME_PACKAGES=(
  libhdf5-103-1 libhdf5-cpp-103-1 libhdf5-hl-100 libhdf5-hl-cpp-100
  libboost-program-options1.74.0 libboost-iostreams1.74.0 libboost-filesystem1.74.0
  libboost-system1.74.0 libboost-atomic1.74.0 libsentencepiece0 hdf5-tools
)
# Never shipped: the node's C library and compiler run-time are newer than Debian 12's.
EXCLUDED='^(libc6|libgcc-s1|libstdc\+\+6|gcc-12-base|libcrypt1|debconf|dpkg|perl-base)$'

command -v apt-get > /dev/null || { echo "collect-gpu-deps: needs apt-get (Debian 12)" >&2; exit 1; }
if [[ ! -d /var/lib/apt/lists ]] || [[ -z $(ls /var/lib/apt/lists 2>/dev/null | grep -v lock) ]]; then
  apt-get update -qq
fi

mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${RUNTIME_PACKAGES[@]}" 2>/dev/null |
  grep -v '^ ' | grep -v '^<' | grep -Ev "$EXCLUDED" | sort -u)
packages=($(printf '%s\n' "${DEV_PACKAGES[@]}" "${closure[@]}" | sort -u))

echo "collect-gpu-deps: downloading ${#packages[@]} packages into $out"
(cd "$out" && apt-get download -qq "${packages[@]}")
printf '%s\n' "${packages[@]}" > "$out/PACKAGES"
du -sh "$out"
