#!/usr/bin/env bash
# Build ccgym for aarch64 and run its parity tests there, under emulation, on
# an x86-64 Debian/Ubuntu host. Not a CI step (it takes well over half an
# hour on 2 cores); run it by hand before a release:
#
#   sudo tools/aarch64_check.sh [ROOT] [-- PYTEST ARGS...]
#
# ROOT (default /work/arm64-root) is an arm64 Debian root made once with
# debootstrap and reused afterwards; keep it outside the repository. Needs
# root, apt (qemu-user-static, binfmt-support, debootstrap) and a mounted
# binfmt_misc (mounted here if missing). The arm64 python3, gcc and numpy
# are real aarch64 binaries run by qemu-aarch64-static, so this exercises the
# generic (non-x86) fast kernels and numpy's aarch64 float32 sin/cos.
#
# Default tests: the single and vector parity suites (without the 1024-env
# cases), the env table and the fast kernels. Pass your own after `--`.
set -euo pipefail
ROOT=/work/arm64-root
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ROOT=$1; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
if [ $# -gt 0 ]; then
  TESTS=("$@")
else
  TESTS=(tests/test_single_parity.py tests/test_vector_parity.py tests/test_env_table.py
         tests/test_fast.py -k "not 1024" -x -q)
fi
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SRC=$(cd "$(dirname "$0")/.." && pwd)
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

# debootstrap removes $ROOT/debootstrap when it completes: a root that still
# has it was interrupted, and is made again from scratch.
if [ ! -x "$ROOT/usr/bin/python3" ] || [ -d "$ROOT/debootstrap" ]; then
  if [ -d "$ROOT" ]; then
    log "$ROOT is incomplete: removing it"
    for m in proc sys dev/pts dev; do umount -l "$ROOT/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$ROOT"
  fi
  log "debootstrap $SUITE arm64 into $ROOT (about an hour on 2 busy cores)"
  debootstrap --arch=arm64 --variant=minbase \
    --include=python3,python3-venv,python3-dev,gcc,libc6-dev,ca-certificates \
    "$SUITE" "$ROOT" "$MIRROR"
fi
# The host's CA bundle (it may carry a site's certificates pip needs).
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/ca-certificates.crt"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

cleanup() {
  for m in dev/pts dev proc sys; do umount -l "$ROOT/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"

# A clean copy of the committed tree (what a release builds), not the work tree.
rm -rf "$ROOT/src/ccgym"
mkdir -p "$ROOT/src/ccgym"
git -C "$SRC" archive HEAD | tar -x -C "$ROOT/src/ccgym"

log "chroot: $(chroot "$ROOT" uname -m), $(chroot "$ROOT" python3 --version)"
chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root \
  PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
  PIP_DEFAULT_TIMEOUT=180 MAKEFLAGS=-j2 CMAKE_BUILD_PARALLEL_LEVEL=2 \
  /bin/bash -euo pipefail -c '
    cd /src/ccgym
    [ -x /opt/venv/bin/python ] || python3 -m venv /opt/venv
    . /opt/venv/bin/activate
    python -m pip install -q --upgrade pip
    python -m pip install -q numpy gymnasium pytest hypothesis pillow \
      scikit-build-core cython cython-cmake ninja cmake
    python -c "import platform, numpy; print(\"machine\", platform.machine(), \"numpy\", numpy.__version__)"
    echo "building ccgym ($(date -u +%T))"
    python -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=/opt/build .
    python -c "import ccgym, ccgym._core as c; print(\"ccgym imported from\", ccgym.__file__)"
    echo "testing ($(date -u +%T))"
    set +e
    python -m pytest -p no:cacheprovider "$@"
    status=$?
    echo "pytest exit $status ($(date -u +%T))"
    exit $status
  ' aarch64 "${TESTS[@]}"
