#!/usr/bin/env bash
# Adding an env is one folder of its own plus one registry line each in C
# (src/envs.def) and Python (_registration.py): checked for real. In a
# scratch copy of the committed tree (git archive HEAD) this runs
# `python tools/new_env.py PendulumCopy --from pendulum`, checks that it
# created files in one new folder only (python/ccgym/envs/pendulum_copy/)
# and added one line to each of at most two existing files, builds and installs that tree into a
# fresh venv of the current Python, checks that the new class does not
# subclass its source's, and runs the whole test suite there (slow tests
# too) but the cases parametrised by a stock id only, which the tree CI's
# main run tested are the same sources of (CCGYM_ADDED_ENVS_ONLY, see
# tests/conftest.py; -a runs them too): tests/test_new_env.py checks the new
# id against its source everywhere (single, vector in every autoreset mode,
# SB3, rendering, pickle/state, attributes, bench with its ceiling), every
# case of the new id runs, and every test that iterates over the registry
# takes the new id in as it does the stock ones.
#
# Usage: tools/scaffold_check.sh [-a] [-o WORKDIR]   (default: a temp dir, removed)
# Measured on the 2-core machine: ~2 min for the build, ~7 min for the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=""
ADDED_ONLY=1
while getopts "ao:" opt; do
  case $opt in
    a) ADDED_ONLY="" ;;
    o) WORK=$OPTARG ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
log() { printf '[scaffold_check %(%H:%M:%S)T] %s\n' -1 "$*"; }
start=$SECONDS

TREE=$WORK/tree
rm -rf "$TREE"; mkdir -p "$TREE"
git archive HEAD | tar -x -C "$TREE"
(cd "$TREE" && git init -q && git add -A && git -c user.name=ci -c user.email=ci@localhost commit -qm base)
(cd "$TREE" && python3 tools/new_env.py PendulumCopy --from pendulum)

# New files in one new folder only, and at most two edits.
status=$(cd "$TREE" && git status --porcelain --untracked-files=all)
echo "$status"
bad_new=$(echo "$status" | awk '$1 == "??" && $2 !~ /^python\/ccgym\/envs\/pendulum_copy\/[^\/]+$/ {print $2}')
edited=$(echo "$status" | awk '$1 != "??" {print $2}' | wc -l)
if [ -n "$bad_new" ] || [ "$edited" -gt 2 ]; then
  echo "new_env.py created files outside python/ccgym/envs/pendulum_copy/ ($bad_new) or edited $edited files (> 2)" >&2
  exit 1
fi
# Each edit is one added registry line (Pendulum has one id), nothing removed.
numstat=$(cd "$TREE" && git diff --numstat)
echo "$numstat"
if echo "$numstat" | awk '$1 != 1 || $2 != 0 {bad = 1} END {exit !bad}'; then
  echo "new_env.py changed more than one line in an existing file" >&2
  exit 1
fi
log "scaffold: $(echo "$status" | grep -c '^??') new files in python/ccgym/envs/pendulum_copy/, $edited edited by one line each"

python3 -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --upgrade pip
# torch first, pinned to the CPU wheel on local disk (the sb3 extra's range
# then resolves to it), so that the SB3 case of test_new_env.py runs too.
"$WORK/venv/bin/python" -m pip install -q torch==2.13.0 >"$WORK/install.log" 2>&1 \
  || { tail -40 "$WORK/install.log"; exit 1; }
"$WORK/venv/bin/python" -m pip install -q torch==2.13.0 "$TREE[test,sb3,render,zoo]" >>"$WORK/install.log" 2>&1 \
  || { tail -40 "$WORK/install.log"; exit 1; }
log "built and installed in $((SECONDS - start)) s"
# From outside the tree, so that the installed package is what runs.
cd "$WORK"
"$WORK/venv/bin/python" -c "import gymnasium as gym, ccgym; e = gym.make('ccgym/PendulumCopy-v1'); print(e, e.reset(seed=0)[0])"
# The new env's class is its own: not a subclass of its source's.
"$WORK/venv/bin/python" -c "
import ccgym.envs as e
assert not issubclass(e.PendulumCopyEnv, e.PendulumEnv), e.PendulumCopyEnv.__mro__
print('PendulumCopyEnv bases:', [b.__name__ for b in e.PendulumCopyEnv.__mro__[1:3]])"
# The whole suite, as the README's test command runs it (without the stock
# ids' own cases unless -a); test_new_env.py fails rather than skips if the
# new id is missing.
CCGYM_ADDED_ENVS_ONLY=$ADDED_ONLY CCGYM_EXPECT_SCAFFOLD=1 "$WORK/venv/bin/python" -m pytest -p no:cacheprovider -q -rs -m "" -n 2 \
  --dist worksteal "$TREE/tests"
log "done in $((SECONDS - start)) s"
