#!/usr/bin/env bash
# one-off diagnosis of the SIGSEGV after a unit on the GPU node (binaries built on the CPU machine)
set -u
O=${OUT:-/tmp/diagout}; mkdir -p "$O"
exec > >(tee "$O/diag.txt") 2>&1
root=$(pwd)
mkdir -p /tmp/d && tar xJf gpu-deps/data.tar.xz -C /tmp/d
source scripts/unpack-gpu-deps.sh
unpack_gpu_deps gpu-deps/gpu-deps.tar.xz /tmp/recurlab-deps
TL=$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$TL:$LD_LIBRARY_PATH
B=$root/gpu-deps/bin
echo "== env"; cat /etc/os-release | head -3; g++ --version | head -1; env | grep -E '^LD_|^PATH'
command -v gdb; ldconfig -p | grep -E 'stdc\+\+|protobuf|sentencepiece|absl_log|hdf5_serial.so' | head -20
ls /tmp/recurlab-deps/runtime-libs
echo "== ldd lm"; ldd $B/recurlab_lm | head -60
echo "== ldd shim"; ldd $B/librecurlab_sentencepiece.so
LM=(--config configs/lm/quick.json --data-dir /tmp/d/data --set train.max_epochs=1 --set corpus.max_train_symbols=100000)
run() { local name=$1; shift; echo "== $name: $*"; timeout 60 "$@" > "$O/$name.log" 2>&1; echo "rc $?"; tail -25 "$O/$name.log"; }
run lm-cuda $B/recurlab_lm "${LM[@]}" --device cuda --out /tmp/r1
run lm-cpu $B/recurlab_lm "${LM[@]}" --device cpu --threads 8 --out /tmp/r2
echo "== bindings of filesystem symbols (cuda run)"
LD_DEBUG=bindings LD_DEBUG_OUTPUT=/tmp/ldb timeout 60 $B/recurlab_lm "${LM[@]}" --device cuda --out /tmp/r3 > /dev/null 2>&1; echo "rc $?"
cat /tmp/ldb.* | grep -E 'filesystem' | sed 's/^ *[0-9]*://' | sort | uniq -c | sort -rn | head -40
cat /tmp/ldb.* | grep -E 'libtorch_cpu.so.*normal symbol .(_ZNSt|_ZNKSt|_ZNSo|_ZSt)' | grep -v "binding file .*libtorch" | head -20
echo "== gdb"
if command -v gdb > /dev/null; then timeout 60 gdb -batch -ex run -ex bt -ex 'info registers rip' --args $B/recurlab_lm "${LM[@]}" --device cuda --out /tmp/r4 2>&1 | tail -40; fi
run lm-cuda-preload env LD_PRELOAD=$(ldconfig -p | awk '/libstdc\+\+.so.6 .*x86-64/{print $NF; exit}') $B/recurlab_lm "${LM[@]}" --device cuda --out /tmp/r5
echo "== mt"
MT=(--config configs/mt/quick.json --data-dir /tmp/d/data --set train.max_epochs=1)
run mt-cuda $B/recurlab_mt "${MT[@]}" --device cuda --out /tmp/r6
LD_DEBUG=bindings,libs LD_DEBUG_OUTPUT=/tmp/mtb timeout 60 $B/recurlab_mt "${MT[@]}" --device cuda --out /tmp/r7 > /dev/null 2>&1; echo "rc $?"
cat /tmp/mtb.* | grep -E '_M_insertIl|sentencepiece|protobuf' | sed 's/^ *[0-9]*://' | head -40
rm -f /tmp/ldb.* /tmp/mtb.*; echo "== done"
