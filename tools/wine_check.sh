#!/usr/bin/env bash
# The C core on Windows, as far as this Linux machine allows: Debian's
# MinGW-w64 cross compiler builds every C source for x86-64 Windows with
# -Wall -Wextra -Werror (the exact and fast flags of CMakeLists.txt), links
# the C test driver (tests/c/driver_test.c: every env of the registry through
# ccgym_batch_step / ccgym_batch_reset on 1, 3 and 4 threads, masked resets,
# seeding against numpy's PCG64 streams, snapshots) and runs it under Wine:
# once with the compiler's __int128 and once with the portable 32-bit-limb
# multiply MSVC-like compilers without __int128 would take; and clang's
# MinGW-w64 build of the MSVC code paths (see below). The same driver
# is then built and run natively with gcc, and once under ASan + UBSan.
#
# Wine's C runtime and math library are not Microsoft's: this checks the
# Win32 threads layer, determinism across threads and the integer paths
# (seeding), not Gymnasium parity on Windows (docs/platforms.md).
#
#   tools/wine_check.sh            # installs gcc-mingw-w64-x86-64 and wine64 with apt if missing
#
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

# Debian's wine64 package puts its loader in /usr/lib/wine, not on PATH.
find_wine() {
  if [ -x /usr/lib/wine/wine64 ]; then echo /usr/lib/wine/wine64
  else command -v wine64 || command -v wine || true
  fi
}
need=()
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
[ -n "$(find_wine)" ] || need+=(wine64)
command -v gcc >/dev/null || need+=(gcc)
command -v clang >/dev/null || need+=(clang)
if [ "${#need[@]}" -gt 0 ]; then
  echo "wine_check: installing ${need[*]} with apt"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
WINE=$(find_wine)

OUT=$(mktemp -d)
# Wine's prefix in the temporary directory: nothing left in $HOME. On exit
# this prefix's wineserver is waited for (it leaves a few seconds after the
# last program), then the directory goes (WINE_CHECK_KEEP=1 keeps it).
export WINEPREFIX="$OUT/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver)
cleanup() {
  [ -x "$WINESERVER" ] && [ -d "$WINEPREFIX" ] && timeout 30 "$WINESERVER" -w 2>/dev/null || true
  if [ -n "${WINE_CHECK_KEEP:-}" ]; then echo "wine_check: kept $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

WARN=(-std=gnu99 -Wall -Wextra -Werror -Iinclude -Isrc/include -Isrc)
EXACT=(-O2 -ffp-contract=off -fno-fast-math -fno-builtin-pow -fno-builtin-powf -fno-math-errno)
FAST=("${EXACT[@]}" -O3 -fno-trapping-math)
# The kernels as CMakeLists.txt gathers them: every src/*.c and each env
# folder's python/ccgym/envs/<env>/*.c but the per-ISA
# files (the lanes files and the fast kernels) and the renderer; the fast
# objects: src/fast_kernels.c and the envs' block files, per fast ISA.
KERNELS=()
BLOCKS=()
for f in src/*.c python/ccgym/envs/*/*.c; do
  case "$f" in
    src/exact_math_lanes.c|src/fast_kernels.c|src/render.c) ;;
    *_lanes.c) BLOCKS+=("$f") ;;
    *) KERNELS+=("${f%.c}") ;;
  esac
done

# build "CC [ARGS]" TAG EXTRA...: every C source into $OUT/TAG, and the
# driver linked against them as $OUT/TAG/driver_test[.exe].
build() {
  local -a cc
  read -r -a cc <<< "$1"
  local tag=$2
  shift 2
  local dir="$OUT/$tag" objs=()
  mkdir -p "$dir"
  for f in "${KERNELS[@]}"; do
    # exact_math.c without its lanes (the driver does not call exact math).
    local xm=()
    [ "$f" = src/exact_math ] && xm=(-DCCGYM_XM_NO_LANES=1)
    local obj
    obj="$dir/$(basename "$f").o"
    "${cc[@]}" "${WARN[@]}" "${EXACT[@]}" "$@" "${xm[@]}" -DCCGYM_FAST_X86=1 -c "$f.c" \
      -o "$obj"
    objs+=("$obj")
  done
  # The renderer: compiled with the same flags (not linked: the driver does not draw).
  "${cc[@]}" "${WARN[@]}" "${EXACT[@]}" "$@" -c src/render.c -o "$dir/render.o"
  local g
  for g in src/fast_kernels.c "${BLOCKS[@]}"; do
    local o="$dir/fk_$(basename "$g" .c)"
    "${cc[@]}" "${WARN[@]}" "${FAST[@]}" "$@" -DCCGYM_FAST_SUFFIX=generic -c "$g" -o "${o}_generic.o"
    "${cc[@]}" "${WARN[@]}" "${FAST[@]}" "$@" -DCCGYM_FAST_SUFFIX=avx2 -mavx2 -mfma -c "$g" \
      -o "${o}_avx2.o"
    "${cc[@]}" "${WARN[@]}" "${FAST[@]}" "$@" -DCCGYM_FAST_SUFFIX=avx512 -mavx512f -mavx512dq \
      -mavx512vl -mavx512bw -mavx2 -mfma -mprefer-vector-width=512 -c "$g" -o "${o}_avx512.o"
    objs+=("${o}_generic.o" "${o}_avx2.o" "${o}_avx512.o")
  done
  local libs=(-lm -lpthread)
  case "${cc[@]}" in *mingw*) libs=(-static) ;; esac
  "${cc[@]}" "${WARN[@]}" "${EXACT[@]}" "$@" -Itests/c -c tests/c/driver_test.c -o "$dir/driver_test.o"
  # LINK: the linker driver when it is not the compiler (clang for MinGW-w64
  # links with MinGW's gcc, which knows where its libgcc is).
  local -a link
  read -r -a link <<< "${LINK:-${cc[*]}}"
  local -a san=()
  case "$*" in *-fsanitize=*) san=(-fsanitize=address,undefined) ;; esac
  "${link[@]}" "$dir/driver_test.o" "${objs[@]}" "${san[@]}" "${libs[@]}" -o "$dir/driver_test"
}

# run TAG COMMAND...: runs the driver, its output kept as $OUT/TAG.log.
run() {
  local tag=$1
  shift
  local t0 t1
  t0=$(date +%s)
  if ! "$@" > "$OUT/$tag.log" 2>&1; then
    cat "$OUT/$tag.log"
    echo "wine_check: $tag FAILED" >&2
    exit 1
  fi
  t1=$(date +%s)
  grep -v '^env ' "$OUT/$tag.log" | sed "s/^/  [$tag] /"
  echo "  [$tag] $((t1 - t0)) s"
}

MINGW=x86_64-w64-mingw32-gcc
"$MINGW" --version | head -1
"$WINE" --version
echo "wine_check: MinGW-w64 build (-Werror), __int128 multiply"
build "$MINGW" mingw -D__USE_MINGW_ANSI_STDIO=1
echo "wine_check: MinGW-w64 build (-Werror), portable 32-bit-limb multiply (CCGYM_NO_INT128)"
build "$MINGW" mingw-noint128 -D__USE_MINGW_ANSI_STDIO=1 -DCCGYM_NO_INT128
# The MSVC branches of src/include/ccgym/portable.h (_umul128, the Interlocked
# atomics, _BitScanForward64, _mm_pause/_mm_prefetch, __cpuid/__cpuidex and
# _xgetbv, __forceinline, no vector extensions, volatile barriers), compiled
# by clang for MinGW-w64 with Microsoft extensions (CCGYM_TEST_MSVC_PATHS)
# and run under Wine: not MSVC, but its intrinsics and code paths. -mxsave:
# clang wants the feature for _xgetbv, which MSVC gives without a flag.
echo "wine_check: clang MinGW-w64 build (-Werror) of the MSVC code paths (CCGYM_TEST_MSVC_PATHS)"
clang --version | head -1
LINK=$MINGW build "clang --target=x86_64-w64-mingw32 -fms-extensions" clang-msvc-paths -D__USE_MINGW_ANSI_STDIO=1 \
  -DCCGYM_TEST_MSVC_PATHS -mxsave
# The first start of Wine creates its prefix (tens of seconds); not timed with the runs.
"$WINE" cmd /c exit >/dev/null 2>&1 || true
run wine "$WINE" "$OUT/mingw/driver_test.exe"
run wine-noint128 "$WINE" "$OUT/mingw-noint128/driver_test.exe"
run wine-msvc-paths "$WINE" "$OUT/clang-msvc-paths/driver_test.exe"

echo "wine_check: native gcc build (-Werror)"
gcc --version | head -1
build gcc native
run native "$OUT/native/driver_test"
echo "wine_check: native gcc build under ASan + UBSan"
build gcc asan -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g
run asan env ASAN_OPTIONS=detect_leaks=1 "$OUT/asan/driver_test"

# The env digests across builds. The exact defs' must be equal wherever the
# C runtime is the same: the three Wine builds (two compilers, three
# multiply paths) and the two native ones; the fast kernels' may differ
# between compilers (FMA contraction is theirs to choose), and Wine's libm
# is not glibc's, so Wine against native is only reported.
exact_lines() { grep '^env ' "$OUT/$1.log" | awk '$3 == "exact"'; }
fast_lines() { grep '^env ' "$OUT/$1.log" | awk '$3 != "exact"'; }
compare() {  # compare A B HARD
  local a=$1 b=$2 hard=$3 nd
  nd=$( { diff <(exact_lines "$a") <(exact_lines "$b") || true; } | grep -c '^<' || true)
  if [ "$nd" = 0 ]; then
    echo "wine_check: exact env digests of $b equal $a's ($(exact_lines "$a" | wc -l) runs)"
  elif [ "$hard" = 1 ]; then
    diff <(exact_lines "$a") <(exact_lines "$b") || true
    echo "wine_check: exact env digests of $b differ from $a's on the same C runtime: FAILED" >&2
    exit 1
  else
    echo "wine_check: exact env digests of $b differ from $a's in $nd of $(exact_lines "$a" | wc -l) runs (another libm)"
  fi
  nd=$( { diff <(fast_lines "$a") <(fast_lines "$b") || true; } | grep -c '^<' || true)
  echo "wine_check: fast env digests of $b differ from $a's in $nd of $(fast_lines "$a" | wc -l) runs"
}
compare wine wine-noint128 1
compare wine wine-msvc-paths 1
compare native asan 1
compare wine native 0
echo "wine_check: OK in $(( $(date +%s) - start )) s"
