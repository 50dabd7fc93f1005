#!/usr/bin/env bash
# The skipped tests of the last ctest run in BUILD_DIR, each with its reason: the
# "recurlab skip: <kind>: <reason>" line the test printed (tests/support/required.h, the skip
# helpers of fuzz/run-fuzzers.sh and scripts/check-offline-configure.sh), or, for a skip that
# did not go through them, the line after GoogleTest's "Skipped". `make test` and
# `make test-torch2` print it after ctest's summary, whose list names the tests but not why.
#   scripts/ctest-skips.sh [BUILD_DIR]      (default: build)
set -euo pipefail
log="${1:-build}/Testing/Temporary/LastTest.log"
[[ -f $log ]] || { echo "ctest-skips: no $log" >&2; exit 1; }
awk '
  /^[0-9]+\/[0-9]+ Testing: / { name = $3; reason = ""; after_skipped = 0; next }
  /^recurlab skip: / && reason == "" { reason = substr($0, 16); next }
  after_skipped && reason == "" { reason = "(no helper) " $0; after_skipped = 0; next }
  /: Skipped$/ { after_skipped = 1; next }
  /^<end of output>$/ { if (reason != "") { print "  " name ": " reason; n++ } name = "" }
  END { printf "%d tests skipped%s\n", n, n ? " (above, with their reasons)" : "" }
' "$log"
