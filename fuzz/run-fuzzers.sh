#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan) into $FUZZ_BUILD and runs
# each one for FUZZ_SECONDS on a copy of its committed seed corpus (fuzz/corpus/<target>/),
# so that new inputs it finds stay out of the repository. A crash leaves crash-* files in
# $FUZZ_BUILD/<target>/ and fails the script. FUZZ_SEED fixes libFuzzer's seed (CI's tests do, so
# that what fails there fails here too); unset, every run explores anew.
#   fuzz/run-fuzzers.sh [TARGET...]      (default: every target)
# Exit 77 (CTest's "skipped") when clang++ or its libFuzzer runtime is missing; 1 (a failure)
# there under RECURLAB_REQUIRE_ALL_TESTS=1 (.ci/run).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ_BUILD="${FUZZ_BUILD:-$ROOT/build-fuzz}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_SEED="${FUZZ_SEED:-}"
CLANGXX="${CLANGXX:-clang++}"
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(labeled_sentences word_vectors search_space parallel_corpus lm_corpus squad_dataset config)

skip_or_fail() {
  if [[ ${RECURLAB_REQUIRE_ALL_TESTS:-} == 1 ]]; then
    echo "fuzz: RECURLAB_REQUIRE_ALL_TESTS=1, and the fuzzers cannot run: $*" >&2
    exit 1
  fi
  echo "recurlab skip: missing: $*"
  exit 77
}
if ! command -v "$CLANGXX" >/dev/null; then
  skip_or_fail "$CLANGXX not found (apt-get install clang libclang-rt-dev)"
fi
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$probe/probe.cpp"
if ! "$CLANGXX" -fsanitize=fuzzer "$probe/probe.cpp" -o "$probe/probe" 2>/dev/null; then
  skip_or_fail "$CLANGXX cannot link -fsanitize=fuzzer (apt-get install libclang-rt-dev)"
fi

# The torch-free sources each target needs.
sources() {
  case "$1" in
    labeled_sentences) echo tasks/classification/labeled_sentences.cpp experiments/data/text_lines.cpp ;;
    word_vectors) echo experiments/data/word_vectors.cpp experiments/data/text_lines.cpp ;;
    search_space) echo experiments/search/search_space.cpp experiments/search/seed_sequence.cpp ;;
    parallel_corpus) echo tasks/mt/parallel_corpus.cpp ;;
    lm_corpus) echo tasks/lm/lm_corpus.cpp ;;
    config) echo common/config_json.cpp ;;
    squad_dataset) echo tasks/qa/squad_dataset.cpp tasks/qa/json_document.cpp tasks/qa/squad_evaluation.cpp metrics/unicode_text.cpp ;;
    *) echo "fuzz: unknown target '$1'; known: labeled_sentences word_vectors search_space parallel_corpus lm_corpus squad_dataset config" >&2
       exit 2 ;;
  esac
}

FLAGS=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$ROOT" -Wall -Wextra)
mkdir -p "$FUZZ_BUILD"
FUZZ_BUILD="$(cd "$FUZZ_BUILD" && pwd)"  # absolute: each target runs from its own folder
status=0
for t in "${TARGETS[@]}"; do
  srcs=()
  for s in $(sources "$t"); do srcs+=("$ROOT/$s"); done
  bin="$FUZZ_BUILD/${t}_fuzzer"
  newest="$(ls -t "$ROOT/fuzz/${t}_fuzzer.cpp" "$ROOT/fuzz/fuzz_input_file.h" "${srcs[@]}" \
            "$ROOT"/experiments/data/*.h "$ROOT"/experiments/search/*.h "$ROOT"/tasks/lm/lm_corpus.h "$ROOT"/tasks/qa/*.h \
            "$ROOT"/common/config_json.h "$ROOT"/tasks/classification/*.h "$ROOT"/metrics/*.h "$ROOT"/tasks/mt/*.h "$bin" 2>/dev/null | head -1 || true)"
  if [[ ! -x "$bin" || "$newest" != "$bin" ]]; then
    echo "fuzz: building $t"
    libs=()
    [[ "$t" == squad_dataset ]] && libs=(-licuuc)  # ICU's character database
    "$CLANGXX" "${FLAGS[@]}" "$ROOT/fuzz/${t}_fuzzer.cpp" "${srcs[@]}" "${libs[@]}" -lz -o "$bin"
  fi
  work="$FUZZ_BUILD/$t"
  mkdir -p "$work/corpus"
  cp -n "$ROOT/fuzz/corpus/$t/"* "$work/corpus/" 2>/dev/null || true
  seed=()
  [[ -n "$FUZZ_SEED" ]] && seed=(-seed="$FUZZ_SEED")
  echo "fuzz: running $t for ${FUZZ_SECONDS}s${FUZZ_SEED:+ (seed $FUZZ_SEED)}"
  if ! (cd "$work" && "$bin" -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=60 \
          -rss_limit_mb=2048 -print_final_stats=1 "${seed[@]}" corpus); then
    echo "fuzz: $t FAILED; the crashing input is in $work/crash-*" >&2
    status=1
  fi
done
exit $status
