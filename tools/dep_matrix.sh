#!/usr/bin/env bash
# The parity suite on each (numpy, Gymnasium) pair that pyproject.toml allows.
#
# Builds ccgym's wheel once (normal build isolation: the build needs numpy>=2
# for the ABI; numpy's ABI rules let a wheel built against numpy 2 import
# under numpy 1.x), then for each pair makes a fresh venv, installs the wheel
# with exactly that numpy and Gymnasium plus the test extras, and runs
#   python -c "import ccgym, ccgym.vector"
#   pytest tests/test_single_parity.py tests/test_vector_parity.py
#          tests/test_dependency_floors.py -m "not slow"
# and prints one table row per pair (pytest's counts; the failing test ids go
# to <out>/<leg>/pytest.log).
#
# Usage: tools/dep_matrix.sh [-o OUTDIR] [-w WHEEL] [-p PYTHON] [-k] [PAIR ...]
#   PAIR      "NUMPY GYMNASIUM" versions, e.g. "1.26.4 1.0.0"; default: the
#             matrix below (oldest allowed .. newest).
#   -o DIR    work dir (venvs, logs, wheel); default /tmp/ccgym-dep-matrix
#   -w WHEEL  use this ccgym wheel instead of building one
#   -p PY     interpreter for the venvs (default python3.11)
#   -k        keep the venvs (default: each is removed after its leg)
#   -t ARGS   extra pytest args (e.g. -t "-x")
# Exit status: 0 if every leg imported ccgym.vector and passed, 1 otherwise.
#
# Runtime on the 2-core CI box (measured by this script, see its report):
# ~1 min to build the wheel, then per leg ~20-40 s venv + install (wheels
# from the pip cache) and ~1-2 min of parity tests.
set -u -o pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
out=/tmp/ccgym-dep-matrix
wheel=""
py=python3.11
keep=0
extra=""
while getopts "o:w:p:kt:" opt; do
  case $opt in
    o) out=$OPTARG ;;
    w) wheel=$OPTARG ;;
    p) py=$OPTARG ;;
    k) keep=1 ;;
    t) extra=$OPTARG ;;
    *) sed -n '2,25p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

if [ $# -gt 0 ]; then
  pairs=("$@")
else
  # pyproject: numpy>=2.2, gymnasium>=1.1,<2
  pairs=(
    "2.2.6 1.1.1"    # oldest allowed numpy x oldest allowed Gymnasium
    "2.4.6 1.1.1"    # newest numpy x oldest Gymnasium
    "2.2.6 1.4.0"    # oldest numpy x newest Gymnasium
    "2.4.6 1.4.0"    # newest x newest
  )
fi

mkdir -p "$out"
t0=$(date +%s)
if [ -z "$wheel" ]; then
  echo "building the ccgym wheel ..." >&2
  rm -rf "$out/wheel"
  "$py" -m pip wheel -q --no-deps -w "$out/wheel" "$here" >"$out/wheel.log" 2>&1 \
    || { echo "wheel build failed: $out/wheel.log" >&2; exit 1; }
  wheel=$(ls "$out"/wheel/ccgym-*.whl)
fi
echo "wheel: $wheel ($(($(date +%s) - t0)) s)" >&2

status=0
rows=()
for pair in "${pairs[@]}"; do
  read -r np gym <<<"$pair"
  leg="np${np}-gym${gym}"
  dir="$out/$leg"
  rm -rf "$dir"; mkdir -p "$dir"
  ts=$(date +%s)
  "$py" -m venv "$dir/venv"
  vpy="$dir/venv/bin/python"
  if ! "$vpy" -m pip install -q "$wheel" "numpy==$np" "gymnasium==$gym" \
      pytest pytest-xdist hypothesis pillow >"$dir/install.log" 2>&1; then
    rows+=("$(printf '%-8s %-9s %-10s %s' "$np" "$gym" "-" "install failed ($dir/install.log)")")
    status=1; continue
  fi
  got=$("$vpy" -c "import numpy, gymnasium; print(numpy.__version__, gymnasium.__version__)")
  if "$vpy" -c "import ccgym, ccgym.vector" >"$dir/import.log" 2>&1; then
    imp=ok
  else
    imp="FAIL: $(tail -1 "$dir/import.log" | cut -c1-60)"; status=1
  fi
  ti=$(date +%s)
  # Run from a copy of the tests so the installed wheel, not the source tree, is tested.
  rm -rf "$dir/tests"; cp -r "$here/tests" "$dir/tests"; cp "$here/pyproject.toml" "$dir/"
  (cd "$dir" && "$vpy" -m pytest -p no:cacheprovider -q -m "not slow" \
     --continue-on-collection-errors -rfE $extra \
     tests/test_single_parity.py tests/test_vector_parity.py tests/test_dependency_floors.py \
     >"$dir/pytest.log" 2>&1)
  rc=$?
  [ $rc -eq 0 ] || status=1
  summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)|(passed|failed|error).* in [0-9.]+s' "$dir/pytest.log" | tail -1 | sed 's/=//g; s/^ *//')
  [ -n "$summary" ] || summary="pytest rc=$rc (see $dir/pytest.log)"
  te=$(date +%s)
  rows+=("$(printf '%-8s %-9s %-14s %-28s %s  [install %ss, tests %ss]' "$np" "$gym" "$got" "import ccgym.vector: $imp" "$summary" $((ti - ts)) $((te - ti)))")
  [ $keep -eq 1 ] || rm -rf "$dir/venv" "$dir/tests"
done

echo
printf '%-8s %-9s %-14s %-28s %s\n' numpy gymnasium installed import pytest
for r in "${rows[@]}"; do echo "$r"; done
echo "total $(($(date +%s) - t0)) s; logs in $out/<leg>/"
exit $status
