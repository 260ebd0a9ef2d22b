#!/usr/bin/env bash
# Builds ccgym with AddressSanitizer + UndefinedBehaviorSanitizer into a
# throwaway virtual environment and runs the test suite (or the pytest
# arguments given) under them, subprocess tests included (they inherit
# LD_PRELOAD and the sanitizer options).
#
# Usage: tools/sanitize.sh [pytest args...]
#   SANITIZE_VENV=dir   reuse/keep the venv there (default: a temp dir, removed)
#   SANITIZE_SKIP_BUILD=1 with SANITIZE_VENV: skip the (slow) instrumented build
#   PYTHON=python3.x    the interpreter to build the venv from
#
# Any sanitizer report aborts the process, so it fails the run. Python itself
# is not instrumented: leak checking is off (it would report CPython's arenas),
# and PYTHONMALLOC=malloc routes Python's own allocations through ASan's
# malloc so overflows into Python objects are caught too.
set -euo pipefail
cd "$(dirname "$0")/.."
START=$(date +%s)
PYTHON=${PYTHON:-python3}

LIBASAN=$(gcc -print-file-name=libasan.so)
LIBUBSAN=$(gcc -print-file-name=libubsan.so)
for lib in "$LIBASAN" "$LIBUBSAN"; do
  if [[ ! -e "$lib" ]]; then
    echo "sanitize.sh: gcc has no $(basename "$lib") (install libasan/libubsan for gcc)" >&2
    exit 2
  fi
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
VENV=${SANITIZE_VENV:-$TMP/venv}
if [[ ! -x "$VENV/bin/python" ]]; then
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"

if [[ "${SANITIZE_SKIP_BUILD:-0}" != 1 ]]; then
  "$PY" -m pip install --quiet --upgrade pip
  # A fresh build directory: a cached non-instrumented build must not be reused.
  CCGYM_SANITIZE=ON "$PY" -m pip install --quiet ".[test,render]" \
    --config-settings=build-dir="$TMP/build"
fi

# Refuse to run an uninstrumented build (the suite would pass vacuously).
# (Located without importing ccgym: loading the instrumented module without
# the preloaded ASan runtime aborts.)
CORE=$("$PY" -c "import glob, importlib.util as u, os
d = u.find_spec('ccgym').submodule_search_locations[0]
print(glob.glob(os.path.join(d, '_core*.so'))[0])")
# (nm's output is read whole first: with pipefail, grep -q closing the pipe
# early would make nm fail with SIGPIPE and the check fail spuriously.)
SYMBOLS=$(nm -D "$CORE" 2>/dev/null || true)
if ! grep -q "__asan_report\|__ubsan_handle" <<<"$SYMBOLS"; then
  echo "sanitize.sh: $CORE is not instrumented (was CCGYM_SANITIZE honoured?)" >&2
  exit 3
fi
echo "sanitize.sh: instrumented build $(basename "$CORE"), built in $(( $(date +%s) - START ))s"

# allocator_may_return_null: a huge num_envs must raise MemoryError, as it does
# without ASan, instead of ASan aborting the process on the failed allocation.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONMALLOC=malloc
export PYTHONFAULTHANDLER=1
status=0
LD_PRELOAD="$LIBASAN $LIBUBSAN" "$PY" -m pytest -p no:cacheprovider -q "$@" || status=$?
echo "sanitize.sh: pytest exit $status, total $(( $(date +%s) - START ))s"
exit $status
