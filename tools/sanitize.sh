#!/usr/bin/env bash
# Builds ccgym with AddressSanitizer + UndefinedBehaviorSanitizer into a
# throwaway virtual environment and runs the test suite (or the command
# given) under them. Usage: tools/sanitize.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${SANITIZE_VENV:-$(mktemp -d)/venv}
python3 -m venv "$VENV"
# shellcheck disable=SC1091
source "$VENV/bin/activate"
python -m pip install --quiet --upgrade pip
CCGYM_SANITIZE=ON python -m pip install --quiet ".[test]" \
  --config-settings=build-dir="$(mktemp -d)"
LIBASAN=$(gcc -print-file-name=libasan.so)
LIBUBSAN=$(gcc -print-file-name=libubsan.so)
# CPython itself is not instrumented: leak checking would report its arenas.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
LD_PRELOAD="$LIBASAN $LIBUBSAN" python -m pytest -p no:cacheprovider -x -q "$@"
