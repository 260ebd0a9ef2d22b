/* The compiler- and CPU-specific pieces of ccgym's C, in one place, so that
 * the core builds with GCC and clang (Linux, macOS, MinGW-w64) and with
 * MSVC: inlining and branch hints, 128-bit multiplication, the few atomics
 * the driver and the thread pool use, count-trailing-zeros, prefetch, the
 * spin-wait hint and run-time ISA detection. Integer helpers only: nothing
 * here touches floating-point arithmetic, so they give the same bits on
 * every compiler (the 128-bit product is exact by construction; the
 * portable fallback is checked against __int128 by tests/c/driver_test.c).
 * The threads layer (Win32 or pthreads) is src/threads.h.
 *
 * CCGYM_MSVC selects the MSVC branches. Defining CCGYM_TEST_MSVC_PATHS
 * selects them with another compiler too (tools/wine_check.sh: clang for
 * MinGW-w64 with -fms-extensions, run under Wine), so that the intrinsic
 * paths are compiled and run somewhere other than on MSVC; the #pragmas
 * below stay MSVC's own. */
#ifndef CCGYM_PORTABLE_H_
#define CCGYM_PORTABLE_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if (defined(_MSC_VER) && !defined(__clang__)) || defined(CCGYM_TEST_MSVC_PATHS)
#define CCGYM_MSVC 1
#include <intrin.h>
#endif
#if defined(_MSC_VER) && !defined(__clang__)
/* The exact files (all but src/fast_kernels.c, which is built with
 * CCGYM_FAST_SUFFIX and /fp:contract): no FMA contraction, whatever the
 * compiler's default (off from Visual Studio 2022 17.0, on before), and pow
 * as a call to the CRT's pow (the -fno-builtin-pow of the GCC build). */
#if !defined(CCGYM_FAST_SUFFIX)
#pragma fp_contract(off)
#pragma function(pow)
#endif
#endif

/* M_PI is POSIX, not ISO C: MSVC's <math.h> hides it (without
 * _USE_MATH_DEFINES). The same literal as glibc's, so the same double. */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#if defined(CCGYM_MSVC) && (defined(_M_X64) || defined(__x86_64__))
#define CCGYM_MSVC_X64 1
#elif defined(CCGYM_MSVC) && (defined(_M_ARM64) || defined(__aarch64__))
#define CCGYM_MSVC_ARM64 1
#endif

/* ------------------------------------------------------------ inlining
 * (MSVC's own spelling only for MSVC: MinGW's __forceinline is gnu_inline.) */
#if defined(_MSC_VER) && !defined(__clang__)
#define CCGYM_ALWAYS_INLINE static __forceinline
#define CCGYM_LIKELY(x) (x)
#define CCGYM_UNLIKELY(x) (x)
#define CCGYM_COLD __declspec(noinline)
#define CCGYM_MAYBE_UNUSED
#elif defined(__GNUC__)
#define CCGYM_ALWAYS_INLINE static inline __attribute__((always_inline))
#define CCGYM_LIKELY(x) __builtin_expect(!!(x), 1)
#define CCGYM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CCGYM_COLD __attribute__((noinline, cold)) /* a rare path, kept out of the loop */
#define CCGYM_MAYBE_UNUSED __attribute__((unused)) /* no warning when a build leaves it out */
#else
#define CCGYM_ALWAYS_INLINE static inline
#define CCGYM_LIKELY(x) (x)
#define CCGYM_UNLIKELY(x) (x)
#define CCGYM_COLD
#define CCGYM_MAYBE_UNUSED
#endif

/* 128-bit integers (ccgym_u128): in the public ccgym/rng.h, which PCG64's
 * inline draws need. */
#include "ccgym/rng.h"

/* ------------------------------------------------------------- atomics
 * Just what src/batch.c and src/parallel.c need. GCC/clang: the __atomic
 * builtins. MSVC: aligned volatile accesses with a compiler barrier (x86
 * and x64 order loads and stores strongly enough for acquire/release) or
 * a dmb (ARM64), and the Interlocked functions for read-modify-writes. */
#if defined(CCGYM_MSVC)
#if defined(CCGYM_MSVC_ARM64)
#define CCGYM_FENCE_() __dmb(_ARM64_BARRIER_ISH)
#else
#define CCGYM_FENCE_() _ReadWriteBarrier()
#endif
#endif

static inline unsigned long ccgym_atomic_load_acquire_ulong(const unsigned long *p)
{
#if defined(CCGYM_MSVC)
    unsigned long v = *(const volatile unsigned long *)p;
    CCGYM_FENCE_();
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

static inline void ccgym_atomic_store_release_ulong(unsigned long *p, unsigned long v)
{
#if defined(CCGYM_MSVC)
    CCGYM_FENCE_();
    *(volatile unsigned long *)p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
}

static inline int ccgym_atomic_load_acquire_int(const int *p)
{
#if defined(CCGYM_MSVC)
    int v = *(const volatile int *)p;
    CCGYM_FENCE_();
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
}

static inline void ccgym_atomic_store_relaxed_int(int *p, int v)
{
#if defined(CCGYM_MSVC)
    *(volatile int *)p = v;
#else
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/* *p -= 1, acquire and release. */
static inline void ccgym_atomic_decrement_int(int *p)
{
#if defined(CCGYM_MSVC)
    (void)_InterlockedDecrement((volatile long *)p); /* int and long: 32 bits on Windows */
#else
    (void)__atomic_sub_fetch(p, 1, __ATOMIC_ACQ_REL);
#endif
}

/* *p = min(*p, v), atomically (relaxed: the caller orders it by joining). */
static inline void ccgym_atomic_min_i64_relaxed(int64_t *p, int64_t v)
{
#if defined(CCGYM_MSVC)
    int64_t cur = *(volatile int64_t *)p;
    while (v < cur) {
        const int64_t seen = _InterlockedCompareExchange64((volatile __int64 *)p, v, cur);
        if (seen == cur)
            break;
        cur = seen;
    }
#else
    int64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur &&
           !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
#endif
}

/* ---------------------------------------------------------- bit tricks */

/* The index of the lowest set bit of w (w != 0). */
static inline int ccgym_ctz64(uint64_t w)
{
#if defined(CCGYM_MSVC_X64) || defined(CCGYM_MSVC_ARM64)
    unsigned long k;
    _BitScanForward64(&k, w);
    return (int)k;
#elif defined(__GNUC__) && !defined(CCGYM_MSVC)
    return __builtin_ctzll(w);
#else
    int k = 0;
    while (!(w & 1u)) {
        w >>= 1;
        k++;
    }
    return k;
#endif
}

/* A hint that *p will be written soon. */
#if defined(CCGYM_MSVC_X64)
#define CCGYM_PREFETCH_W(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#elif defined(__GNUC__) && !defined(CCGYM_MSVC)
#define CCGYM_PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define CCGYM_PREFETCH_W(p) ((void)(p))
#endif

/* The spin-wait hint (x86 pause, ARM yield). */
#if defined(CCGYM_MSVC_X64)
#define CCGYM_CPU_RELAX() _mm_pause()
#elif defined(CCGYM_MSVC_ARM64)
#define CCGYM_CPU_RELAX() __yield()
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CCGYM_CPU_RELAX() __builtin_ia32_pause()
#elif defined(__GNUC__) && defined(__aarch64__)
#define CCGYM_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CCGYM_CPU_RELAX() ((void)0)
#endif

/* ------------------------------------------------ run-time ISA detection
 * x86-64 only (0 elsewhere). GCC/clang: __builtin_cpu_supports (which checks
 * the OS saves the vector registers). MSVC: cpuid leaf 7 and xgetbv, the
 * same test. */
#define CCGYM_ISA_AVX2 1u      /* AVX2 */
#define CCGYM_ISA_FMA 2u       /* FMA3 */
#define CCGYM_ISA_AVX512 4u    /* AVX-512 F, DQ, VL and BW */

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CCGYM_MSVC)
#define CCGYM_X86_DETECT 1
static inline unsigned ccgym_cpu_isa(void)
{
    unsigned isa = 0;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        isa |= CCGYM_ISA_AVX2;
    if (__builtin_cpu_supports("fma"))
        isa |= CCGYM_ISA_FMA;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        isa |= CCGYM_ISA_AVX512;
    return isa;
}
#elif defined(CCGYM_MSVC_X64)
#define CCGYM_X86_DETECT 1
static inline unsigned ccgym_cpu_isa(void)
{
    int r[4];
    unsigned isa = 0;
    __cpuid(r, 0);
    const int max_leaf = r[0];
    __cpuid(r, 1);
    const int fma = (r[2] >> 12) & 1, osxsave = (r[2] >> 27) & 1, avx = (r[2] >> 28) & 1;
    if (!osxsave || !avx || max_leaf < 7)
        return 0;
    const unsigned long long xcr0 = _xgetbv(0);
    if ((xcr0 & 0x6) != 0x6) /* the OS saves XMM and YMM state */
        return 0;
    __cpuidex(r, 7, 0);
    const unsigned ebx = (unsigned)r[1];
    if ((ebx >> 5) & 1)
        isa |= CCGYM_ISA_AVX2;
    if (fma)
        isa |= CCGYM_ISA_FMA;
    /* F (bit 16), DQ (17), BW (30), VL (31); the OS saves opmask and ZMM state. */
    if ((xcr0 & 0xe6) == 0xe6 && ((ebx >> 16) & 1) && ((ebx >> 17) & 1) && ((ebx >> 30) & 1) &&
        ((ebx >> 31) & 1))
        isa |= CCGYM_ISA_AVX512;
    return isa;
}
#else
static inline unsigned ccgym_cpu_isa(void) { return 0; }
#endif

#endif /* CCGYM_PORTABLE_H_ */
