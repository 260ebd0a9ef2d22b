#!/usr/bin/env bash
# Runs the stateful fuzzer (tests/test_fuzz_stateful.py) against an
# ASan+UBSan build of ccgym, via tools/sanitize.sh: each state machine
# (single, vector, SB3, bench ceiling) in its own subprocess, so a crash or
# a sanitizer report fails the run with the report and the trace of the
# example that crashed; Python-level failures print hypothesis's shrunk
# falsifying example.
#
# Usage:
#   tools/fuzz.sh                 bounded run (CI): fixed seed, a few minutes
#   tools/fuzz.sh --long [MIN]    rounds with random seeds for MIN minutes
#                                 (default 30); stops at the first failure
#   extra arguments go to pytest (e.g. -x)
#
# Environment: CCGYM_FUZZ_EXAMPLES / CCGYM_FUZZ_STEPS (per machine and
# round), CCGYM_FUZZ_SEED (bounded mode; default 0), CCGYM_FUZZ_MACHINES
# (e.g. "vector,single"), and sanitize.sh's SANITIZE_VENV /
# SANITIZE_SKIP_BUILD / PYTHON (with no SANITIZE_VENV the instrumented venv
# lives in a temporary directory removed at exit).
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=bounded
MINUTES=30
if [[ "${1:-}" == "--long" ]]; then
  MODE=long
  shift
  if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
    MINUTES=$1
    shift
  fi
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export SANITIZE_VENV=${SANITIZE_VENV:-$TMP/venv}
export TMPDIR=$TMP  # pytest's tmp_path (the traces) goes with it
TEST=tests/test_fuzz_stateful.py::test_stateful_fuzz

if [[ "$MODE" == bounded ]]; then
  export CCGYM_FUZZ_EXAMPLES=${CCGYM_FUZZ_EXAMPLES:-12}
  export CCGYM_FUZZ_STEPS=${CCGYM_FUZZ_STEPS:-25}
  export CCGYM_FUZZ_SEED=${CCGYM_FUZZ_SEED:-0}
  echo "fuzz.sh: bounded run, seed $CCGYM_FUZZ_SEED, $CCGYM_FUZZ_EXAMPLES examples x" \
    "$CCGYM_FUZZ_STEPS steps per machine"
  status=0
  tools/sanitize.sh "$TEST" -s "$@" || status=$?
  exit $status  # (not exec: the EXIT trap removes the temporary venv)
fi

export CCGYM_FUZZ_EXAMPLES=${CCGYM_FUZZ_EXAMPLES:-100}
export CCGYM_FUZZ_STEPS=${CCGYM_FUZZ_STEPS:-40}
export CCGYM_FUZZ_SEED=random
END=$(( $(date +%s) + 60 * MINUTES ))
round=0
while (( $(date +%s) < END )); do
  round=$(( round + 1 ))
  echo "fuzz.sh: long run, round $round ($(( (END - $(date +%s)) / 60 )) min left)"
  tools/sanitize.sh "$TEST" -s "$@"  # a failure ends the run (set -e)
  export SANITIZE_SKIP_BUILD=1  # built once, by the first round
done
echo "fuzz.sh: $round rounds in $MINUTES min, no failure"
