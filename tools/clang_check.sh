#!/usr/bin/env bash
# Compile every C source of ccgym with clang (the compiler macOS uses) and
# -Wall -Wextra -Werror, with the flags CMakeLists.txt gives each file (the
# exact floating-point flags; src/fast_kernels.c and the envs' block files
# once per instruction set, as the build does), and the C test driver. The Cython-generated C is not
# checked (not ours).
#
#   tools/clang_check.sh            # CC=clang-17 tools/clang_check.sh, ...
#
# Exits non-zero on the first warning. On Debian: apt-get install clang.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-clang}
if ! command -v "$CC" >/dev/null; then
  echo "$CC not found (Debian/Ubuntu: apt-get install clang)" >&2; exit 2
fi
"$CC" --version | head -1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
WARN=(-std=gnu99 -Wall -Wextra -Werror -Iinclude -Isrc/include -Isrc -fPIC)
EXACT=(-O2 -ffp-contract=off -fno-fast-math -fno-builtin-pow -fno-builtin-powf -fno-math-errno)
FAST=("${EXACT[@]}" -O3 -fno-trapping-math)
X86=0
case "$(uname -m)" in x86_64|amd64) X86=1 ;; esac
n=0
# fast FILE: FILE with the fast flags once per fast instruction set.
fast() {
  local o
  o="$OUT/fk_$(basename "$1" .c)"
  "$CC" "${WARN[@]}" "${FAST[@]}" -DCCGYM_FAST_SUFFIX=generic -c "$1" -o "${o}_generic.o"
  n=$((n + 1))
  if [ "$X86" = 1 ]; then
    "$CC" "${WARN[@]}" "${FAST[@]}" -DCCGYM_FAST_SUFFIX=avx2 -mavx2 -mfma -c "$1" -o "${o}_avx2.o"
    "$CC" "${WARN[@]}" "${FAST[@]}" -DCCGYM_FAST_SUFFIX=avx512 -mavx512f -mavx512dq -mavx512vl \
      -mavx512bw -mavx2 -mfma -mprefer-vector-width=512 -c "$1" -o "${o}_avx512.o"
    n=$((n + 2))
  fi
}
for f in src/*.c python/ccgym/envs/*/*.c; do
  extra=()
  [ "$X86" = 1 ] && extra=(-DCCGYM_FAST_X86=1)
  case "$f" in *_lanes.c)
    # exact math's lanes and the envs' exact lanes blocks: per ISA, -O3 -fno-trapping-math
    o="$OUT/$(basename "$f" .c)"
    if [ "$X86" = 1 ]; then
      "$CC" "${WARN[@]}" "${EXACT[@]}" -O3 -fno-trapping-math -DCCGYM_XM_LANES=avx2 -mavx2 -mfma \
        -c "$f" -o "${o}_avx2.o"
      "$CC" "${WARN[@]}" "${EXACT[@]}" -O3 -fno-trapping-math -DCCGYM_XM_LANES=avx512 -mavx512f \
        -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma -c "$f" -o "${o}_avx512.o"
      n=$((n + 2))
    fi
    # the envs' fast blocks: the same files with the fast backend
    [ "$f" != src/exact_math_lanes.c ] && fast "$f"
    continue ;;
  esac
  if [ "$f" = src/fast_kernels.c ]; then
    fast "$f"
    continue
  fi
  "$CC" "${WARN[@]}" "${EXACT[@]}" "${extra[@]}" -c "$f" -o "$OUT/$(basename "$f" .c).o"
  n=$((n + 1))
done
# The C test driver (tests/c/driver_test.c, run by tools/wine_check.sh).
"$CC" "${WARN[@]}" "${EXACT[@]}" -Itests/c -c tests/c/driver_test.c -o "$OUT/driver_test.o"
n=$((n + 1))
"$CC" "${WARN[@]}" "${EXACT[@]}" -c tests/c/exact_math_check.c -o "$OUT/exact_math_check.o"
n=$((n + 1))
echo "clang_check: $n compilations of $(ls src/*.c python/ccgym/envs/*/*.c | wc -l) C sources and the C test driver, no warnings"
