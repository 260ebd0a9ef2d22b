/* Scalar arithmetic exactly as numpy 2 and CPython do it, for the spots where
 * Gymnasium's envs lean on their semantics: `x ** 2` on numpy scalars and
 * `math.pow` call libm pow (which is not always x * x), numpy's float `%`,
 * np.clip's NaN propagation, and Python's builtin min/max.
 * Build with -fno-builtin-pow -fno-builtin-powf so that the compiler does not
 * turn pow(x, 2.0) into x * x. */
#ifndef CCGYM_NPMATH_H_
#define CCGYM_NPMATH_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ccgym/define_env.h"
#include "ccgym/portable.h"

/* x ** 2 as libm's pow(x, 2.0) returns it, without the call where that is
 * certain (the exact files only; the fast files, whose contraction would
 * break the exact square below, and every build until the self-check has
 * accepted, call pow):
 *   hi = x * x is the correctly rounded square, and lo = x * x - hi exactly
 *   (Dekker's exact square by Veltkamp's split, no FMA needed). A pow whose
 *   error is below 1 - T ulps can only return hi when |lo| <= T ulp(hi): every
 *   other double is at least 1 - T ulps from x * x. glibc documents 0.52 ulp
 *   for pow (measured here: 0.5084, about 1 in 1200 random x has pow != x * x,
 *   all with |lo| > 0.4916 ulp), so T = 15/32 = 0.46875 leaves 0.011 ulp of
 *   margin under the documented bound and takes hi for ~94% of inputs.
 * Taken only where hi is normal and well inside range (2^-900 .. 2^900: the
 * split and lo exact, ulp(hi) * T a normal product) and, where hi is a power
 * of two and lo != 0 (x * x below it, in the binade of half the ulp), never.
 * Elsewhere (0, subnormal, huge, inf, NaN squares, |lo| above T): pow. Not
 * trusted blindly: src/exact_math.c's init turns it on (ccgym_pow2_fast) only
 * when it equals the process's pow on every probe of ccgym_pow2_selfcheck
 * (random x over many binades, x with |lo| just under T and just under 1/2
 * ulp, specials); CCGYM_EXACT_MATH=libm keeps it off. */
#define CCGYM_POW2_T 0.46875
extern int ccgym_pow2_fast; /* src/exact_math.c: 1 once the probes accepted */

/* hi = x * x if the rule above takes it (returns 1), for a threshold t_ulp =
 * T * 2^-52; drop_lo: pretend lo = 0 (the self-check's broken port). */
static inline int ccgym_pow2_try(double x, double t_ulp, int drop_lo, double *out)
{
    const double hi = x * x;
    *out = hi;
    if (!(hi >= 0x1p-900 && hi <= 0x1p900)) /* also NaN */
        return 0;
    const double split = 134217729.0; /* 2^27 + 1 */
    const double c = split * x, xh = c - (c - x), xl = x - xh;
    const double lo = drop_lo ? 0.0 : ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl;
    uint64_t u;
    memcpy(&u, &hi, sizeof u);
    const uint64_t eb = u & UINT64_C(0x7ff0000000000000);
    double e;
    memcpy(&e, &eb, sizeof e); /* 2^exponent(hi) */
    if ((u & UINT64_C(0x000fffffffffffff)) == 0 && lo != 0)
        return 0;
    return fabs(lo) <= e * t_ulp;
}

/* numpy float64 scalar ** 2, Python float ** 2, math.pow(x, 2). */
static inline double ccgym_pow2(double x)
{
#if !defined(CCGYM_FAST_SUFFIX)
    double r;
    if (ccgym_pow2_fast && ccgym_pow2_try(x, CCGYM_POW2_T * 0x1p-52, 0, &r))
        return r;
#endif
    return pow(x, 2.0);
}
/* math.pow(x, 2) of a float64 x that holds a float32 value: the square has
 * at most 48 significant bits, so it is a double and pow, within half an ulp
 * or so of it, returns it exactly; x * x is that square without the ~10 ns
 * call. Checked for every one of the 2**32 float32 values against glibc's
 * pow by tools/check_pow_squares.c; tests/test_single_parity.py compares the
 * results with Gymnasium's live on whatever libm this runs. */
static inline double ccgym_pow2_of_f32(float x)
{
    const double d = (double)x;
    return d * d;
}
/* numpy float32 scalar ** 2: powf(x, 2.0f), which is not always x * x in
 * float32 (tools/check_pow_squares.c), by the same rule as ccgym_pow2 where
 * it is certain: d = (double)x * (double)x is the exact square (at most 48
 * bits), q = (float)d its correctly rounded float, and a powf within 1 - T
 * float ulps returns q when |d - q| <= T ulp(q). glibc documents 0.82 ulp for
 * powf in general, which alone would allow only T < 0.18; its error on
 * squares is far smaller (about 0.0017 ulp: every powf(x, 2) != q has
 * |d - q| > 0.498 ulp), and tools/check_pow_squares.c checks T = 15/32 on
 * every one of the 2^32 floats against the libm it runs on. Taken only for a
 * normal finite q (not a power of two with d != q), and only once the
 * self-check (ccgym_pow2f_selfcheck, its probes as pow's) accepted. */
#define CCGYM_POW2F_T 0.46875
extern int ccgym_pow2f_fast; /* src/exact_math.c: 1 once the probes accepted */

static inline int ccgym_pow2f_try(float x, double t_ulp, float *out)
{
    const double d = (double)x * (double)x;
    const float q = (float)d;
    *out = q;
    if (!(q >= 0x1p-126f && q <= 0x1p127f)) /* also NaN */
        return 0;
    uint32_t u;
    memcpy(&u, &q, sizeof u);
    const uint32_t eb = u & 0x7f800000u;
    float e;
    memcpy(&e, &eb, sizeof e); /* 2^exponent(q) */
    const double dq = (double)q;
    if ((u & 0x007fffffu) == 0 && d != dq)
        return 0;
    return fabs(d - dq) <= (double)e * t_ulp; /* d - dq exact */
}

static inline float ccgym_pow2f(float x)
{
#if !defined(CCGYM_FAST_SUFFIX)
    float r;
    if (ccgym_pow2f_fast && ccgym_pow2f_try(x, CCGYM_POW2F_T * 0x1p-23, &r))
        return r;
#endif
    return powf(x, 2.0f);
}

/* fmod(a, b), which is exact (the result is representable, so every correct
 * method gives the same bits), without the libm call where that is easy:
 * for b a normal number below 2^900 and |a| < 2^52 |b|, with q = floor(|a| /
 * |b|) (at most one too large), |a| - q |b| by Dekker's exact product (no
 * FMA needed) and Sterbenz's exact difference, then + |b| if q was one too
 * large; elsewhere (and in the fast files, whose contraction would break
 * Dekker's product) libm's fmod. tests/c/exact_math_check.c compares it with
 * fmod. */
static inline double ccgym_fmod(double a, double b)
{
#if defined(CCGYM_FAST_SUFFIX)
    return fmod(a, b);
#else
    const double aa = fabs(a), ab = fabs(b);
    /* |a| < 2 |b|, b finite nonzero, a not NaN: |a| itself below |b|, else
     * |a| - |b| (exact by Sterbenz, |b| <= |a| < 2 |b|); fmod's sign is a's. */
    if (aa < ab && ab < INFINITY)
        return a;
    if (aa < 2.0 * ab && ab < 0x1p1023)
        return copysign(aa - ab, a);
    if (!(ab >= 0x1p-900 && ab < 0x1p900 && aa < ab * 0x1p52)) /* also NaN and inf */
        return fmod(a, b);
    if (aa < ab)
        return a;
    const double q = floor(aa / ab);
    /* p + e = q * ab exactly (Veltkamp split of both factors, 26 + 27 bits) */
    const double split = 134217729.0; /* 2^27 + 1 */
    const double cq = split * q, qh = cq - (cq - q), ql = q - qh;
    const double cb = split * ab, bh = cb - (cb - ab), bl = ab - bh;
    const double p = q * ab;
    const double e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;
    double r = (aa - p) - e; /* exact: aa - p by Sterbenz, the result representable */
    if (r < 0)
        r += ab;
    return copysign(r, a);
#endif
}

/* numpy's npy_remainder for float64 (`a % b` on numpy scalars): the result has
 * the sign of b. */
static inline double ccgym_npy_remainder(double a, double b)
{
    double mod = ccgym_fmod(a, b);
    if (!b)
        return mod;
    if (mod) {
        if ((b < 0) != (mod < 0))
            mod += b;
    } else {
        mod = copysign(0.0, b);
    }
    return mod;
}

/* The backends a step body is compiled for: its `lanes` argument (a
 * constant where the body is inlined) and that of the _bk primitives below.
 *   CCGYM_BK_SCALAR: the per-instance exact step, libm and the scalar
 *     primitives above;
 *   CCGYM_BK_LANES: the exact lanes blocks (src/<env>_lanes.c built for exact
 *     math's lanes): branch-free forms that a loop of step bodies carries into
 *     SIMD lanes, the scalar primitive's bits wherever they leave *slow alone;
 *   CCGYM_BK_FAST: the same blocks built for precision="fast" (the lanes
 *     forms, but x * x for every square; the bodies may take a cheaper form
 *     of a step's arithmetic where they test for it, as CartPole's one
 *     division): not bit-exact, within the bounds tests/test_fast.py checks.
 * Any nonzero backend takes the branch-free forms. */
enum { CCGYM_BK_SCALAR = 0, CCGYM_BK_LANES = 1, CCGYM_BK_FAST = 2 };

/* The lanes forms: each gives the scalar primitive's result wherever it
 * leaves *slow alone, and adds to *slow (a count) where it cannot be sure
 * (outside ccgym_fmod's Dekker range; a square the pow rule does not take):
 * the caller recomputes those instances with the scalar primitives. The _bk
 * forms pick by `lanes`, a CCGYM_BK_* constant where they are inlined. The
 * exact lanes blocks run only once the self-check accepted the squares
 * (ccgym_pow2_fast, ccgym_pow2f_fast); the fast ones need no rule. */
CCGYM_ALWAYS_INLINE double ccgym_fmod_lanes(double a, double b, double *slow)
{
    const double aa = fabs(a), ab = fabs(b);
    *slow += ab >= 0x1p-900 ? 0.0 : 1.0; /* also NaN and inf */
    *slow += ab < 0x1p900 ? 0.0 : 1.0;
    *slow += aa < ab * 0x1p52 ? 0.0 : 1.0;
    /* ccgym_fmod's Dekker path, which covers |a| < 2 |b| too (q = 0 or 1) */
    const double q = floor(aa / ab);
    const double split = 134217729.0; /* 2^27 + 1 */
    const double cq = split * q, qh = cq - (cq - q), ql = q - qh;
    const double cb = split * ab, bh = cb - (cb - ab), bl = ab - bh;
    const double p = q * ab;
    const double e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;
    const double r = (aa - p) - e, r1 = r + ab;
    return copysign(r < 0 ? r1 : r, a);
}

CCGYM_ALWAYS_INLINE double ccgym_npy_remainder_bk(const int lanes, double a, double b, double *slow)
{
    if (!lanes)
        return ccgym_npy_remainder(a, b);
    if (lanes == CCGYM_BK_FAST) {
        /* a - k b with k = a / b rounded to nearest (1.5 * 2**52 added and
         * taken off leaves no fraction bits), then into [0, b): within a few
         * ulp of |a|. For 0 < b < inf and |k| <= 2**17 (|a| < 8.3e5 for
         * Pendulum's 2 pi, where that error stays inside the fast bound);
         * else (NaN, inf, a far out) slow: the exact remainder. */
        const double shifter = 0x1.8p52;
        const double k = (a * (1.0 / b) + shifter) - shifter;
        const double r = a - k * b;
        *slow += b > 0 && b < INFINITY && fabs(k) <= 0x1p17 ? 0.0 : 1.0;
        return r < 0 ? r + b : r;
    }
    /* the result has b's sign, a zero too: mod, or mod + b where mod is
     * nonzero of the other sign, with b's sign (one select: a zero mod as
     * a case apart would let the compiler fork the code after it) */
    const double mod = ccgym_fmod_lanes(a, b, slow); /* b == 0: slow */
    const double wrapped = mod + b;
    const int other = mod != 0 && (b < 0) != (mod < 0);
    return copysign(fabs(other ? wrapped : mod), b);
}

/* v with its sign and mantissa bits cleared: 2^floor(log2 |v|) for a
 * normal v (what the pow2 rules below scale their error bound by) */
CCGYM_ALWAYS_INLINE double ccgym_exponent_only(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    u &= UINT64_C(0x7ff0000000000000);
    double e;
    memcpy(&e, &u, sizeof e);
    return e;
}

CCGYM_ALWAYS_INLINE double ccgym_pow2_bk(const int lanes, double x, double *slow)
{
    if (!lanes)
        return ccgym_pow2(x);
    if (lanes == CCGYM_BK_FAST)
        return x * x;
    /* ccgym_pow2_try's rule without its early returns (they would be
     * branches in the loop) */
    const double hi = x * x;
    const double split = 134217729.0; /* 2^27 + 1 */
    const double c = split * x, xh = c - (c - x), xl = x - xh;
    const double lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl;
    const double e = ccgym_exponent_only(hi);
    /* (hi == e: hi a power of two, its mantissa bits zero) */
    *slow += hi >= 0x1p-900 ? 0.0 : 1.0;
    *slow += hi <= 0x1p900 ? 0.0 : 1.0;
    *slow += hi == e ? (lo != 0 ? 1.0 : 0.0) : 0.0;
    *slow += fabs(lo) <= e * (CCGYM_POW2_T * 0x1p-52) ? 0.0 : 1.0;
    return hi;
}

CCGYM_ALWAYS_INLINE float ccgym_pow2f_bk(const int lanes, float x, double *slow)
{
    if (!lanes)
        return ccgym_pow2f(x);
    if (lanes == CCGYM_BK_FAST)
        return x * x;
    /* ccgym_pow2f_try's rule without its early returns, in doubles: dq is
     * q's value, so its exponent and its zero mantissa are q's */
    const double d = (double)x * (double)x;
    const float q = (float)d;
    const double dq = (double)q;
    const double e = ccgym_exponent_only(dq);
    *slow += dq >= 0x1p-126 ? 0.0 : 1.0;
    *slow += dq <= 0x1p127 ? 0.0 : 1.0;
    *slow += dq == e ? (d != dq ? 1.0 : 0.0) : 0.0;
    *slow += fabs(d - dq) <= e * (CCGYM_POW2F_T * 0x1p-23) ? 0.0 : 1.0;
    return q;
}

/* np.clip on a float64 scalar with constant bounds, as numpy's clip loop
 * computes it, sign of zero and NaN bits included: a NaN bound is the
 * result (the lower one first), then a NaN x; otherwise x unless a bound
 * is strictly beyond it, so x = -0.0 with lo = 0.0 stays -0.0 and a bound
 * that crosses the other (lo > hi) gives hi. */
static inline double ccgym_npy_clip(double x, double lo, double hi)
{
    /* as selects, the last taking precedence (no branches: a loop of step
     * bodies stays vectorisable) */
    double y = lo > x ? lo : x;
    y = hi < y ? hi : y;
    y = x != x ? x : y;
    y = hi != hi ? hi : y;
    return lo != lo ? lo : y;
}

/* np.clip on a float32 scalar with Python-float bounds (cast to float32),
 * as ccgym_npy_clip. */
static inline float ccgym_npy_clipf(float x, float lo, float hi)
{
    /* as selects, the last taking precedence (no branches: a loop of step
     * bodies stays vectorisable) */
    float y = lo > x ? lo : x;
    y = hi < y ? hi : y;
    y = x != x ? x : y;
    y = hi != hi ? hi : y;
    return lo != lo ? lo : y;
}

/* Python's min(max(x, lo), hi): the first argument wins ties and NaN. */
static inline double ccgym_py_bound(double x, double lo, double hi)
{
    double r = (lo > x) ? lo : x;
    return (hi < r) ? hi : r;
}

/* x rounded to IEEE half precision (numpy's float16), as a double: round to
 * nearest, ties to even, subnormals below 2**-14, +-inf beyond 65504 (from
 * 65520 up, the tie above the largest half), NaN kept. numpy's
 * npy_double_to_half / npy_float_to_half (and the F16C instructions) round
 * this way, so ccgym_round_f16((float)x) is npy_float_to_half too: a float is
 * exactly a double. numpy's float16 scalar ops compute in float32 and round
 * once: ccgym_round_f16(float a op float b). Scaling by powers of two is
 * exact, so the one rounding is nearbyint's (the default rounding mode). */
static inline double ccgym_round_f16(double x)
{
    if (isnan(x) || isinf(x) || x == 0)
        return x;
    const double a = fabs(x);
    double r;
    if (a < 0x1p-14) {
        r = nearbyint(a * 0x1p24) * 0x1p-24; /* subnormal: a multiple of 2**-24 */
    } else {
        int e;
        (void)frexp(a, &e); /* a = m * 2**e, m in [0.5, 1): 11 bits from 2**(e-1) down */
        r = ldexp(nearbyint(ldexp(a, 11 - e)), e - 11);
        if (r > 65504.0)
            r = INFINITY;
    }
    return copysign(r, x);
}

/* (float)x, opaque to the optimiser. GCC 12.2's SLP vectoriser (-O2)
 * miscompiles
 *     float a = (float)x, b = (float)y; s->a = a; s->b = b; o[0] = a; o[1] = b;
 * (s->a, s->b double) into stores of x and y themselves, the rounding to
 * float32 dropped (-fno-tree-slp-vectorize or -O1 store the rounded values).
 * Where a float32 value goes to a double as well as to a float, round it
 * through this. */
static inline float ccgym_f32_opaque(double x)
{
#if defined(__GNUC__) && !defined(CCGYM_MSVC)
    float f = (float)x;
    __asm__("" : "+m"(f));
#else
    volatile float f = (float)x; /* MSVC: no inline asm on x64; a memory trip */
#endif
    return f;
}

/* ccgym_f64_opaque: in the public ccgym/define_env.h (the driver's loop
 * needs it). */

#endif /* CCGYM_NPMATH_H_ */
