# Sourced by scripts/gpu-check.sh. unpack_gpu_deps DIR PREFIX unpacks every .deb of DIR (made by
# scripts/collect-gpu-deps.sh) into PREFIX without dpkg's database (dpkg-deb, or ar + tar where
# the node has no dpkg), then makes the libraries the node lacks loadable: PREFIX/runtime-libs
# holds links to each shared library whose soname the node's ldconfig does not know, and only
# that folder joins LD_LIBRARY_PATH, so the node's own (newer) libraries always win.
# Sets GPU_DEPS_PREFIX and GPU_DEPS_HDF5_ROOT (Debian keeps HDF5 under hdf5/serial, where
# CMake's FindHDF5 does not look: a folder of include/ and lib/ links points it there).
unpack_gpu_deps() {
  local dir=$1 prefix=$2 deb n=0
  mkdir -p "$prefix"
  for deb in "$dir"/*.deb; do
    [[ -e $deb ]] || { echo "gpu-check: no .deb files in $dir" >&2; return 1; }
    if command -v dpkg-deb > /dev/null; then
      dpkg-deb -x "$deb" "$prefix"
    else
      local tmp; tmp=$(mktemp -d)
      (cd "$tmp" && ar x "$deb" && tar -xf data.tar.* -C "$prefix")
      rm -rf "$tmp"
    fi
    n=$((n + 1))
  done
  local known; known=$(ldconfig -p 2>/dev/null | awk 'NR > 1 { print $1 }' | sort -u)
  mkdir -p "$prefix/runtime-libs"
  local lib name linked=0
  for lib in "$prefix"/usr/lib/x86_64-linux-gnu/*.so.* "$prefix"/lib/x86_64-linux-gnu/*.so.* \
             "$prefix"/usr/lib/x86_64-linux-gnu/hdf5/serial/*.so.*; do
    [[ -e $lib ]] || continue
    name=$(basename "$lib")
    grep -qxF "$name" <<< "$known" && continue
    ln -sf "$lib" "$prefix/runtime-libs/$name"
    linked=$((linked + 1))
  done
  mkdir -p "$prefix/hdf5-root"
  ln -sfn "$prefix/usr/include/hdf5/serial" "$prefix/hdf5-root/include"
  ln -sfn "$prefix/usr/lib/x86_64-linux-gnu/hdf5/serial" "$prefix/hdf5-root/lib"
  export LD_LIBRARY_PATH="$prefix/runtime-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$PATH:$prefix/usr/bin"
  GPU_DEPS_PREFIX=$prefix
  GPU_DEPS_HDF5_ROOT=$prefix/hdf5-root
  echo "gpu-check: unpacked $n packages from $dir into $prefix; $linked libraries the node lacks" \
       "are on LD_LIBRARY_PATH"
}
