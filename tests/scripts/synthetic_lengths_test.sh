#!/usr/bin/env bash
# scripts/synthetic-lengths.sh on a tiny run with kept models (2 mixers x 2 rates, 2 epochs):
# one row per model and length with its folder's names; the same bytes with JOBS=3 as with
# JOBS=1; a length the task cannot have fails and leaves the earlier OUT as it was; DEVICE
# reaches evaluate; and recurlab_analyze reports the file.
# Usage: synthetic_lengths_test.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/config.json" <<'JSON'
{"experiment": "synthetic", "seed": 5, "keep_model": "best", "widths": [8],
 "learning_rates": [0.01, 0.003],
 "tasks": {"parity": {"kind": "parity", "train_length": 6, "train_min_length": 2,
                      "test_length": 9, "test_min_length": 7, "train_examples": 64,
                      "dev_examples": 16, "test_examples": 20}},
 "train": {"optimizer": "adam", "batch_size": 16, "max_epochs": 2},
 "models": {"lstm": {"encoder": "lstm"}, "sru": {"encoder": "sru"}}}
JSON
run=$tmp/run
"$build/recurlab_synthetic" --config "$tmp/config.json" --out "$run" --threads 1 > "$tmp/train.log" 2>&1 ||
  { cat "$tmp/train.log"; exit 1; }

failures=0
check() {  # check WHAT COMMAND...: the command succeeds
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}
cd "$root"
BUILD=$build EXAMPLES=10 JOBS=1 scripts/synthetic-lengths.sh "$run" parity 4,12,30 "$tmp/one.csv"
BUILD=$build EXAMPLES=10 JOBS=3 scripts/synthetic-lengths.sh "$run" parity 4,12,30 "$tmp/three.csv"
check "the same file for any JOBS" cmp "$tmp/one.csv" "$tmp/three.csv"
check "a header and 2 x 2 x 3 rows" test "$(wc -l < "$tmp/one.csv")" -eq 13
check "the header" test "$(head -1 "$tmp/one.csv")" = \
  "task,model,width,lr_index,seed,length,sequences,questions,right,exact_sequences,accuracy,exact_match"
check "a row named by its folder" grep -q '^parity,sru,8,1,0,30,10,10,' "$tmp/one.csv"
check "models in folder order" test "$(cut -d, -f2,4 "$tmp/one.csv" | sed -n '2p;5p;8p;11p' | tr '\n' ' ')" = \
  "lstm,0 lstm,1 sru,0 sru,1 "

cp "$tmp/one.csv" "$tmp/kept.csv"
if BUILD=$build JOBS=2 scripts/synthetic-lengths.sh "$run" parity 4,0 "$tmp/one.csv" 2> "$tmp/err"; then
  echo "FAILED: a length of 0 was accepted"; failures=$((failures + 1))
else
  check "the error names --lengths" grep -q -- "--lengths" "$tmp/err"
  check "OUT left as it was" cmp "$tmp/one.csv" "$tmp/kept.csv"
fi

if BUILD=$build DEVICE=nowhere scripts/synthetic-lengths.sh "$run" parity 4 "$tmp/one.csv" 2> "$tmp/err"; then
  echo "FAILED: DEVICE=nowhere was accepted"; failures=$((failures + 1))
else
  check "DEVICE reaches evaluate" grep -q -- "--device" "$tmp/err"
fi

# The default OUT is what the report reads.
BUILD=$build EXAMPLES=10 scripts/synthetic-lengths.sh "$run" parity 4,12,30 > /dev/null
"$build/recurlab_analyze" "$run" > /dev/null
check "the report's section" grep -q "At lengths beyond the test's" "$run/report.md"
check "its table" test -f "$run/synthetic_at_lengths_parity.csv"
[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
