#!/usr/bin/env bash
# scripts/gpu-run-report.py, what a GPU slot returns, on a hand-made work folder: the synthetic
# stage's per-model rows (mean seconds per unit and test accuracy over each model's cells, from
# its summary.json), a stage that failed without a summary, and at most 8 files in --out, the
# summary parsing as JSON.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/work out=$tmp/out
mkdir -p "$work/logs" "$work/runs/synthetic-fp32" "$work/runs/qa-fp32"
printf 'started\t2026-12-07T10:00:00Z\ndeadline_s\t540\ndevice\tcuda\ngpu\tNVIDIA H100, 570.1, 80 GiB, 9.0\n' > "$work/meta.tsv"
printf 'synthetic\tfp32\tok\t0\t\t30\t60\t\truns/synthetic-fp32\tlogs/synthetic-fp32.log\t\n' > "$work/rows.tsv"
printf 'qa\tfp32\tfailed rc 1\t1\t\t5\t60\t\truns/qa-fp32\tlogs/qa-fp32.log\t\n' >> "$work/rows.tsv"
echo "recurlab_qa: error: the reason it failed" > "$work/logs/qa-fp32.log"
echo "[80/80] done" > "$work/logs/synthetic-fp32.log"
cat > "$work/runs/synthetic-fp32/summary.json" <<'JSON'
{"units_finished": 8, "units_running": 0,
 "synthetic": [
  {"task": "mqar", "model": "sru", "width": 32, "test_acc": 0.5, "seconds_per_unit": 1.0},
  {"task": "parity", "model": "sru", "width": 32, "test_acc": 1.0, "seconds_per_unit": 2.0},
  {"task": "mqar", "model": "lstm", "width": 32, "test_acc": 0.25, "seconds_per_unit": 4.0}]}
JSON
python3 "$root/scripts/gpu-run-report.py" --work "$work" --out "$out"

failures=0
expect() {  # expect WHAT LINE: report.md holds LINE
  if grep -qF -- "$2" "$out/report.md"; then echo "ok: $1"; else echo "FAILED: $1: no line '$2'"; failures=$((failures + 1)); fi
}
expect "synthetic sru row" "| synthetic | fp32 | sru | — | — | — | 1.50 s/unit | test accuracy (mean over 2 task and width cells) 75.00 |"
expect "synthetic lstm row" "| synthetic | fp32 | lstm | — | — | — | 4 s/unit | test accuracy (mean over 1 task and width cells) 25.00 |"
expect "stage row" "| synthetic | fp32 | ok | 30 | 60 |"
expect "failed stage" "| qa | fp32 | failed rc 1 |"
expect "failed log's last lines" "recurlab_qa: error: the reason it failed"
files=$(find "$out" -type f | wc -l)
if ((files <= 8)); then echo "ok: $files files"; else echo "FAILED: $files files in --out, at most 8"; failures=$((failures + 1)); fi
if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out/summary.json"; then
  echo "ok: summary.json parses"
else
  echo "FAILED: summary.json"; failures=$((failures + 1))
fi
((failures == 0)) || { echo "$failures failed"; exit 1; }
