#!/usr/bin/env bash
# Build ccgym for aarch64 and run its parity tests there, under emulation, on
# an x86-64 Debian/Ubuntu host. Not a CI step; run it by hand before a release:
#
#   sudo tools/aarch64_check.sh [ROOT] [-- PYTEST ARGS...]
#
# ROOT (default /work/arm64-root) is an arm64 Debian root made on the first
# run and reused afterwards; keep it outside the repository, delete it with
# `rm -rf --one-file-system ROOT` when done. Needs root, apt (qemu-user-static,
# binfmt-support, debootstrap) and a mounted binfmt_misc (mounted here if
# missing). The arm64 python3, gcc and numpy are real aarch64 binaries run by
# qemu-aarch64-static, so this exercises the generic (non-x86) fast kernels
# and numpy's aarch64 float32 sin/cos.
#
# The root is made without debootstrap's second stage (which runs every
# package's maintainer scripts under emulation: more than an hour on 2 busy
# cores, and the first try never finished): `debootstrap --foreign` only
# downloads and unpacks on the host, then every downloaded .deb is unpacked
# with the host's dpkg-deb -x. What the skipped maintainer scripts would have
# done and the build needs is done by hand: the `cc` alternative, ldconfig's
# cache, the CA bundle (the host's) and resolv.conf. There is no dpkg
# database, so apt does not work inside the root; pip does everything else.
#
# Default tests: the single and vector parity suites (without the 1024-env
# cases), the env table and the fast kernels. Pass your own after `--`.
# NICE (default 19) is the niceness of every heavy step; ROOT_ONLY=1 stops
# once the root is made (no venv, build or tests).
#
# Measured here (2 cores shared with other jobs, load average ~15 during the
# build), 2026-12-01, bookworm, numpy 2.4.6, gymnasium 1.4.0:
#   debootstrap --foreign (download + unpack base)    1 min
#   dpkg-deb -x of the 185 downloaded .debs           0.5 min
#   ldconfig                                          < 1 s
#   python3 -m venv (ensurepip, emulated)             1.4 min
#   pip install test/build deps (aarch64 wheels)      2.9 min
#   build ccgym (emulated gcc, loaded machine)        17 min
#   tests (emulated), 398 cases, all passed: test_fast.py 3.8 min (46; the
#   avx2/avx512 cases are not generated on arm), test_env_table.py 7 s (44),
#   test_vector_parity.py 189 and test_single_parity.py 119 cases: ~30 s a
#   case while other jobs kept the load at ~13 (test_parity: 54 cases in
#   ~28 min), 2-6 s a case once it fell to ~4 (135 vector cases in 5.4 min,
#   86 single ones in 3.9 min). So the default set should be well under an
#   hour on an idle 2-core machine (estimate), hours on a busy one. A quicker
#   look at the arm-specific code (float32 sin/cos in Acrobot's reset, the
#   generic fast kernels), 123 cases on arm:
#     sudo tools/aarch64_check.sh -- tests/test_fast.py tests/test_env_table.py \
#       tests/test_single_parity.py -k "(fast or table or Acrobot or Pendulum) and not 1024" -q
# The root and the venv are made once per ROOT; a rerun copies the committed
# tree again, rebuilds (incrementally, /opt/build) and tests.
set -euo pipefail
ROOT=/work/arm64-root
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ROOT=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
if [ $# -gt 0 ]; then
  TESTS=("$@")
else
  TESTS=(tests/test_single_parity.py tests/test_vector_parity.py tests/test_env_table.py
         tests/test_fast.py -k "not 1024" -q -rfE)
fi
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
NICE=${NICE:-19}
PACKAGES=python3,python3-dev,python3-venv,python3-pip,gcc,libc6-dev,cmake,ninja-build,make,ca-certificates
SRC=$(cd "$(dirname "$0")/.." && pwd)
READY=.ccgym-root-ready
log() { printf '[aarch64 %(%H:%M:%S)T] %s\n' -1 "$*"; }

if [ "$(id -u)" -ne 0 ]; then echo "run as root (debootstrap, chroot, mount)" >&2; exit 2; fi
if ! command -v qemu-aarch64-static >/dev/null || ! command -v debootstrap >/dev/null \
   || ! command -v update-binfmts >/dev/null; then
  log "installing qemu-user-static binfmt-support debootstrap"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static binfmt-support debootstrap
fi
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  echo "binfmt_misc has no qemu-aarch64 entry: cannot run arm64 binaries" >&2; exit 1
fi
# Without the F flag the kernel looks the interpreter up inside the chroot.
if ! grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
  interp=$(sed -n 's/^interpreter //p' /proc/sys/fs/binfmt_misc/qemu-aarch64)
  NEED_INTERP=$interp
fi

umount_all() {
  for m in dev sys proc; do umount -l "$ROOT/$m" 2>/dev/null || true; done
}
in_root() {  # run a command in the root with a clean environment
  nice -n "$NICE" chroot "$ROOT" /usr/bin/env -i PATH=/opt/venv/bin:/usr/local/bin:/usr/bin:/bin \
    HOME=/root LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=180 PIP_PROGRESS_BAR=off \
    MAKEFLAGS=-j2 CMAKE_BUILD_PARALLEL_LEVEL=2 "$@"
}

# The root is ready once its marker exists; anything else is a partial root
# from an interrupted run and is made again from scratch.
if [ ! -e "$ROOT/$READY" ]; then
  if [ -e "$ROOT" ]; then
    log "$ROOT is incomplete: removing it"
    umount_all
    rm -rf --one-file-system "$ROOT"
  fi
  log "debootstrap --foreign $SUITE arm64 into $ROOT (host only, about a minute)"
  nice -n "$NICE" debootstrap --foreign --arch=arm64 --variant=minbase --include="$PACKAGES" \
    "$SUITE" "$ROOT" "$MIRROR"
  log "unpacking $(wc -l < "$ROOT/debootstrap/debpaths") packages with dpkg-deb -x"
  while read -r _pkg deb; do
    nice -n "$NICE" dpkg-deb -x "$ROOT$deb" "$ROOT"
  done < "$ROOT/debootstrap/debpaths"
  if [ -n "${NEED_INTERP:-}" ]; then
    mkdir -p "$ROOT$(dirname "$NEED_INTERP")"
    cp "$(readlink -f "$NEED_INTERP")" "$ROOT$NEED_INTERP"
  fi
  ln -sf gcc "$ROOT/usr/bin/cc"   # gcc's update-alternatives, skipped
  in_root /sbin/ldconfig
  log "chroot works: $(in_root uname -m), $(in_root /usr/bin/python3 --version)"
  touch "$ROOT/$READY"
fi
if [ "${ROOT_ONLY:-0}" = 1 ]; then log "$ROOT is ready"; exit 0; fi
# The host's CA bundle (it may carry a site's certificates pip needs).
mkdir -p "$ROOT/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

trap umount_all EXIT
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
mountpoint -q "$ROOT/sys" || mount --rbind /sys "$ROOT/sys"
mountpoint -q "$ROOT/dev" || mount --rbind /dev "$ROOT/dev"

if [ ! -e "$ROOT/opt/venv/.ccgym-deps" ]; then
  rm -rf "$ROOT/opt/venv"
  log "venv and the build/test dependencies (aarch64 wheels from PyPI)"
  in_root /usr/bin/python3 -m venv /opt/venv
  # the venv's own pip (bookworm's 23.0) is enough: upgrading it costs a minute
  in_root python -m pip install -q numpy gymnasium pytest hypothesis \
    scikit-build-core cython cython-cmake
  touch "$ROOT/opt/venv/.ccgym-deps"
fi

# A clean copy of the committed tree (what a release builds), not the work tree.
rm -rf "$ROOT/src/ccgym"
mkdir -p "$ROOT/src/ccgym"
git -C "$SRC" archive HEAD | tar -x -C "$ROOT/src/ccgym"

log "building ccgym in the root ($(git -C "$SRC" rev-parse --short HEAD))"
in_root /bin/bash -c 'cd /src/ccgym &&
  python -m pip install -q --no-build-isolation --no-deps --config-settings=build-dir=/opt/build . &&
  cd / && python -c "import platform, numpy, gymnasium, ccgym
print(\"machine\", platform.machine(), \"numpy\", numpy.__version__,
      \"gymnasium\", gymnasium.__version__, \"ccgym from\", ccgym.__file__)"'
log "testing: ${TESTS[*]}"
set +e
in_root /bin/bash -c 'cd /src/ccgym && exec python -m pytest -p no:cacheprovider "$@"' \
  aarch64 "${TESTS[@]}"
status=$?
log "pytest exit $status"
exit $status
