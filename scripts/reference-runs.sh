#!/usr/bin/env bash
# Runs (or resumes) the full-protocol reference runs whose folders are committed under
# results/reference/<task>/<name>/ (docs/results.md). A run cut off by a kill or the end of a
# session goes on where it stopped when the same command runs again.
#
#   scripts/reference-runs.sh [--jobs N] [--data-dir DIR] [--root DIR] RUN...
#   RUN: mt | lm-char | lm-char-linear | lm-word | classification | qa | synthetic |
#        synthetic-mqar | synthetic-negative-eigenvalues | synthetic-lengths | all
#   (qa: seeds 1-3 of configs/qa/reference.json, then of reference-sru-dropout.json and
#    reference-sru-rescale.json, then their comparison over the seeds in qa/seeds;
#    classification: reference.json, then reference-embed-dropout.json,
#    reference-trec-seeds.json, reference-trec-pooling.json and reference-max-pooling.json;
#    lm-char: ptb-char-cpu.json, then ptb-char-cpu-continued.json from its kept models;
#    lm-char-linear: ptb-char-linear-cpu.json, the linear recurrences on the same protocol, 4 jobs;
#    synthetic: configs/synthetic/reference-cpu.json, the part of the synthetic suite a CPU finishes,
#    2 jobs: its 544 units took about 9 core-hours;
#    synthetic-mqar: configs/synthetic/mqar-small-vocabulary.json, MQAR (64, 4) at vocabulary 256,
#    which a CPU's 5,000 training sequences can teach (at 8,192 no mixer learns it), 2 jobs, 136 units;
#    synthetic-negative-eigenvalues: configs/synthetic/negative-eigenvalues.json, the elementwise
#    linear recurrences with and without negative eigenvalues on parity and cycle navigation,
#    every unit 16 epochs, dev at the test lengths, 2 jobs, about an hour on a busy 2-core machine;
#    synthetic-lengths: configs/synthetic/length-generalization.json, parity, cycle navigation and
#    majority for every registered mixer at width 64 on that protocol, 2 jobs, 204 units)
#
# Each run uses N worker processes of one LibTorch thread (on a 2-core machine two OpenMP
# threads in one process wait for each other; two processes do not). The default is 2, and 3
# for lm-char and lm-word: one process per model, so the three models share the cores evenly and end
# together instead of one process training two models after the other has finished. A run
# resumes only with the N it started with (the shard logs are log.shard-i-of-N.h5). The folders keep
# log*.h5, report.md, figures, tables, summary.json, translations and predictions; the runner
# deletes the checkpoints of each finished unit, and .gitignore keeps checkpoints/ and models/
# out of git.
set -euo pipefail
cd "$(dirname "$0")/.."
# The whole script is one block that bash reads before it runs any of it, ending in exit: a run
# takes hours, and bash reads a plain script as it goes, so an edit of this file (a checkout, a
# new run's case) would otherwise change what a running copy executes next.
{

jobs=
data_dir=data
root=results/reference
build=${BUILD:-build}
known=(mt lm-char lm-char-linear lm-word classification qa synthetic synthetic-mqar
       synthetic-negative-eigenvalues synthetic-lengths)
runs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    all) runs+=("${known[@]}"); shift ;;
    *) if [[ " ${known[*]} " == *" $1 "* ]]; then runs+=("$1"); shift
       else echo "reference-runs.sh: unknown run or option '$1' (runs: ${known[*]} all)" >&2; exit 2; fi ;;
  esac
done
[ ${#runs[@]} -gt 0 ] || { echo "reference-runs.sh: name a run: ${known[*]} all" >&2; exit 2; }

for run in "${runs[@]}"; do
  default_jobs=2
  case "$run" in
    lm-char|lm-word) default_jobs=3 ;;
    lm-char-linear) default_jobs=4 ;;
  esac
  common=(--jobs "${jobs:-$default_jobs}" --threads 1 --data-dir "$data_dir")
  case "$run" in
    mt)  "$build/recurlab_mt" --config configs/mt/multi30k.json "${common[@]}" --out "$root/mt/multi30k" ;;
    lm-char) "$build/recurlab_lm" --config configs/lm/ptb-char-cpu.json "${common[@]}" --out "$root/lm/ptb-char"
        # Two more epochs of the three kept models at a tenth of the learning rate.
        "$build/recurlab_lm" --config configs/lm/ptb-char-cpu-continued.json "${common[@]}" \
          --out "$root/lm/ptb-char-continued" ;;
    lm-char-linear) "$build/recurlab_lm" --config configs/lm/ptb-char-linear-cpu.json "${common[@]}" \
          --out "$root/lm/ptb-char-linear" ;;
    synthetic) "$build/recurlab_synthetic" --config configs/synthetic/reference-cpu.json "${common[@]}" \
          --out "$root/synthetic/cpu" ;;
    synthetic-mqar) "$build/recurlab_synthetic" --config configs/synthetic/mqar-small-vocabulary.json \
          "${common[@]}" --out "$root/synthetic/mqar-small-vocabulary" ;;
    synthetic-negative-eigenvalues) "$build/recurlab_synthetic" \
          --config configs/synthetic/negative-eigenvalues.json "${common[@]}" \
          --out "$root/synthetic/negative-eigenvalues" ;;
    synthetic-lengths) "$build/recurlab_synthetic" \
          --config configs/synthetic/length-generalization.json "${common[@]}" \
          --out "$root/synthetic/length-generalization" ;;
    lm-word) "$build/recurlab_lm" --config configs/lm/ptb-word-cpu.json "${common[@]}" --out "$root/lm/ptb-word" ;;
    classification) "$build/recurlab_classification" --config configs/classification/reference.json \
                      "${common[@]}" --out "$root/classification/fixed-hyperparameters"
        # The recurrent models with dropout on the embeddings too, CR and MR (one process).
        "$build/recurlab_classification" --config configs/classification/reference-embed-dropout.json \
          --jobs 1 --threads 1 --data-dir "$data_dir" --out "$root/classification/embed-dropout"
        # TREC alone with five seeds: how far one run on its 500 test questions moves by seed.
        "$build/recurlab_classification" --config configs/classification/reference-trec-seeds.json \
          --jobs 1 --threads 1 --data-dir "$data_dir" --out "$root/classification/trec-seeds"
        # The recurrent models on TREC with last-state and max pooling instead of the mean.
        "$build/recurlab_classification" --config configs/classification/reference-trec-pooling.json \
          "${common[@]}" --out "$root/classification/trec-pooling"
        # Max pooling for the recurrent models on CR and MR.
        "$build/recurlab_classification" --config configs/classification/reference-max-pooling.json \
          "${common[@]}" --out "$root/classification/max-pooling" ;;
    qa) for seed in 1 2 3; do
          "$build/recurlab_qa" --config configs/qa/reference.json --seed "$seed" "${common[@]}" \
            --out "$root/qa/offline-seed-$seed"
        done
        # The SRU reader alone with its own dropouts (one model: one process).
        for seed in 1 2 3; do
          "$build/recurlab_qa" --config configs/qa/reference-sru-dropout.json --seed "$seed" \
            --jobs 1 --threads 1 --data-dir "$data_dir" --out "$root/qa/offline-sru-dropout-seed-$seed"
        done
        # The SRU reader alone with the rescaled initialization of the SRU repository's reader.
        for seed in 1 2 3; do
          "$build/recurlab_qa" --config configs/qa/reference-sru-rescale.json --seed "$seed" \
            --jobs 1 --threads 1 --data-dir "$data_dir" --out "$root/qa/offline-sru-rescale-seed-$seed"
        done
        # The readers over the seeds: mean ± std and paired tests (docs/compare.md).
        "$build/recurlab_compare" "$root"/qa/offline-seed-{1,2,3} "$root"/qa/offline-sru-dropout-seed-{1,2,3} \
          "$root"/qa/offline-sru-rescale-seed-{1,2,3} --out "$root/qa/seeds" ;;
  esac
done
exit 0
}
