#!/usr/bin/env bash
# An env in C from another package, checked as a user gets it: the ccgym
# wheel (built here, or taken from -w DIR) installed in a fresh venv, then
# examples/custom_env pip-installed with pip's default build isolation
# (its build environment gets ccgym from the wheel via --find-links:
# headers, find_package(ccgym)), then the example's own tests
# (custom/PointMass-v0 through gym.make, make_vec in every autoreset mode,
# ccgym.make_vec, SB3, state, pickle, rendering, ccgym bench). The plugin is
# built twice, at -O0 (CMake's Debug, as a user's debug build) and at -O2
# (RelWithDebInfo): each module must reference no ccgym symbol (`nm -u`:
# the public headers are all inline, whatever the optimiser folds) and pass
# the tests.
#
# Usage: tools/plugin_check.sh [-w WHEEL_DIR] [-o WORKDIR] [-n]
#   -w  a directory holding a ccgym wheel for this Python (default: build one)
#   -o  work directory (default: a temp dir, removed)
#   -n  no SB3 (skips installing torch and the example's SB3 test)
# Measured on the 2-core machine: see docs/custom_env.md ("Checking a plugin").
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=""
WHEELS=""
SB3=1
while getopts "w:o:n" opt; do
  case $opt in
    w) WHEELS=$(cd "$OPTARG" && pwd) ;;
    o) WORK=$OPTARG ;;
    n) SB3=0 ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
log() { printf '[plugin_check %(%H:%M:%S)T] %s\n' -1 "$*"; }
start=$SECONDS
PY=${PYTHON:-python3}

if [ -z "$WHEELS" ]; then
  WHEELS=$WORK/wheels
  mkdir -p "$WHEELS"
  # The wheel of the committed tree (what CI ships), built in isolation.
  TREE=$WORK/tree
  rm -rf "$TREE"; mkdir -p "$TREE"
  git archive HEAD | tar -x -C "$TREE"
  "$PY" -m pip wheel -q --no-deps "$TREE" -w "$WHEELS" >"$WORK/wheel.log" 2>&1 \
    || { tail -40 "$WORK/wheel.log"; exit 1; }
  log "built $(ls "$WHEELS") in $((SECONDS - start)) s"
fi
ls "$WHEELS"/ccgym-*.whl >/dev/null

"$PY" -m venv "$WORK/venv"
VPY=$WORK/venv/bin/python
extras="pytest"
if [ "$SB3" = 1 ]; then
  # torch first, pinned to the CPU wheel (the sb3 extra's range resolves to it).
  "$VPY" -m pip install -q torch==2.13.0 >"$WORK/install.log" 2>&1 \
    || { tail -40 "$WORK/install.log"; exit 1; }
  extras="pytest stable-baselines3"
fi
# ccgym from the wheel only (by its file: never a registry's ccgym), the one
# for this venv's Python when the directory holds several (CI's has cp310 and
# cp313).
tag=$("$VPY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
wheel=$(ls "$WHEELS"/ccgym-*-"$tag"-*.whl 2>/dev/null | head -1 || true)
[ -n "$wheel" ] || { echo "plugin_check: no ccgym wheel for $tag in $WHEELS" >&2; exit 1; }
"$VPY" -m pip install -q --find-links "$WHEELS" "$wheel" >>"$WORK/install.log" 2>&1 \
  || { tail -40 "$WORK/install.log"; exit 1; }
# shellcheck disable=SC2086
"$VPY" -m pip install -q $extras >>"$WORK/install.log" 2>&1 || { tail -40 "$WORK/install.log"; exit 1; }
log "ccgym installed in a fresh venv ($((SECONDS - start)) s)"

# The plugin, with pip's default build isolation: its build environment
# takes ccgym from the wheel directory.
cp -r "$ROOT/examples/custom_env" "$WORK/custom_env"
rm -rf "$WORK/custom_env/build"
for build_type in Debug RelWithDebInfo; do
  "$VPY" -m pip install -q --force-reinstall --no-deps --find-links "$WHEELS" \
    -Ccmake.build-type=$build_type "$WORK/custom_env" >"$WORK/plugin.log" 2>&1 \
    || { tail -60 "$WORK/plugin.log"; exit 1; }
  log "examples/custom_env built ($build_type) and installed with build isolation ($((SECONDS - start)) s)"
  so=$("$VPY" -c 'import importlib.util as u; print(u.find_spec("ccgym_pointmass._pointmass").origin)')
  # (-O0 leaves every inline helper a real function: a helper that named one
  # of ccgym's functions would show here, and fail to import.)
  if command -v nm >/dev/null; then
    if nm -u "$so" | grep -w 'ccgym_[A-Za-z0-9_]*'; then
      echo "plugin_check: the $build_type plugin references ccgym symbols (above): the public headers must be self-contained" >&2
      exit 1
    fi
    log "nm -u $(basename "$so") ($build_type): no ccgym symbol"
  fi
  # From outside the tree, so that the installed packages are what run.
  (cd "$WORK/custom_env" && "$VPY" -m pytest -q -p no:cacheprovider tests)
done
log "done in $((SECONDS - start)) s"
