# shellcheck shell=bash
# Sourced by scripts/gpu-check.sh (and scripts/check-offline-configure.sh).
#
# unpack_gpu_deps SOURCE PREFIX unpacks what scripts/collect-gpu-deps.sh made into PREFIX:
# SOURCE is its folder (which holds gpu-deps.tar.xz), the archive itself, or a folder of .deb
# files (unpacked without dpkg's database: dpkg-deb, or ar + tar where the node has no dpkg).
# Absolute symlinks in PREFIX are then repointed into PREFIX (relative), and the libraries the
# node lacks are made loadable: PREFIX/runtime-libs holds links to each shared library whose
# soname the node's ldconfig does not know, and only that folder joins LD_LIBRARY_PATH, so the
# node's own (newer) libraries always win. PREFIX/usr/bin joins the end of PATH (h5dump).
# Exports GPU_DEPS_PREFIX (PREFIX) and GPU_DEPS_HDF5_ROOT (Debian keeps HDF5 under hdf5/serial,
# where CMake's FindHDF5 does not look: a folder of include/ and lib/ links points it there).
#
# A PREFIX this function unpacked before (it holds .recurlab-gpu-deps) is emptied first, so
# that nothing of an older pack stays; any other PREFIX is only added to.

# gpu_deps_relink DIR: every symlink under DIR whose target is absolute is repointed to that
# path inside DIR, as a relative link (zlib1g-dev's libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13
# becomes ../../../lib/x86_64-linux-gnu/libz.so.1.2.13). Prints nothing; sets GPU_DEPS_RELINKED.
gpu_deps_relink() {
  local dir link target n=0
  dir=$(cd "$1" && pwd)
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$dir$target")" "$link"
    n=$((n + 1))
  done < <(find "$dir" -type l -lname '/*' -print0)
  GPU_DEPS_RELINKED=$n
}

unpack_gpu_deps() {
  local src=$1 prefix=$2 archive='' what deb n=0
  if [[ -f $src ]]; then
    archive=$src
  elif [[ -f $src/gpu-deps.tar.xz ]]; then
    archive=$src/gpu-deps.tar.xz
  elif ! compgen -G "$src/*.deb" > /dev/null; then
    echo "gpu-check: $src holds neither gpu-deps.tar.xz nor .deb files" \
         "(make it with scripts/collect-gpu-deps.sh)" >&2
    return 1
  fi
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd)
  if [[ -f $prefix/.recurlab-gpu-deps ]]; then
    rm -rf "${prefix:?}"/{usr,lib,lib64,bin,sbin,etc,runtime-libs,hdf5-root,PACKAGES}
    rm -f "$prefix/.recurlab-gpu-deps"
  fi

  if [[ -n $archive ]]; then
    if command -v xz > /dev/null; then
      tar -xJf "$archive" -C "$prefix" || return 1
    else  # no xz on the node: Python's lzma
      "${PYTHON:-python3}" - "$archive" "$prefix" << 'EOF' || return 1
import sys, tarfile
with tarfile.open(sys.argv[1], "r:xz") as archive:
    kwargs = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
    archive.extractall(sys.argv[2], **kwargs)
EOF
    fi
    n=$(wc -l < "$prefix/PACKAGES")
    what=$archive
  else
    for deb in "$src"/*.deb; do
      if command -v dpkg-deb > /dev/null; then
        dpkg-deb -x "$deb" "$prefix" || return 1
      else
        local tmp; tmp=$(mktemp -d)
        (cd "$tmp" && ar x "$deb" && tar -xf data.tar.* -C "$prefix") || { rm -rf "$tmp"; return 1; }
        rm -rf "$tmp"
      fi
      n=$((n + 1))
    done
    what=$src
  fi
  gpu_deps_relink "$prefix"
  : > "$prefix/.recurlab-gpu-deps"

  # The sonames the node has. ldconfig is in /sbin, which a user's PATH often lacks; without it,
  # a library counts as present when a standard library folder holds its name.
  local ldconfig known
  ldconfig=$(command -v ldconfig || command -v /sbin/ldconfig || command -v /usr/sbin/ldconfig || :)
  known=$( { [[ -n $ldconfig ]] && "$ldconfig" -p 2>/dev/null | awk 'NR > 1 { print $1 }'
             ls /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 2>/dev/null
           } | sort -u)
  mkdir -p "$prefix/runtime-libs"
  local lib name linked=0
  for lib in "$prefix"/usr/lib/x86_64-linux-gnu/*.so.* "$prefix"/lib/x86_64-linux-gnu/*.so.* \
             "$prefix"/usr/lib/x86_64-linux-gnu/hdf5/serial/*.so.*; do
    [[ -e $lib ]] || continue
    name=$(basename "$lib")
    grep -qxF "$name" <<< "$known" && continue
    ln -sfn "../${lib#"$prefix"/}" "$prefix/runtime-libs/$name"
    linked=$((linked + 1))
  done
  mkdir -p "$prefix/hdf5-root"
  ln -sfn ../usr/include/hdf5/serial "$prefix/hdf5-root/include"
  ln -sfn ../usr/lib/x86_64-linux-gnu/hdf5/serial "$prefix/hdf5-root/lib"
  export LD_LIBRARY_PATH="$prefix/runtime-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$PATH:$prefix/usr/bin"
  export GPU_DEPS_PREFIX=$prefix
  export GPU_DEPS_HDF5_ROOT=$prefix/hdf5-root
  echo "gpu-check: unpacked $n packages from $what into $prefix ($GPU_DEPS_RELINKED absolute" \
       "symlinks made relative); $linked libraries the node lacks are on LD_LIBRARY_PATH"
}
