#!/usr/bin/env bash
# The C tests of tests/c cross-built for AArch64 and run under
# qemu-aarch64-static on an x86-64 Debian/Ubuntu host: lanes_test (every
# env's NEON exact lanes block against the per-instance libm step, bit for
# bit), driver_test and exact_math_check (with fewer random inputs). The
# quick look at the NEON code; tools/aarch64_check.sh is the slow one (the
# Python suites in an emulated arm64 root).
#
#   tools/neon_check.sh        # as root: installs gcc-aarch64-linux-gnu and
#                              # qemu-user-static with apt if missing
#
# Environment: TMPDIR (the build goes in a new directory under it, removed at
# the end), LANES_STEPS (lanes_test's steps per default run, 200),
# DRIVER_N (driver_test's instances, 4133: two threads' worth; its default
# 8229 takes about 2.5 min emulated), XM_N (exact_math_check's random
# inputs, 1000000). Measured 2026-12-04 on 2 cores: configure + build 21 s,
# lanes_test 39 s, driver_test 78 s, exact_math_check 18 s (2.5 min in all).
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
LANES_STEPS=${LANES_STEPS:-200}
DRIVER_N=${DRIVER_N:-4133}
XM_N=${XM_N:-1000000}
log() { printf '[neon %(%H:%M:%S)T] %s\n' -1 "$*"; }

need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then echo "missing ${need[*]}: run as root to install them" >&2; exit 2; fi
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
for tool in cmake ninja; do
  command -v "$tool" >/dev/null || { echo "$tool not found (pip install cmake ninja)" >&2; exit 2; }
done

build=$(mktemp -d "${TMPDIR:-/tmp}/ccgym-neon.XXXXXX")
trap 'rm -rf "$build"' EXIT
QEMU=(qemu-aarch64-static -L /usr/aarch64-linux-gnu)

timed() {  # timed NAME COMMAND...: runs it, prints its wall time
  local name=$1 t0 t1 status
  shift
  t0=$(date +%s.%N)
  set +e
  "$@"
  status=$?
  set -e
  t1=$(date +%s.%N)
  log "$name: exit $status, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')"
  return $status
}

timed "configure + build (aarch64-linux-gnu-gcc, -Werror)" bash -c '
  cmake -S tests/c -B "$1" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/tests/c/aarch64-toolchain.cmake" \
    -DCCGYM_WERROR=ON >"$1/configure.log" 2>&1 || { cat "$1/configure.log"; exit 1; }
  cmake --build "$1"' neon "$build"
timed "lanes_test $LANES_STEPS (qemu)" "${QEMU[@]}" "$build/lanes_test" "$LANES_STEPS"
timed "driver_test $DRIVER_N (qemu)" "${QEMU[@]}" "$build/driver_test" "$DRIVER_N"
timed "exact_math_check $XM_N (qemu)" "${QEMU[@]}" "$build/exact_math_check" "$XM_N"
log "all passed"
