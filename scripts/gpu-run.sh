#!/usr/bin/env bash
# One command for a short GPU slot: builds only what it runs (against the PyTorch wheel's
# LibTorch, for the visible GPU's architecture), then runs, under ONE wall-clock deadline, the
# CUDA kernel tests, each task's quick default at every precision, and recurlab_speed; after
# every stage it re-packs what exists into at most 8 files directly in --out (report.md,
# summary.json, logs.tar.gz, runs.tar.gz, checkpoints.tar, figure1.png, figure2.png), each
# written atomically, so a slot that ends at any moment returns the stages finished so far.
#
# usage: scripts/gpu-run.sh --out DIR --deadline SECONDS [options]
#   --out DIR            where the (at most 8) result files go; nothing else is written there
#   --deadline SECONDS   wall-clock budget for everything, counted from this script's start
#   --data DIR|ARCHIVE   the data folder (classification/, ptb/, multi30k/, squad/; default data),
#                        or a tar archive of it (unpacked into the work folder)
#                        (relative paths are taken from where the command runs)
#   --deps PATH          the Debian packages of scripts/collect-gpu-deps.sh (a folder or an
#                        archive), unpacked into a private prefix (scripts/unpack-gpu-deps.sh)
#   --build-dir DIR      the CMake build folder (default build-gpu)
#   --no-build           use the binaries already in --build-dir
#   --device cuda|cpu    where the runs train (default cuda; cpu only tests this script)
#   --stages LIST        comma list of cuda-tests,classification,lm,mt,qa,synthetic,speed
#                        (default all)
#   --precisions LIST    comma list of fp32,bf16,fp16 for the task stages (default fp32,bf16)
#   --max-epochs N       cap every task's train.max_epochs at N (default 1; 0 = the quick
#                        default's own epochs); the cap is shown in the report
#   --set TASK:KEY=VAL   one more config override for TASK's runs, e.g. lm:corpus.max_train_symbols=200000
#                        (repeatable; shown in the report)
#   --config TASK:FILE   TASK's runs train FILE instead of configs/TASK/quick.json, e.g.
#                        lm:configs/lm/ptb-char.json with --max-epochs 0 for a full protocol
#                        (repeatable, one per task; shown in the report)
#   --threads N          LibTorch threads of every run (default 0: the binaries' default, all cores)
#   --speed-args "ARGS"  options for recurlab_speed (default none on cuda, --quick on cpu)
#   --work DIR           run folders and logs (default /tmp/recurlab-gpu-run/<UTC time>; kept)
#   --resume DIR         a previous slot's --out (runs.tar.gz, checkpoints.tar): unpacked into
#                        the work folder first, so its unfinished runs resume (same options)
#   -h, --help           this help
# environment: PYTHON (default python3), CUDACXX (default nvcc on PATH, else
#   /usr/local/cuda/bin/nvcc), TORCH_CUDA_ARCH_LIST (default: the GPU's compute capability),
#   JOBS (default nproc), RECURLAB_DEPS_PREFIX (default /tmp/recurlab-deps)
# Exit status: 0 when every stage finished, 1 otherwise (2: bad options). docs/gpu.md.
set -uo pipefail
# The whole script is one block, read before it runs: editing the file meanwhile cannot change
# a run in progress.
{

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "gpu-run: $*" >&2; exit 2; }

out='' deadline='' data=data data_archive='' deps='' build_dir=build-gpu build=1 device=cuda
stages=cuda-tests,classification,lm,mt,qa,synthetic,speed precisions=fp32,bf16 max_epochs=1
threads=0 speed_args='' speed_args_given='' work='' resume=''
sets=()
declare -A configs=()
command_line="$0 $(printf '%q ' "$@")"
while (($#)); do
  case $1 in
    --out|--deadline|--data|--deps|--build-dir|--device|--stages|--precisions|--max-epochs|\
    --set|--config|--threads|--speed-args|--work|--resume)
      (($# >= 2)) || die "$1 needs a value (see --help)" ;;&
    --out) out=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --deps) deps=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --no-build) build=; shift ;;
    --device) device=$2; shift 2 ;;
    --stages) stages=$2; shift 2 ;;
    --precisions) precisions=$2; shift 2 ;;
    --max-epochs) max_epochs=$2; shift 2 ;;
    --set) sets+=("$2"); shift 2 ;;
    --config)
      [[ $2 =~ ^(classification|lm|mt|qa|synthetic):(.+)$ ]] || die "--config: TASK:FILE, got '$2'"
      configs[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --speed-args) speed_args=$2; speed_args_given=1; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --resume) resume=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ -n $out ]] || die "--out DIR is required (see --help)"
[[ $deadline =~ ^[0-9]+$ ]] || die "--deadline SECONDS is required (a whole number of seconds)"
[[ $device == cuda || $device == cpu ]] || die "--device: cuda or cpu, got '$device'"
[[ $max_epochs =~ ^[0-9]+$ ]] || die "--max-epochs: a whole number, got '$max_epochs'"
[[ $threads =~ ^[0-9]+$ ]] || die "--threads: a whole number, got '$threads'"
all_stages=(cuda-tests classification lm mt qa synthetic speed)
IFS=, read -r -a wanted <<< "$stages"
for s in "${wanted[@]}"; do
  [[ " ${all_stages[*]} " == *" $s "* ]] || die "--stages: unknown stage '$s' (${all_stages[*]})"
done
IFS=, read -r -a precs <<< "$precisions"
((${#precs[@]})) || die "--precisions: empty list"
for p in "${precs[@]}"; do
  [[ $p == fp32 || $p == bf16 || $p == fp16 ]] || die "--precisions: fp32, bf16 or fp16, got '$p'"
done
for s in "${sets[@]}"; do
  [[ $s =~ ^(classification|lm|mt|qa|synthetic):[^=]+=.+$ ]] || die "--set: TASK:KEY=VALUE, got '$s'"
done
for task in "${!configs[@]}"; do
  # Relative to where the command runs, else to the source tree.
  file=${configs[$task]}
  [[ -f $file ]] || file=$root/$file
  [[ -f $file ]] || die "--config $task:${configs[$task]}: no such file"
  configs[$task]=$(realpath "$file")
done
[[ -z $resume || -d $resume ]] || die "--resume $resume: no such folder"
[[ -z $speed_args_given && $device == cpu ]] && speed_args=--quick
python=${PYTHON:-python3}
command -v "$python" > /dev/null || die "no $python (the report is written by scripts/gpu-run-report.py)"
command -v timeout > /dev/null || die "needs coreutils' timeout"

out=$(realpath -m "$out")
work=$(realpath -m "${work:-/tmp/recurlab-gpu-run/$(date -u +%Y%m%d-%H%M%S)}")
case $work/ in "$out"/*) die "--work must not be inside --out (only 8 files come back)" ;; esac
mkdir -p "$out" || die "cannot create --out $out"
mkdir -p "$work/logs" "$work/runs" || die "cannot create the work folder $work"
# Paths given are relative to where the command runs; the defaults to the source tree.
[[ $data == data ]] && [[ ! -e data ]] && data=$root/data
[[ $build_dir == build-gpu ]] && build_dir=$root/build-gpu
data=$(realpath -m "$data")
build_dir=$(realpath -m "$build_dir")
[[ -z $deps ]] || deps=$(realpath -m "$deps")
[[ -z $resume ]] || resume=$(realpath -m "$resume")
logs=$work/logs
rows=$work/rows.tsv
: > "$rows"
rm -f "$work/current.tsv"
ulimit -c 0  # a crashing run leaves no core file in the tree
cd "$root" || exit 2
exec > >(tee -a "$logs/gpu-run.log") 2>&1
exec 3>&1  # the script's own output, also where the build's output goes to its log

# ---- time: one deadline, counted from the start (bash's SECONDS) -------------------------------
# Kept back for the last re-pack and the printed report.
final_reserve=15
# Kept back for each run still to come: its start, recurlab_analyze on its log if it was cut,
# the re-packs around it.
per_run=6
left() { echo $((deadline - SECONDS - final_reserve)); }
say() { printf 'gpu-run [%4ds]: %s\n' "$SECONDS" "$*"; }

meta() { printf '%s\t%s\n' "$1" "$2" >> "$work/meta.tsv"; }
: > "$work/meta.tsv"
meta started "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
meta deadline_s "$deadline"
meta device "$device"
meta command "$command_line"
meta work "$work"
# --data may be a tar archive of the data folder (tar cJf data.tar.xz data): a slot receives
# 64 MiB in all, and the folder (29 MB) is about 6 MB as .tar.xz.
if [[ -f $data ]]; then
  data_archive=$data
  data=$work/data
  mkdir -p "$data"
  tar xf "$data_archive" -C "$data" || die "--data $data_archive: not a tar archive of the data folder"
  [[ -d $data/data ]] && data=$data/data  # an archive of the folder itself, not of its contents
  say "data: unpacked $data_archive into $data"
fi
meta data "$data${data_archive:+ (unpacked from $data_archive)}"
meta build_dir "$build_dir"
meta max_epochs "$max_epochs"
meta threads "$threads"
meta git_commit "$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(
  [[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] && echo -dirty)"
meta host "$(hostname 2>/dev/null || echo unknown) ($(nproc) cores)"
meta cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"

# ---- the re-pack ------------------------------------------------------------------------------
# Seconds until the deadline, at least 3 (what a last step after it still gets).
until_deadline() { local t=$((deadline - SECONDS)); echo $((t > 3 ? t : 3)); }
# At most 60 s and never past the deadline: a re-pack stopped before it writes leaves the last
# set of files as it was.
repack() {
  local limit; limit=$(until_deadline)
  timeout $((limit < 60 ? limit : 60)) "$python" "$root/scripts/gpu-run-report.py" \
    --work "$work" --out "$out" > "$logs/repack.log" 2>&1 ||
    say "re-pack failed (see logs/repack.log): $(tail -n 1 "$logs/repack.log")"
}
# recurlab_analyze on a run folder: the report of a run that did not finish, from its log.
analyze() {
  local limit; limit=$(($(until_deadline) - final_reserve))
  ((limit >= 5)) || limit=5
  timeout $((limit < 60 ? limit : 60)) "$build_dir/recurlab_analyze" "$1" > "$2" 2>&1
}

# rows.tsv: stage, precision, status, rc, signal, wall s, limit s, caps, run folder, log, note
row() { local IFS=$'\t'; echo "$*" >> "$rows"; }
current() { local IFS=$'\t'; echo "$*" > "$work/current.tsv"; }

# ---- a run under the deadline -------------------------------------------------------------------
# bounded LIMIT LOG CMD...: runs CMD with stdout and stderr appended to LOG, cut by timeout after LIMIT
# seconds (SIGTERM, SIGKILL 5 s later). Sets run_rc, run_wall, run_status, run_signal.
child=
bounded() {
  local limit=$1 log=$2; shift 2
  local t0=$SECONDS
  run_rc=0 run_signal=
  # Line-buffered output (stdbuf): a run killed by a signal leaves its last lines in LOG.
  local wrap=()
  command -v stdbuf > /dev/null && wrap=(stdbuf -oL -eL)
  timeout --kill-after=5 "$limit" "${wrap[@]}" "$@" >> "$log" 2>&1 < /dev/null &
  child=$!
  wait "$child" || run_rc=$?
  # timeout leads a process group of its own: whatever of the run is left (a driver whose
  # timeout died, its workers, its recurlab_analyze) goes with it.
  kill -KILL -- -"$child" 2>/dev/null
  child=
  run_wall=$((SECONDS - t0))
  if ((run_rc == 0)); then
    run_status=ok
  elif ((run_rc == 124)) || { ((run_rc == 137)) && ((run_wall >= limit)); }; then
    run_status="cut at deadline"
  elif ((run_rc > 128 && run_rc < 160)); then
    run_signal=SIG$(kill -l $((run_rc - 128)) 2>/dev/null || echo $((run_rc - 128)))
    run_status="signal $run_signal"
  else
    run_status="failed rc $run_rc"
  fi
}

# The slot may stop this script (SIGTERM): stop the current run, keep what exists.
# shellcheck disable=SC2317  # called by the traps below
on_signal() {
  local sig=$1
  say "received SIG$sig: stopping the current run and re-packing" >&3
  if [[ -n $child ]]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
    kill -KILL -- -"$child" 2>/dev/null
  fi
  if [[ -f $work/current.tsv ]]; then
    local f
    mapfile -t f < <(tr '\t' '\n' < "$work/current.tsv")  # keeps the empty fields
    row "${f[0]}" "${f[1]}" "stopped (gpu-run got SIG$sig)" "" "" "$((SECONDS - f[3]))" "${f[4]}" \
        "${f[5]}" "${f[6]}" "${f[7]}" ""
    rm -f "$work/current.tsv"
    [[ -n ${f[6]} && -d $work/${f[6]} ]] &&
      analyze "$work/${f[6]}" "$logs/${f[6]#runs/}.analyze.log"
  fi
  [[ -n ${monitor:-} ]] && kill "$monitor" 2>/dev/null
  repack
  exit 1
}
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT
trap 'on_signal HUP' HUP

# Stage weights: the share of the time left that a run may take (at least 60 s for the CUDA
# tests, 30 s for the others, while that much is left); what a run leaves unused goes to the
# ones after it.
weight() {
  case $1 in
    cuda-tests) echo 1 ;;
    classification|lm|qa) echo 2 ;;
    mt) echo 3 ;;
    synthetic|speed) echo 1 ;;
  esac
}

say "recurlab gpu-run: device $device, deadline ${deadline}s, stages ${wanted[*]}, precisions ${precs[*]}"
say "work folder $work, results in $out"
others=$(find "$out" -mindepth 1 -maxdepth 1 ! -name report.md ! -name summary.json \
           ! -name logs.tar.gz ! -name runs.tar.gz ! -name checkpoints.tar ! -name 'figure[12].png' \
           ! -name '.*.tmp' | head -n 3)
[[ -z $others ]] || say "note: --out already holds other files (they count against the 8): ${others//$'\n'/ }"
repack

# ---- the machine ------------------------------------------------------------------------------
monitor=
if command -v nvidia-smi > /dev/null; then
  nvidia-smi > "$logs/nvidia-smi.txt" 2>&1
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap \
        --format=csv,noheader 2>/dev/null | head -n 1)
  meta gpu "$gpu"
  # Utilisation and memory every 2 s, for the whole slot.
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw \
    --format=csv -l 2 > "$logs/nvidia-smi-monitor.csv" 2>&1 &
  monitor=$!
else
  meta gpu "none (no nvidia-smi)"
  [[ $device == cuda ]] && say "no nvidia-smi on this machine"
fi

# ---- dependencies and build ---------------------------------------------------------------------
cmake_prefixes=()
cmake_extra=()
if [[ -n $deps ]]; then
  [[ -e $deps ]] || die "--deps $deps: no such folder or archive (scripts/collect-gpu-deps.sh)"
  # shellcheck source=scripts/unpack-gpu-deps.sh
  source "$root/scripts/unpack-gpu-deps.sh"
  if unpack_gpu_deps "$deps" "${RECURLAB_DEPS_PREFIX:-/tmp/recurlab-deps}" > "$logs/deps.log" 2>&1; then
    cmake_prefixes+=("$GPU_DEPS_PREFIX/usr" "$GPU_DEPS_PREFIX/usr/lib/x86_64-linux-gnu/cmake")
    [[ -n ${GPU_DEPS_HDF5_ROOT:-} ]] && cmake_extra+=(-DHDF5_ROOT="$GPU_DEPS_HDF5_ROOT")
    say "$(tail -n 1 "$logs/deps.log")"
  else
    say "unpacking --deps $deps failed (logs/deps.log): $(tail -n 1 "$logs/deps.log")"
  fi
fi

# Targets, by stage (recurlab_analyze writes every run's report; recurlab_bleu is MT's tool).
targets=(recurlab_analyze)
want() { [[ " ${wanted[*]} " == *" $1 "* ]]; }
want classification && targets+=(recurlab_classification)
want lm && targets+=(recurlab_lm)
want mt && targets+=(recurlab_mt recurlab_bleu)
want qa && targets+=(recurlab_qa)
want synthetic && targets+=(recurlab_synthetic)
want speed && targets+=(recurlab_speed)

# The PyTorch of $python: torch_root (the torch package's folder, holding lib/ and share/),
# torch_version, torch_cuda (None without CUDA), torch_gpu (True/False), torch_abi (1: C++11).
# Returns 1 when it cannot import torch. Its warnings go to logs/torch.log.
torch_info() {
  local info
  info=$(timeout 120 "$python" - 2>> "$logs/torch.log" <<'EOF'
import os
import torch
print("torch_root=" + os.path.dirname(torch.__file__))
print("torch_version=" + torch.__version__)
print("torch_cuda=" + str(torch.version.cuda))
print("torch_gpu=" + str(torch.cuda.is_available()))
print("torch_abi=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI))
EOF
  ) || return 1
  torch_root=$(sed -n 's/^torch_root=//p' <<< "$info")
  torch_version=$(sed -n 's/^torch_version=//p' <<< "$info")
  torch_cuda=$(sed -n 's/^torch_cuda=//p' <<< "$info")
  torch_gpu=$(sed -n 's/^torch_gpu=//p' <<< "$info")
  torch_abi=$(sed -n 's/^torch_abi=//p' <<< "$info")
  [[ -d $torch_root ]]
}

if [[ -n $build ]]; then
  blog=$logs/build.log
  : > "$blog"
  t0=$SECONDS
  build_note=''
  # Marked as running, so that a stop during the build shows in the report.
  current build - running "$SECONDS" "" "${targets[*]}" "" logs/build.log
  # shellcheck disable=SC2094  # bounded appends its command's output to the same log
  {
    # The PyTorch wheel's LibTorch: CMAKE_PREFIX_PATH gets the torch package's root (the folder
    # holding lib/ and share/), so TorchConfig finds its libraries there and not a system
    # LibTorch on the default paths.
    if torch_info; then
      echo "PyTorch $torch_version at $torch_root, CUDA $torch_cuda, GPU visible: $torch_gpu, C++11 ABI: $torch_abi"
      meta torch "PyTorch $torch_version (CUDA $torch_cuda) at $torch_root"
      if [[ $device == cuda ]]; then
        if [[ $torch_cuda == None ]]; then build_note="this PyTorch has no CUDA"
        elif [[ $torch_gpu != True ]]; then build_note="PyTorch sees no GPU"
        elif [[ $torch_abi != 1 ]]; then build_note="this PyTorch uses the pre-C++11 ABI"
        fi
      fi
    else
      torch_root=''
      echo "$python cannot import torch (logs/torch.log)"
      [[ $device == cuda ]] && build_note="$python cannot import torch"
      meta torch "none ($python cannot import torch): CMake's default LibTorch"
    fi
    # --device cpu tests this script: no CUDA kernels to compile.
    cuda_args=()
    [[ $device == cpu ]] && cuda_args+=(-DRECURLAB_CUDA=OFF)
    if [[ $device == cuda && -z $build_note ]]; then
      nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
      if [[ -x $nvcc ]]; then
        export CUDACXX=$nvcc
        export CUDA_HOME=${CUDA_HOME:-$(cd "$(dirname "$nvcc")/.." && pwd)}
        export PATH="$CUDA_HOME/bin:$PATH"
        echo "nvcc: $("$nvcc" --version | tail -n 2 | head -n 1)"
        meta nvcc "$("$nvcc" --version | sed -n 's/.*release \([^,]*\),.*/\1/p')"
        # One architecture, the visible GPU's, so nvcc compiles once. PyTorch's CMake files
        # set the -gencode flags from TORCH_CUDA_ARCH_LIST (they turn CMAKE_CUDA_ARCHITECTURES
        # off); unset, they detect the GPU or, failing that, build for eleven architectures.
        cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1)
        [[ $cap =~ ^[0-9]+\.[0-9]+$ ]] ||
          cap=$("$python" -c 'import torch; print("%d.%d" % torch.cuda.get_device_capability())' 2>/dev/null)
        if [[ ! $cap =~ ^[0-9]+\.[0-9]+$ ]]; then
          echo "no compute capability from nvidia-smi or PyTorch: building for 9.0 (H100, H200)"
          cap=9.0
        fi
        export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-$cap}
        echo "TORCH_CUDA_ARCH_LIST=$TORCH_CUDA_ARCH_LIST (GPU compute capability $cap)"
        meta cuda_arch "$TORCH_CUDA_ARCH_LIST"
        cuda_args+=(-DCMAKE_CUDA_COMPILER="$nvcc")
      else
        build_note="no nvcc at $nvcc (set CUDACXX)"
      fi
    fi
    # A compiler that links the shared libstdc++, the one LibTorch loads (some nodes set CXX
    # to a wrapper that links it statically: every task then died with SIGSEGV).
    if [[ -z $build_note ]]; then
      # shellcheck source=scripts/shared-runtime-cxx.sh
      source "$root/scripts/shared-runtime-cxx.sh"
      pick_shared_runtime_cxx || build_note="no C++ compiler that links the shared libstdc++"
      echo "$SHARED_RUNTIME_CXX_NOTE"
      meta cxx "$SHARED_RUNTIME_CXX_NOTE"
    fi
    if [[ -z $build_note ]]; then
      # A new build folder gets Ninja and the compiler chosen above on its cmake line (build.log
      # shows it); an existing one keeps what it was configured with.
      generator=() compiler_args=()
      if [[ ! -f $build_dir/CMakeCache.txt ]]; then
        command -v ninja > /dev/null && generator=(-G Ninja)
        compiler_args=(-DCMAKE_CXX_COMPILER="$CXX")
      fi
      prefixes=()
      [[ -n $torch_root ]] && prefixes+=("$torch_root")
      prefixes+=("${cmake_prefixes[@]}")
      prefix_path=$(IFS=';'; echo "${prefixes[*]}")
      limit=$(($(left) - 60))
      ((limit > 20)) || limit=20
      echo "+ cmake -S . -B $build_dir ${generator[*]} -DRECURLAB_PCH=ON -DCMAKE_PREFIX_PATH=$prefix_path ${compiler_args[*]} ${cmake_extra[*]} ${cuda_args[*]}"
      # Built from nothing: precompiled LibTorch headers halve each file's compile time.
      bounded "$limit" "$blog" cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DRECURLAB_PCH=ON \
        ${prefix_path:+-DCMAKE_PREFIX_PATH="$prefix_path"} "${compiler_args[@]}" "${cmake_extra[@]}" \
        "${cuda_args[@]}"
      if [[ $run_status != ok ]]; then
        build_note="configure $run_status"
      elif [[ $device == cuda ]] && ! grep -q '^RECURLAB_CUDA_ENABLED:INTERNAL=ON' "$build_dir/CMakeCache.txt"; then
        build_note="CMake did not enable the CUDA kernels"
      fi
    fi
    if [[ -z $build_note ]]; then
      if want cuda-tests; then
        # Ninja's `help` lists the top folder's targets only (recurlab_cuda_tests is
        # kernels/cuda's): its build.ninja names them all. grep on a here-string: `cmd | grep -q`
        # fails under pipefail when grep exits first.
        if [[ -f $build_dir/build.ninja ]]; then
          target_list=$(grep -o '^build [^ :]*:' "$build_dir/build.ninja" | sed 's/^build //; s/:$//')
        else
          target_list=$(cmake --build "$build_dir" --target help 2>/dev/null)
        fi
        if grep -qw recurlab_cuda_tests <<< "$target_list"; then
          targets+=(recurlab_cuda_tests)
        else
          echo "no target recurlab_cuda_tests: building recurlab_tests for --gtest_filter='*CudaTest.*'"
          targets+=(recurlab_tests)
        fi
      fi
      if [[ -f $build_dir/build.ninja ]]; then keep_going=(-- -k 0); else keep_going=(-- -k); fi
      limit=$(($(left) - 30))
      ((limit > 10)) || limit=10
      echo "+ cmake --build $build_dir -j ${JOBS:-$(nproc)} --target ${targets[*]}  (limit ${limit}s)"
      bounded "$limit" "$blog" cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" \
        --target "${targets[@]}" "${keep_going[@]}"
      [[ $run_status == ok ]] || build_note=$run_status
    fi
  } >> "$blog" 2>&1
  rm -f "$work/current.tsv"
  build_status=${build_note:-ok}
  row build - "$build_status" "" "" $((SECONDS - t0)) "" "${targets[*]}" "" logs/build.log ""
  say "build: $build_status in $((SECONDS - t0))s (logs/build.log)"
  [[ $build_status == ok ]] || tail -n 15 "$blog"
else
  row build - "skipped (--no-build)" "" "" 0 "" "" "" "" "binaries of $build_dir"
  torch_info && meta torch "PyTorch $torch_version (CUDA $torch_cuda) at $torch_root"
fi
meta libtorch_of_build "$(sed -n 's/^Torch_DIR:PATH=//p' "$build_dir/CMakeCache.txt" 2>/dev/null)"
repack

# ---- resume a previous slot's runs --------------------------------------------------------------
if [[ -n $resume ]]; then
  for f in runs.tar.gz checkpoints.tar; do
    [[ -f $resume/$f ]] && tar -xf "$resume/$f" -C "$work" && say "unpacked $resume/$f into $work"
  done
fi

# ---- the stages -------------------------------------------------------------------------------
# The runs, in order ("stage precision"). recurlab_speed times float32; a bf16 run only where
# its --help offers --precision.
speed_bf16=
if want speed && [[ " ${precs[*]} " == *" bf16 "* ]]; then
  if [[ -x $build_dir/recurlab_speed ]] &&
     grep -q -- '--precision' <<< "$("$build_dir/recurlab_speed" --help 2>/dev/null)"; then
    speed_bf16=1
  else
    speed_bf16=pending
    say "speed bf16: pending (recurlab_speed has no --precision option)"
  fi
fi
plan=()
for s in "${all_stages[@]}"; do
  want "$s" || continue
  case $s in
    cuda-tests) plan+=("cuda-tests -") ;;
    speed) plan+=("speed fp32")
           [[ $speed_bf16 == 1 ]] && plan+=("speed bf16") ;;
    *) for p in "${precs[@]}"; do plan+=("$s $p"); done ;;
  esac
done
weights_left=0
for item in "${plan[@]}"; do weights_left=$((weights_left + $(weight "${item%% *}"))); done

failed=0
runs_left=${#plan[@]}
for item in "${plan[@]}"; do
  stage=${item%% *} prec=${item#* }
  w=$(weight "$stage")
  # This run's share of the time left, after what every run still to come needs around it,
  # but at least a floor (the earlier stages first) where that much is left.
  avail=$(($(left) - per_run * runs_left))
  limit=$((avail * w / weights_left))
  floor=30
  [[ $stage == cuda-tests ]] && floor=60
  ((limit < floor)) && limit=$((floor < avail ? floor : avail))
  weights_left=$((weights_left - w))
  runs_left=$((runs_left - 1))
  name=$stage
  [[ $prec == - ]] || name=$stage-$prec
  log=$logs/$name.log
  if ((limit < 10)); then
    row "$stage" "$prec" "not run (no time left)" "" "" 0 "$limit" "" "" "" ""
    say "$name: not run, $(left)s left before the deadline"
    failed=1
    continue
  fi
  caps=() cmd=() run_dir=
  case $stage in
    cuda-tests)
      if [[ -x $build_dir/recurlab_cuda_tests ]]; then
        cmd=("$build_dir/recurlab_cuda_tests")
      else
        cmd=("$build_dir/recurlab_tests" --gtest_filter='*CudaTest.*')
      fi
      ;;
    speed)
      run_dir=$work/runs/$name
      cmd=("$build_dir/recurlab_speed" --device "$device" --out "$run_dir")
      ((threads > 0)) && cmd+=(--threads "$threads")
      # shellcheck disable=SC2206  # the options are words
      [[ -n $speed_args ]] && cmd+=($speed_args) && caps+=("$speed_args")
      [[ $prec == bf16 ]] && cmd+=(--precision bf16)
      ;;
    *)
      run_dir=$work/runs/$name
      config=${configs[$stage]:-$root/configs/$stage/quick.json}
      cmd=("$build_dir/recurlab_$stage" --config "$config"
           --device "$device" --precision "$prec" --data-dir "$data" --out "$run_dir")
      [[ -n ${configs[$stage]:-} ]] && caps+=("config ${config#"$root"/}")
      ((threads > 0)) && cmd+=(--threads "$threads")
      if ((max_epochs > 0)); then
        cmd+=(--set "train.max_epochs=$max_epochs")
        caps+=("train.max_epochs=$max_epochs")
      fi
      for s in "${sets[@]}"; do
        [[ $s == "$stage":* ]] || continue
        cmd+=(--set "${s#*:}")
        caps+=("${s#*:}")
      done
      ;;
  esac
  cap_text=$(IFS=' '; echo "${caps[*]}")
  if [[ ! -x ${cmd[0]} ]]; then
    missing=${cmd[0]}
    [[ $stage == cuda-tests ]] && missing="$build_dir/recurlab_cuda_tests or recurlab_tests"
    row "$stage" "$prec" "not built" "" "" 0 "$limit" "$cap_text" "" "" "no $missing"
    say "$name: not built (no $missing)"
    failed=1
    repack
    continue
  fi
  say "$name: start, limit ${limit}s: ${cmd[*]}"
  current "$stage" "$prec" running "$SECONDS" "$limit" "$cap_text" "${run_dir:+runs/$name}" "logs/$name.log"
  repack
  printf '+ %s\n' "$(printf '%q ' "${cmd[@]}")" > "$log"
  RECURLAB_QUIET_BLAS=1 bounded "$limit" "$log" "${cmd[@]}"
  note=
  if [[ $stage == cuda-tests ]]; then
    # A skipped CUDA test is a failure here: the kernels did not run.
    passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    failed_tests=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
    note="${passed:-0} passed, ${skipped:-0} skipped, ${failed_tests:-0} failed"
    if [[ $run_status == ok ]]; then
      if ((${skipped:-0} > 0)); then run_status="failed (${skipped} skipped)"
      elif ((${passed:-0} == 0)); then run_status="failed (none ran)"
      fi
    fi
  elif [[ -n $run_dir && -d $run_dir && ( $run_status != ok || ! -f $run_dir/summary.json ) ]]; then
    # A cut or crashed run's report from its log as it is (what it reached).
    analyze "$run_dir" "$logs/$name.analyze.log" ||
      note="recurlab_analyze on the cut run failed (logs/$name.analyze.log)"
  fi
  [[ $run_status == ok ]] || failed=1
  rm -f "$work/current.tsv"
  row "$stage" "$prec" "$run_status" "$run_rc" "$run_signal" "$run_wall" "$limit" "$cap_text" \
      "${run_dir:+runs/$name}" "logs/$name.log" "$note"
  say "$name: $run_status in ${run_wall}s${note:+ ($note)}"
  if [[ $run_status != ok ]]; then tail -n 5 "$log" | sed 's/^/    /'; fi
  ((runs_left > 0)) && repack  # after the last run, the final re-pack below
done

[[ $speed_bf16 == pending ]] &&
  row speed bf16 "pending: recurlab_speed has no --precision" "" "" 0 "" "" "" "" \
      "its timings are float32 only"
[[ -n $monitor ]] && kill "$monitor" 2>/dev/null
# Every row must have finished: ok, or a build skipped by --no-build, or a row still pending
# in recurlab (speed bf16 without --precision).
while IFS=$'\t' read -r _ _ status _; do
  case $status in ok|"skipped (--no-build)"|pending:*) ;; *) failed=1 ;; esac
done < "$rows"
repack
say "done in ${SECONDS}s; results in $out:"
ls -l "$out"
echo
cat "$out/report.md"
exit $((failed ? 1 : 0))
}
