#!/usr/bin/env bash
# Performance regression gate: benchmark BASE and HEAD with `asv continuous`
# on ccgym's key benchmarks and fail when asv reports "PERFORMANCE DECREASED".
#
# Usage: asv_benchmarks/regression_gate.sh BASE HEAD [extra asv continuous args]
#   BASE, HEAD     any git revisions (main, HEAD~1, a hash, a branch)
#   ASV_GATE_FACTOR  slow-down factor that counts (default 1.1: 10 % slower)
#   ASV_GATE_BENCH   one `-b` regex (use | for several) replacing the default key set
#
# Exit status: 0 no significant slow-down, 1 performance decreased,
# 2 asv itself failed (build error, bad revision, ...).
set -uo pipefail

if [ $# -lt 2 ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit 2
fi
BASE=$1
HEAD=$2
shift 2

cd "$(dirname "$0")"
ASV=${ASV:-asv}
FACTOR=${ASV_GATE_FACTOR:-1.1}

# The key benchmarks, ccgym only (the Gymnasium baselines do not change with
# ccgym's commits): the vector step at the two ends of the batch sizes on one
# thread, the seeded reset of 65536 instances, and the raw single-env step.
# asv matches each regex against "name(param, ...)".
DEFAULT_BENCH=(
  "^bench_vector\.VectorStep\.time_step\(.*, (1|16384), 1, 'ccgym'\)$"
  "^bench_vector\.VectorReset\.time_reset_seed\(.*'ccgym'\)$"
  "^bench_single\.SingleStep\.time_step\(.*'ccgym', 'class'\)$"
)
if [ -n "${ASV_GATE_BENCH:-}" ]; then
  BENCH=("$ASV_GATE_BENCH")
else
  BENCH=("${DEFAULT_BENCH[@]}")
fi
BENCH_ARGS=()
for regex in "${BENCH[@]}"; do
  BENCH_ARGS+=(-b "$regex")
done

# asv refuses to run without a machine description; record this one once.
if [ ! -f "${ASV_MACHINE_FILE:-$HOME/.asv-machine.json}" ]; then
  "$ASV" machine --yes >/dev/null || exit 2
fi

# A private results directory: asv compares every stored result of the
# selected benchmarks, so results from earlier runs of other parameters (or of
# the Gymnasium baselines) would otherwise take part in the verdict. The
# environments and built wheels in env/ are shared with ordinary runs.
work=$(mktemp -d)
conf=$(mktemp -p . .gate-asv.conf.XXXXXX.json)
trap 'rm -rf "$work" "$conf"' EXIT
sed "s#\"results_dir\": *\"[^\"]*\"#\"results_dir\": \"$work/results\"#" asv.conf.json >"$conf"
if ! grep -q "\"results_dir\": \"$work/results\"" "$conf"; then
  echo "regression gate: could not point results_dir of asv.conf.json elsewhere" >&2
  exit 2
fi

"$ASV" --config "$conf" continuous --factor "$FACTOR" "${BENCH_ARGS[@]}" "$@" "$BASE" "$HEAD" \
  2>&1 | tee "$work/log"
status=${PIPESTATUS[0]}
log=$work/log

if grep -q "PERFORMANCE DECREASED" "$log"; then
  echo "regression gate: FAILED, $HEAD is slower than $BASE by more than a factor $FACTOR" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "regression gate: asv continuous failed (exit $status)" >&2
  exit 2
fi
echo "regression gate: passed ($HEAD vs $BASE, factor $FACTOR)"
