#!/usr/bin/env bash
# Every kept model of a synthetic run scored at the lengths given, into one CSV:
#   scripts/synthetic-lengths.sh RUN TASK LENGTHS [OUT]
# RUN: a recurlab_synthetic run folder whose config had "keep_model"; TASK: a task of its
# config; LENGTHS: comma-separated, e.g. 40,80,160,320,640. For each kept model of the task
# (RUN/models/TASK/<model>/w<width>/lr<i>/seeds/<s>/), `recurlab_synthetic evaluate` on 1,000
# fresh sequences per length (EXAMPLES=N to change it, SEED=S the draw), one LibTorch thread,
# JOBS=N models at a time (default 1; the file is the same for any N), DEVICE=cuda (or cuda:N,
# auto; default cpu) where they run.
# OUT (default RUN/TASK_by_length.csv): task,model,width,lr_index,seed, then evaluate's columns;
# `recurlab_analyze RUN` reports it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
run=$1 task=$2 lengths=$3
out=${4:-$run/${task}_by_length.csv}
program=${BUILD:-build}/recurlab_synthetic
jobs=${JOBS:-1}
[ -x "$program" ] || { echo "synthetic-lengths.sh: $program is not built (make build)" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "synthetic-lengths.sh: JOBS=$jobs is not a positive integer" >&2; exit 2; }
[ -d "$run/models/$task" ] || {
  echo "synthetic-lengths.sh: no kept models in $run/models/$task (a run with keep_model best or last)" >&2
  exit 2
}
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
models=()
for dir in "$run/models/$task"/*/w*/lr*/seeds/*/; do
  [ -f "$dir/manifest.json" ] && models+=("${dir%/}")
done
[ ${#models[@]} -gt 0 ] || { echo "synthetic-lengths.sh: no kept model under $run/models/$task" >&2; exit 2; }
# One model: its rows, prefixed by what its folder names, into parts/<index>.csv.
score() {
  local index=$1 dir=$2 part n
  # .../models/<task>/<model>/w<width>/lr<i>/seeds/<s>
  IFS=/ read -r -a part <<< "$dir"
  n=${#part[@]}
  "$program" evaluate --model "$dir" --lengths "$lengths" --examples "${EXAMPLES:-1000}" \
    --seed "${SEED:-1}" --device "${DEVICE:-cpu}" --threads 1 -o "$parts/$index.raw" || return 1
  { [ "$index" -gt 0 ] || echo "task,model,width,lr_index,seed,$(head -1 "$parts/$index.raw")"
    tail -n +2 "$parts/$index.raw" |
      sed "s|^|$task,${part[n-5]},${part[n-4]#w},${part[n-3]#lr},${part[n-1]},|"; } > "$parts/$index.csv"
}
export -f score
export program lengths parts task
# A model that fails stops the rest (xargs stops at status 255); nothing is written to OUT.
for i in "${!models[@]}"; do printf '%s\0%s\0' "$i" "${models[i]}"; done |
  xargs -0 -n 2 -P "$jobs" bash -c 'set -o pipefail; score "$@" || exit 255' score
for i in "${!models[@]}"; do cat "$parts/$i.csv"; done > "$out.part"
mv "$out.part" "$out"
echo "$out: ${#models[@]} models at lengths $lengths"
