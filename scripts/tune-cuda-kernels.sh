#!/usr/bin/env bash
# Tunes the SRU CUDA kernels on a GPU machine, after scripts/gpu-check.sh has configured and
# built BUILD (default build-gpu): for each look-ahead depth (RECURLAB_CUDA_STEPS_IN_FLIGHT, a
# rebuild each) and block size (RECURLAB_CUDA_THREADS, at run time), Nsight Compute measures the
# forward and backward kernels' duration and DRAM throughput on a few shapes. Prints one CSV row
# per (steps, threads, shape, kernel) and writes them to OUT (default results/cuda-tuning.csv).
#
# usage: scripts/tune-cuda-kernels.sh [--steps "2 4 8"] [--threads "64 128 256"]
#                                     [--shapes "128x512x32 1024x1024x128"] [--out FILE]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD:-build-gpu}
steps_list="2 4 8" threads_list="64 128 256 512" shapes="128x512x32 128x512x128 1024x1024x32 1024x1024x128"
out=results/cuda-tuning.csv
while (($#)); do
  case $1 in
    --steps) steps_list=$2; shift 2 ;;
    --threads) threads_list=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "tune-cuda-kernels: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v ncu > /dev/null || { echo "tune-cuda-kernels: ncu (Nsight Compute) not on PATH" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum
echo "steps,threads,length,hidden,batch,kernel,us,dram_pct,dram_gb" | tee "$out"
for steps in $steps_list; do
  cmake -S . -B "$build" -DCMAKE_CUDA_FLAGS="-DRECURLAB_CUDA_STEPS_IN_FLIGHT=$steps" > /dev/null
  cmake --build "$build" --target recurlab_speed > /dev/null
  for threads in $threads_list; do
    for shape in $shapes; do
      IFS=x read -r L d B <<< "$shape"
      RECURLAB_CUDA_THREADS=$threads ncu --clock-control none --kernel-name regex:'sru(Forward|Backward)Kernel' \
        --metrics "$metrics" --csv --print-units base \
        "$build/recurlab_speed" --device cuda --models sru_kernel --sizes "${L}x${d}" --batch "$B" \
        --no-sweeps --repeats 1 --warmup 1 --out "/tmp/tune-$$" 2> /dev/null |
      python3 -c '
import csv, re, sys
steps, threads, L, d, B = sys.argv[1:6]
rows = [r for r in csv.reader(l for l in sys.stdin if l.startswith("\""))]
head, rows = rows[0], rows[1:]
k, m, v = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
got = {}
for r in rows:  # the last launch of each kernel (after the warm-up)
    name = re.search(r"sru(Forward|Backward)Kernel", r[k]).group(0)
    got.setdefault(name, {})[r[m]] = float(r[v].replace(",", ""))
for name, x in sorted(got.items()):
    print(f"{steps},{threads},{L},{d},{B},{name},{x[\"gpu__time_duration.sum\"]/1e3:.2f},"
          f"{x[\"dram__throughput.avg.pct_of_peak_sustained_elapsed\"]:.1f},{x[\"dram__bytes.sum\"]/1e9:.4f}")
' "$steps" "$threads" "$L" "$d" "$B" | tee -a "$out"
      rm -rf "/tmp/tune-$$"
    done
  done
done
cmake -S . -B "$build" -DCMAKE_CUDA_FLAGS="" > /dev/null
