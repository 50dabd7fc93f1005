#!/usr/bin/env bash
# Collects, on a Debian 12 machine with network, what recurlab needs to build on an offline GPU
# node (a cluster compute node, a bare device machine) that has CUDA, nvcc, a C++ compiler and
# PyTorch (whose wheel provides LibTorch) but none of Debian's -dev packages: every package that
# CMakeLists.txt finds (HDF5 C/C++, Boost program_options/iostreams/filesystem/system,
# nlohmann/json, GoogleTest/GMock, ICU uc, zlib, sentencepiece + sentencepiece_train), h5dump,
# and the run-time libraries they pull in. The C library and the compiler's run-time libraries
# are left out: the node's own are newer and must be the ones used. Nothing of torch.
#
# The packages are unpacked here and pruned into one archive, DIR/gpu-deps.tar.xz: no static
# libraries but GoogleTest's and GMock's (Debian has no shared ones), no docs, man pages or
# locales, no ICU libraries but uc and data (the only ones CMake asks for), and of Boost's
# headers only the folders that program_options, iostreams, filesystem and system include
# (computed by the compiler, then checked). Absolute symlinks become relative ones.
#
# usage: scripts/collect-gpu-deps.sh [--keep-debs] [DIR]    (default DIR: gpu-deps, git-ignored)
#   --keep-debs   also copy the .deb files into DIR (scripts/unpack-gpu-deps.sh takes either)
#   environment: GPU_DEPS_CACHE  folder that keeps the downloaded .deb files between runs
#                                (default: a temporary folder, removed at the end)
#                GPU_DEPS_XZ     xz options (default -6); GPU_DEPS_XZ=-0 is fast, and bigger
#                GPU_DEPS_WITH_GLOO=1  add libgloo-dev (off: Debian's gloo is older than the
#                                one built into the PyTorch wheel; see docs/gpu.md)
#                CXX             the compiler that traces Boost's includes (default c++)
# then carry DIR (or only DIR/gpu-deps.tar.xz) to the node and run:
#   scripts/gpu-check.sh --deps DIR
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
keep_debs=
while (($#)); do
  case $1 in
    --keep-debs) keep_debs=1; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    -*) echo "collect-gpu-deps: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
out=${1:-gpu-deps}

# What CMake and the compiler read: headers, CMake configs, .so links, static GoogleTest.
DEV_PACKAGES=(
  libhdf5-dev                                   # find_package(HDF5 COMPONENTS C CXX)
  libboost1.74-dev libboost-program-options1.74-dev libboost-iostreams1.74-dev
  libboost-filesystem1.74-dev libboost-system1.74-dev libboost-atomic1.74-dev
  nlohmann-json3-dev                            # find_package(nlohmann_json 3)
  libgtest-dev libgmock-dev                     # find_package(GTest): GTest::gtest, GTest::gmock
  libicu-dev                                    # find_package(ICU COMPONENTS uc)
  zlib1g-dev                                    # find_package(ZLIB)
  libsentencepiece-dev                          # find_library(sentencepiece, sentencepiece_train)
)
# What the binaries load at run time (and the linker reads); their dependency closure is added.
RUNTIME_PACKAGES=(
  libhdf5-103-1 libhdf5-cpp-103-1 libhdf5-hl-100 libhdf5-hl-cpp-100
  libboost-program-options1.74.0 libboost-iostreams1.74.0 libboost-filesystem1.74.0
  libboost-system1.74.0 libboost-atomic1.74.0 libicu72 zlib1g libsentencepiece0
  libprotobuf-lite32 hdf5-tools                 # h5dump: the HDF5 run-log test reads with it
)
if [[ ${GPU_DEPS_WITH_GLOO:-0} == 1 ]]; then
  DEV_PACKAGES+=(libgloo-dev)                   # find_path(gloo/config.h), find_library(gloo)
  RUNTIME_PACKAGES+=(libgloo0)
fi
# Never shipped: the node's C library and compiler run-time are newer than Debian 12's.
EXCLUDED='^(libc6|libgcc-s1|libstdc\+\+6|gcc-12-base|libcrypt1|debconf|dpkg|perl-base|adduser)$'
# Boost libraries whose headers are kept (with everything they include).
BOOST_LIBRARIES=(program_options iostreams filesystem system)

fail() { echo "collect-gpu-deps: $*" >&2; exit 1; }
if ! command -v apt-get > /dev/null || ! command -v dpkg-deb > /dev/null; then
  fail "needs apt-get and dpkg-deb (Debian 12)"
fi
cxx=${CXX:-c++}
command -v "$cxx" > /dev/null || fail "needs a C++ compiler to trace Boost's includes (set CXX)"
compgen -G '/var/lib/apt/lists/*_Packages*' > /dev/null || apt-get update -qq

mkdir -p "$out"
out=$(cd "$out" && pwd)
# ~300 MB unpacked: in memory where there is room (many small files; much faster than a disk).
tmp_base=${TMPDIR:-/tmp}
if [[ -z ${TMPDIR:-} && -w /dev/shm ]] &&
   (($(df -Pk /dev/shm | awk 'NR == 2 { print $4 }') > 1024 * 1024)); then
  tmp_base=/dev/shm
fi
work=$(mktemp -d "$tmp_base/collect-gpu-deps.XXXXXX")
trap 'rm -rf "$work"' EXIT
cache=${GPU_DEPS_CACHE:-$work/debs}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
start=$SECONDS

# ---- the package list and the .deb files -----------------------------------------------------
# The dependency closure of RUNTIME_PACKAGES, level by level, not entering EXCLUDED (adduser, a
# maintainer-script tool of libibverbs1, would bring passwd, PAM, tar...). A virtual package
# stands for all its providers, as with apt-cache depends --recurse.
declare -A closure=()
frontier=("${RUNTIME_PACKAGES[@]}")
while ((${#frontier[@]})); do
  for package in "${frontier[@]}"; do closure[$package]=1; done
  mapfile -t next < <(apt-cache depends --no-recommends --no-suggests --no-conflicts \
      --no-breaks --no-replaces --no-enhances "${frontier[@]}" 2>/dev/null |
    awk '/^ +\|?(Pre)?Depends: / { virtual = ($2 ~ /^</); if (!virtual) print $2; next }
         virtual && /^    [^ ]/ { print $1; next } { virtual = 0 }' |
    grep -Ev "$EXCLUDED" | sort -u)
  frontier=()
  for package in "${next[@]}"; do [[ -n ${closure[$package]:-} ]] || frontier+=("$package"); done
done
mapfile -t packages < <(printf '%s\n' "${DEV_PACKAGES[@]}" "${!closure[@]}" | sort -u)

# apt's file name of each package's candidate version; only those not in the cache are fetched.
mapfile -t uris < <(apt-get download --print-uris "${packages[@]}")
((${#uris[@]} == ${#packages[@]})) ||
  fail "apt-get knows ${#uris[@]} of ${#packages[@]} packages (apt-get update?)"
debs=() missing=()
for line in "${uris[@]}"; do
  read -r _ file _ <<< "$line"
  debs+=("$file")
  [[ -s $cache/$file ]] || missing+=("${file%%_*}")
done
if ((${#missing[@]})); then
  echo "collect-gpu-deps: downloading ${#missing[@]} of ${#packages[@]} packages into $cache"
  # As root, apt would first try (and warn about) its _apt sandbox user.
  sandbox=(); ((EUID == 0)) && sandbox=(-o APT::Sandbox::User=root)
  (cd "$cache" && apt-get download -qq "${sandbox[@]}" "${missing[@]}")
fi
for file in "${debs[@]}"; do
  [[ -s $cache/$file ]] || fail "apt-get download left no $cache/$file"
done
# Older versions of the same packages leave the cache. Looked up in arrays, not with `printf |
# grep -q`: under pipefail that pipeline fails when grep exits before printf has written (SIGPIPE),
# and a current .deb was removed (CI: "du: cannot access 'libhdf5-dev_...deb'").
declare -A current_file=() packed=()
for file in "${debs[@]}"; do current_file[$file]=1; done
for package in "${packages[@]}"; do packed[$package]=1; done
for file in "$cache"/*.deb; do
  name=$(basename "$file")
  if [[ -z ${current_file[$name]:-} && -n ${packed[${name%%_*}]:-} ]]; then rm -f "$file"; fi
done
debs_bytes=$(cd "$cache" && du -cb "${debs[@]}" | tail -n 1 | cut -f 1)

# ---- unpack and prune --------------------------------------------------------------------------
tree=$work/tree
mkdir -p "$tree"
for file in "${debs[@]}"; do dpkg-deb -x "$cache/$file" "$tree"; done
(cd "$tree" && du -sb . | cut -f 1) > "$work/unpacked-bytes"

rm -rf "$tree"/usr/share/{doc,doc-base,man,info,locale,lintian,bug,bash-completion}
# Static libraries: only GoogleTest's and GMock's are used (GTestTargets.cmake imports them).
find "$tree" -name '*.a' ! -name 'libgtest*.a' ! -name 'libgmock*.a' -delete
# Boost's CMake configs would offer the deleted static variants.
find "$tree" -path '*/cmake/boost_*' -name 'libboost_*-variant-static.cmake' -delete
# ICU: CMake finds uc only; uc loads data. i18n, io, test and tu are never linked.
find "$tree" \( -name 'libicui18n.so*' -o -name 'libicuio.so*' -o -name 'libicutest.so*' \
  -o -name 'libicutu.so*' -o -name 'icu-i18n.pc' -o -name 'icu-io.pc' \) -delete

# Boost's headers: the compiler lists what the public headers of BOOST_LIBRARIES include, in
# C++17 and C++20; every folder holding one of those files is kept whole (not its subfolders),
# and config/, predef/ and MPL's preprocessed headers (which choose by compiler) entirely.
inc=$tree/usr/include
(cd "$inc" && for lib in "${BOOST_LIBRARIES[@]}"; do
   [[ -f boost/$lib.hpp ]] && echo "boost/$lib.hpp"
   find "boost/$lib" -name '*.hpp' ! -path '*/detail/*'
 done) | sed 's/.*/#include <&>/' > "$work/boost.cpp"
for std in c++17 c++20; do
  "$cxx" -std=$std -x c++ -M -MT x -I "$inc" "$work/boost.cpp" > "$work/boost-$std.d" ||
    fail "$cxx -std=$std cannot preprocess Boost's headers of ${BOOST_LIBRARIES[*]}"
done
deps() { awk '{ for (i = 1; i <= NF; i++) if ($i != "\\") print $i }' "$@"; }  # make rules
deps "$work"/boost-*.d | grep -F "$inc/boost/" | sed "s|^$inc/||" |
  xargs -r -n 1 dirname | sort -u > "$work/boost-dirs"
(cd "$inc" && {
   while read -r dir; do find "$dir" -maxdepth 1 -type f; done < "$work/boost-dirs"
   find boost/config boost/predef boost/mpl/aux_/preprocessed -type f
 } | sort -u) > "$work/boost-keep"
boost_before=$(cd "$inc" && du -sb boost | cut -f 1)
mv "$inc/boost" "$work/boost"
(cd "$work" && tar -cf - -T boost-keep) | tar -xf - -C "$inc"
boost_after=$(cd "$inc" && du -sb boost | cut -f 1)
# Check: the same headers preprocess with nothing but the kept ones (not even the system's).
for std in c++17 c++20; do
  "$cxx" -std=$std -x c++ -M -MT x -I "$inc" "$work/boost.cpp" > "$work/check.d" ||
    fail "the pruned Boost headers do not preprocess ($std)"
  if deps "$work/check.d" | grep '/boost/' | grep -vF "$inc/boost/"; then
    fail "the pruned Boost headers lack the files above ($std)"
  fi
done

# Absolute symlinks (zlib1g-dev's libz.so -> /lib/...) become relative links inside the tree;
# links left dangling by the pruning (or into packages not shipped) go.
# shellcheck source=scripts/unpack-gpu-deps.sh
source "$root/scripts/unpack-gpu-deps.sh"
gpu_deps_relink "$tree"
mapfile -t dangling < <(find "$tree" -xtype l -print -delete | sed "s|^$tree/||")

for file in "${debs[@]}"; do
  # shellcheck disable=SC2016  # dpkg's fields, not the shell's
  dpkg-deb --show --showformat='${Package} ${Version}\n' "$cache/$file"
done > "$tree/PACKAGES"

# ---- the archive ------------------------------------------------------------------------------
read -ra xz_options <<< "${GPU_DEPS_XZ:--6}"
tar -C "$tree" --sort=name --owner=0 --group=0 --numeric-owner -cf - . |
  xz -T0 "${xz_options[@]}" > "$out/gpu-deps.tar.xz.part"
mv "$out/gpu-deps.tar.xz.part" "$out/gpu-deps.tar.xz"
cp "$tree/PACKAGES" "$out/PACKAGES"
rm -f "$out"/*.deb
if [[ -n $keep_debs ]]; then
  for file in "${debs[@]}"; do cp "$cache/$file" "$out/"; done
fi

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
echo "collect-gpu-deps: ${#packages[@]} packages ($(mb "$debs_bytes") of .deb files, $(mb \
"$(cat "$work/unpacked-bytes")") unpacked) -> $(mb "$(cd "$tree" && du -sb . | cut -f 1)") pruned" \
"(Boost headers $(mb "$boost_before") -> $(mb "$boost_after"); $GPU_DEPS_RELINKED absolute links made relative;" \
"${#dangling[@]} dangling links dropped${dangling:+: ${dangling[*]}})"
echo "collect-gpu-deps: $out/gpu-deps.tar.xz: $(mb "$(stat -c %s "$out/gpu-deps.tar.xz")")" \
     "in $((SECONDS - start)) s"
