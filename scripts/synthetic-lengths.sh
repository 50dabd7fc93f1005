#!/usr/bin/env bash
# Every kept model of a synthetic run scored at the lengths given, into one CSV:
#   scripts/synthetic-lengths.sh RUN TASK LENGTHS [OUT]
# RUN: a recurlab_synthetic run folder whose config had "keep_model"; TASK: a task of its
# config; LENGTHS: comma-separated, e.g. 40,80,160,320,640. For each kept model of the task
# (RUN/models/TASK/<model>/w<width>/lr<i>/seeds/<s>/), `recurlab_synthetic evaluate` on 1,000
# fresh sequences per length (EXAMPLES=N to change it, SEED=S the draw), one LibTorch thread.
# OUT (default RUN/TASK_by_length.csv): task,model,width,lr_index,seed, then evaluate's columns.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
run=$1 task=$2 lengths=$3
out=${4:-$run/${task}_by_length.csv}
program=${BUILD:-build}/recurlab_synthetic
[ -x "$program" ] || { echo "synthetic-lengths.sh: $program is not built (make build)" >&2; exit 2; }
[ -d "$run/models/$task" ] || {
  echo "synthetic-lengths.sh: no kept models in $run/models/$task (a run with keep_model best or last)" >&2
  exit 2
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rm -f "$out.part"
found=0
for dir in "$run/models/$task"/*/w*/lr*/seeds/*/; do
  [ -f "$dir/manifest.json" ] || continue
  # .../models/<task>/<model>/w<width>/lr<i>/seeds/<s>/
  IFS=/ read -r -a part <<< "${dir%/}"
  n=${#part[@]}
  model=${part[n-5]} width=${part[n-4]#w} lr=${part[n-3]#lr} seed=${part[n-1]}
  "$program" evaluate --model "$dir" --lengths "$lengths" --examples "${EXAMPLES:-1000}" \
    --seed "${SEED:-1}" --threads 1 -o "$tmp"
  [ "$found" -gt 0 ] || echo "task,model,width,lr_index,seed,$(head -1 "$tmp")" > "$out.part"
  tail -n +2 "$tmp" | sed "s|^|$task,$model,$width,$lr,$seed,|" >> "$out.part"
  found=$((found + 1))
done
[ "$found" -gt 0 ] || { echo "synthetic-lengths.sh: no kept model under $run/models/$task" >&2; exit 2; }
mv "$out.part" "$out"
echo "$out: $found models at lengths $lengths"
