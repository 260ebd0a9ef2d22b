/* Exact math: a re-implementation of glibc's double sin/cos (glibc >= 2.28,
 * sysdeps/ieee754/dbl-64/s_sin.c, IBM Accurate Mathematical Library lineage),
 * written from the algorithm, so that its results are libm's bit for bit and
 * the exact kernels can compute them in SIMD lanes. No glibc code or table is
 * copied; where each constant comes from:
 *
 *  - src/include/ccgym/exactmath_consts.h, generated from mathematics by
 *    tools/gen_exact_math_consts.py (stdlib fractions/decimal): the range
 *    reduction constants (2/pi, pi/2 as hi+lo and as the 26/27/26/53-bit
 *    split), the rounding constants 1.5*2^45 and 1.5*2^52, the branch
 *    thresholds, 0.126, the cos x^2 coefficient 1/2, and the correctly
 *    rounded sin/cos of k/128 (high words and low words);
 *  - read from the loaded libm at init (xm_recover below): the nine fitted
 *    polynomial coefficients (sn3, sn5, cs4, cs6 of the table path; s1..s5 of
 *    the pure polynomial), which are not a function of mathematics, and the
 *    table's low words (18 of its 220 are not the correctly rounded
 *    remainder). The table is found as the run of doubles whose high words
 *    are the generated correctly rounded sin/cos(k/128); each coefficient is
 *    picked among the doubles near its Taylor value by matching libm's own
 *    results; everything is then verified by the self-check.
 *
 * The algorithm, for |x| by the high word of its bits:
 *   < 2^-26 (cos: 2^-27): sin = x, cos = 1;
 *   < 109.5/128: sin: |x| < 0.126 a pure polynomial, else the table point
 *     k/128 nearest |x| and polynomials of the remainder; cos: the table;
 *   < pi/2 + 109.5/128: sin(x) = cos(pi/2 - |x|), cos(x) = sin(pi/2 - |x|)
 *     with pi/2 as hi + lo;
 *   < 2^26 pi/2: Cody-Waite reduction by pi/2 in four parts, quadrant n;
 *   beyond: libm itself (the big reduction is not re-implemented).
 * glibc has an FMA variant (x86-64, picked at load time when the CPU has
 * FMA and AVX2) that is the same C compiled with contraction; the fused
 * forms below are the ones that variant's code uses. This file itself is
 * built with -ffp-contract=off: every fused operation is an explicit fma(). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include "ccgym/exactmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/exactmath_consts.h"
#include "ccgym/npmath.h"
#include "ccgym/portable.h"

#if defined(__linux__)
#include <link.h>
#endif
/* Recovery from the loaded libm: glibc on Linux (CCGYM_XM_NO_RECOVER leaves it
 * out, to build and test the fallback as the other platforms have it). */
#if defined(__GLIBC__) && defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)) && \
    !defined(CCGYM_XM_NO_RECOVER)
#define CCGYM_XM_CAN_RECOVER 1
#endif
/* The lanes (src/exact_math_lanes.c, built per ISA) on x86-64 GCC/clang builds;
 * CCGYM_XM_NO_LANES leaves them out (a build that does not compile that file). */
#if defined(CCGYM_XM_CAN_RECOVER) && defined(__x86_64__) && !defined(CCGYM_XM_NO_LANES)
#define CCGYM_XM_X86_LANES 1
#endif
/* NEON is part of every AArch64 CPU: its lanes need no run-time detection. */
#if defined(CCGYM_XM_CAN_RECOVER) && defined(__aarch64__) && !defined(CCGYM_XM_NO_LANES)
#define CCGYM_XM_NEON_LANES 1
#endif

static uint32_t xm_hi_abs(double x)
{
    return (uint32_t)(ccgym_xm_bits(x) >> 32) & 0x7fffffffu;
}

/* ------------------------------------------------------------ the algorithm */

/* sin(a + da), |a + da| <= 0.855, by the pure polynomial (|a| < 0.126) or the
 * table. F: the FMA variant; drop: compute its last table-path FMA unfused. */
static double xm_do_sin(const ccgym_xm_consts *K, int F, int drop, double x, double dx)
{
    double xold = x;
    if (fabs(x) < K->taylor_limit) {
        double xx = x * x, p, t;
        if (F) {
            p = fma(fma(fma(fma(K->s5, xx, K->s4), xx, K->s3), xx, K->s2), xx, K->s1);
            t = fma(fma(p, x, -(0.5 * dx)), xx, dx);
        } else {
            p = (((K->s5 * xx + K->s4) * xx + K->s3) * xx + K->s2) * xx + K->s1;
            t = (p * x - 0.5 * dx) * xx + dx;
        }
        return x + t;
    }
    if (x <= 0)
        dx = -dx;
    double ax = fabs(x);
    double u = K->big + ax;
    int k = (int)(uint32_t)ccgym_xm_bits(u) << 2;
    x = ax - (u - K->big);
    double xx = x * x, s, c, cor;
    double sn = K->tab[k], ssn = K->tab[k + 1], cs = K->tab[k + 2], ccs = K->tab[k + 3];
    if (F) {
        s = x + fma(x * xx, fma(xx, K->sn5, K->sn3), dx);
        c = fma(x, dx, xx * fma(fma(xx, K->cs6, K->cs4), xx, K->cs2));
        cor = drop ? s * cs + fma(-sn, c, fma(s, ccs, ssn)) : fma(s, cs, fma(-sn, c, fma(s, ccs, ssn)));
    } else {
        s = x + (dx + x * xx * (K->sn3 + xx * K->sn5));
        c = x * dx + xx * (K->cs2 + xx * (K->cs4 + xx * K->cs6));
        cor = (ssn + s * ccs - sn * c) + cs * s;
    }
    return copysign(sn + cor, xold);
}

/* cos(x + dx), |x + dx| <= 0.855, by the table. */
static double xm_do_cos(const ccgym_xm_consts *K, int F, double x, double dx)
{
    if (x < 0)
        dx = -dx;
    double ax = fabs(x);
    double u = K->big + ax;
    int k = (int)(uint32_t)ccgym_xm_bits(u) << 2;
    x = ax - (u - K->big) + dx;
    double xx = x * x, s, c, cor;
    double sn = K->tab[k], ssn = K->tab[k + 1], cs = K->tab[k + 2], ccs = K->tab[k + 3];
    if (F) {
        s = fma(x * xx, fma(xx, K->sn5, K->sn3), x);
        c = xx * fma(fma(xx, K->cs6, K->cs4), xx, K->cs2);
        cor = fma(-sn, s, fma(-cs, c, fma(-s, ssn, ccs)));
    } else {
        s = x + x * xx * (K->sn3 + xx * K->sn5);
        c = xx * (K->cs2 + xx * (K->cs4 + xx * K->cs6));
        cor = (ccs - s * ssn - cs * c) - sn * s;
    }
    return cs + cor;
}

/* x = n pi/2 + (a + da), |x| < 2^26 pi/2: Cody-Waite with pi/2 in four parts. */
static int xm_reduce(const ccgym_xm_consts *K, int F, double x, double *a, double *da)
{
    double t, xn, y, b, db, t1, t2;
    if (F) {
        t = fma(x, K->hpinv, K->toint);
        xn = t - K->toint;
        y = fma(-xn, K->mp2, fma(-xn, K->mp1, x));
        t2 = fma(-xn, K->pp3, y);
        db = fma(-xn, K->pp3, y - t2);
        b = fma(-xn, K->pp4, t2);
        db = db + fma(-xn, K->pp4, t2 - b);
    } else {
        t = x * K->hpinv + K->toint;
        xn = t - K->toint;
        y = (x - xn * K->mp1) - xn * K->mp2;
        t1 = xn * K->pp3;
        t2 = y - t1;
        db = (y - t2) - t1;
        t1 = xn * K->pp4;
        b = t2 - t1;
        db += (t2 - b) - t1;
    }
    *a = b;
    *da = db;
    return (int)((uint32_t)ccgym_xm_bits(t) & 3u);
}

static double xm_quadrant(const ccgym_xm_consts *K, int F, int drop, double a, double da, int n)
{
    double r = (n & 1) ? xm_do_cos(K, F, a, da) : xm_do_sin(K, F, drop, a, da);
    return (n & 2) ? -r : r;
}

double ccgym_xm_sin_with(const ccgym_xm_consts *K, int variant, int perturb, double x)
{
    int F = variant == CCGYM_XM_PATH_FMA;
    int drop = F && perturb == CCGYM_XM_PERTURB_DROP_FMA;
    uint32_t k = xm_hi_abs(x);
    double a, da;
    if (k < CCGYM_XM_K_TINY_SIN)
        return x;
    if (k < CCGYM_XM_K_TABLE)
        return xm_do_sin(K, F, drop, x, 0);
    if (k < CCGYM_XM_K_MID)
        return copysign(xm_do_cos(K, F, K->hp0 - fabs(x), K->hp1), x);
    if (k < CCGYM_XM_K_REDUCE) {
        int n = xm_reduce(K, F, x, &a, &da);
        return xm_quadrant(K, F, drop, a, da, n);
    }
    return sin(x);
}

double ccgym_xm_cos_with(const ccgym_xm_consts *K, int variant, int perturb, double x)
{
    int F = variant == CCGYM_XM_PATH_FMA;
    int drop = F && perturb == CCGYM_XM_PERTURB_DROP_FMA;
    uint32_t k = xm_hi_abs(x);
    double a, da;
    if (k < CCGYM_XM_K_TINY_COS)
        return 1.0;
    if (k < CCGYM_XM_K_TABLE)
        return xm_do_cos(K, F, x, 0);
    if (k < CCGYM_XM_K_MID) {
        double y = K->hp0 - fabs(x);
        a = y + K->hp1;
        da = (y - a) + K->hp1;
        return xm_do_sin(K, F, drop, a, da);
    }
    if (k < CCGYM_XM_K_REDUCE) {
        int n = xm_reduce(K, F, x, &a, &da);
        return xm_quadrant(K, F, drop, a, da, n + 1);
    }
    return cos(x);
}

/* ------------------------------------------------------------ probes */

/* A small deterministic generator (splitmix64) for the probe set. */
static uint64_t xm_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double xm_uniform(uint64_t *s, double lo, double hi)
{
    double u = (double)(xm_next(s) >> 11) * (1.0 / 9007199254740992.0);
    return lo + (hi - lo) * u;
}

/* Count the probes x with our sin/cos != libm's (by bits; NaN never occurs here). */
/* Inputs where coefficient sets that libm rejected differ from the one taken
 * (found by the recovery's tie-break): part of the probe set. */
#define XM_MAX_WITNESS 64
static double xm_witness[XM_MAX_WITNESS];
static int xm_nwitness;

/* When set, the probes are also collected here (for the lane check). */
static double *xm_probe_buf;
static long xm_probe_len, xm_probe_cap;

static long xm_check_one(const ccgym_xm_consts *K, int v, int p, double x, long *n)
{
    long bad = 0;
    if (xm_probe_buf && xm_probe_len < xm_probe_cap)
        xm_probe_buf[xm_probe_len++] = x;
    double a = ccgym_xm_sin_with(K, v, p, x), b = sin(x);
    double c = ccgym_xm_cos_with(K, v, p, x), d = cos(x);
    bad += ccgym_xm_bits(a) != ccgym_xm_bits(b);
    bad += ccgym_xm_bits(c) != ccgym_xm_bits(d);
    *n += 2;
    return bad;
}

static long xm_check_ulps(const ccgym_xm_consts *K, int v, int p, double x, int ulps, long *n)
{
    long bad = 0;
    uint64_t u = ccgym_xm_bits(fabs(x));
    for (int i = -ulps; i <= ulps; i++) {
        double y = ccgym_xm_from_bits(u + (uint64_t)(int64_t)i);
        bad += xm_check_one(K, v, p, y, n);
        bad += xm_check_one(K, v, p, -y, n);
    }
    return bad;
}

/* The range limits of the algorithm (the first double of each branch). */
static const uint32_t xm_thresholds[] = {CCGYM_XM_K_TINY_COS, CCGYM_XM_K_TINY_SIN, CCGYM_XM_K_TABLE,
                                         CCGYM_XM_K_MID, CCGYM_XM_K_REDUCE};

long ccgym_xm_selfcheck(const ccgym_xm_consts *K, int v, int p, long *n_probes)
{
    long bad = 0, n = 0;
    uint64_t s = UINT64_C(0x63636779); /* fixed seed: the same probes every run */
    static const double edges[] = {1e-9, 1.49e-8, 0.126, 0.85546875, 2.4262, 10.0, 1e3, 1e5, 1.05e8};
    /* random per range */
    for (size_t r = 0; r + 1 < sizeof edges / sizeof edges[0]; r++)
        for (int i = 0; i < 1500; i++)
            bad += xm_check_one(K, v, p, xm_uniform(&s, edges[r], edges[r + 1]) * ((i & 1) ? -1 : 1), &n);
    /* +-ulps around each branch threshold, the 0.126 limit and each table point and midpoint */
    for (size_t t = 0; t < sizeof xm_thresholds / sizeof xm_thresholds[0]; t++)
        bad += xm_check_ulps(K, v, p, ccgym_xm_from_bits((uint64_t)xm_thresholds[t] << 32), 64, &n);
    bad += xm_check_ulps(K, v, p, K->taylor_limit, 64, &n);
    for (int k = 1; k < CCGYM_XM_TABLE_N; k++) {
        bad += xm_check_ulps(K, v, p, k / 128.0, 3, &n);
        bad += xm_check_ulps(K, v, p, (k + 0.5) / 128.0, 3, &n);
    }
    /* around k pi/2 (the reduced argument near 0 and the quadrant edges) */
    for (int k = 1; k <= 2000; k++)
        bad += xm_check_ulps(K, v, p, k * K->hp0 + k * K->hp1, 2, &n);
    for (int i = 0; i < 500; i++) {
        double k = floor(xm_uniform(&s, 2000.0, 6.7e7));
        bad += xm_check_ulps(K, v, p, k * K->hp0 + k * K->hp1, 1, &n);
    }
    /* inputs that told the coefficient candidates apart */
    for (int i = 0; i < xm_nwitness; i++)
        bad += xm_check_one(K, v, p, xm_witness[i], &n);
    /* inputs where the FMA and non-FMA variants differ: found by search */
    int found = 0;
    for (int i = 0; i < 200000 && found < 256; i++) {
        double x = xm_uniform(&s, 0.0, 8.0);
        if (ccgym_xm_bits(ccgym_xm_sin_with(K, CCGYM_XM_PATH_FMA, 0, x)) !=
                ccgym_xm_bits(ccgym_xm_sin_with(K, CCGYM_XM_PATH_NOFMA, 0, x)) ||
            ccgym_xm_bits(ccgym_xm_cos_with(K, CCGYM_XM_PATH_FMA, 0, x)) !=
                ccgym_xm_bits(ccgym_xm_cos_with(K, CCGYM_XM_PATH_NOFMA, 0, x))) {
            bad += xm_check_one(K, v, p, x, &n);
            found++;
        }
    }
    if (found == 0)
        bad++; /* the probe set must tell the variants apart */
    if (n_probes)
        *n_probes = n;
    return bad;
}

/* ------------------------------------------------------------ recovery */

#if defined(CCGYM_XM_X86_LANES)
void ccgym_xm_lanes_sincos_avx2(const ccgym_xm_consts *K, int variant, const double *x, double *s,
                                double *c, size_t n);
void ccgym_xm_lanes_sincos_avx512(const ccgym_xm_consts *K, int variant, const double *x, double *s,
                                  double *c, size_t n);
#endif
#if defined(CCGYM_XM_NEON_LANES)
void ccgym_xm_lanes_sincos_neon(const ccgym_xm_consts *K, int variant, const double *x, double *s,
                                double *c, size_t n);
#endif
typedef void (*xm_lanes_fn)(const ccgym_xm_consts *K, int variant, const double *x, double *s,
                            double *c, size_t n);

static ccgym_xm_consts xm_k;
static int xm_path = -1;
static xm_lanes_fn xm_lanes = NULL;
static const char *xm_lanes_name = "scalar";
static const char *xm_reason = "not initialised";
static int xm_fixups = -1;

static void xm_math_consts(ccgym_xm_consts *K)
{
    K->big = ccgym_xm_from_bits(CCGYM_XM_BIG);
    K->toint = ccgym_xm_from_bits(CCGYM_XM_TOINT);
    K->hpinv = ccgym_xm_from_bits(CCGYM_XM_HPINV);
    K->hp0 = ccgym_xm_from_bits(CCGYM_XM_HP0);
    K->hp1 = ccgym_xm_from_bits(CCGYM_XM_HP1);
    K->mp1 = ccgym_xm_from_bits(CCGYM_XM_MP1);
    K->mp2 = ccgym_xm_from_bits(CCGYM_XM_MP2);
    K->pp3 = ccgym_xm_from_bits(CCGYM_XM_PP3);
    K->pp4 = ccgym_xm_from_bits(CCGYM_XM_PP4);
    K->taylor_limit = ccgym_xm_from_bits(CCGYM_XM_TAYLOR_LIMIT);
    K->cs2 = ccgym_xm_from_bits(CCGYM_XM_CS2);
    for (int k = 0; k < CCGYM_XM_TABLE_N; k++) {
        K->tab[4 * k] = ccgym_xm_from_bits(ccgym_xm_sin_hi[k]);
        K->tab[4 * k + 1] = ccgym_xm_from_bits(ccgym_xm_sin_lo[k]);
        K->tab[4 * k + 2] = ccgym_xm_from_bits(ccgym_xm_cos_hi[k]);
        K->tab[4 * k + 3] = ccgym_xm_from_bits(ccgym_xm_cos_lo[k]);
    }
}

#if defined(CCGYM_XM_CAN_RECOVER)
#include <stdio.h>
/* CCGYM_EXACT_MATH_DEBUG=1: the recovery's steps on stderr. */
#define XM_DEBUG(...) ((getenv("CCGYM_EXACT_MATH_DEBUG") ? fprintf(stderr, "ccgym exact math: " __VA_ARGS__) : 0))
#define XM_NREF 7
#define XM_MAXC 8
/* Read-only memory of the loaded libm, scanned for the table and the coefficients. */
typedef struct xm_scan {
    int found_libm, found_table;
    const double *table;
    double cand[XM_NREF][XM_MAXC];
    int ncand[XM_NREF];
} xm_scan;

static const double xm_refs[XM_NREF] = {CCGYM_XM_TAYLOR_S3, CCGYM_XM_TAYLOR_S5, CCGYM_XM_TAYLOR_C4,
                                        CCGYM_XM_TAYLOR_C6, CCGYM_XM_TAYLOR_S7, CCGYM_XM_TAYLOR_S9,
                                        CCGYM_XM_TAYLOR_S11};
/* Relative distance from the Taylor value within which a fitted coefficient is looked for. */
static const double xm_tols[XM_NREF] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-2};

static int xm_is_table(const double *p)
{
    for (int k = 0; k < CCGYM_XM_TABLE_N; k++)
        if (ccgym_xm_bits(p[4 * k]) != ccgym_xm_sin_hi[k] || ccgym_xm_bits(p[4 * k + 2]) != ccgym_xm_cos_hi[k])
            return 0;
    return 1;
}

static void xm_add_cand(xm_scan *sc, int r, double v)
{
    for (int c = 0; c < sc->ncand[r]; c++)
        if (ccgym_xm_bits(sc->cand[r][c]) == ccgym_xm_bits(v))
            return;
    if (sc->ncand[r] < XM_MAXC)
        sc->cand[r][sc->ncand[r]++] = v;
}

static int xm_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    xm_scan *sc = (xm_scan *)data;
    (void)size;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "/libm.so"))
        return 0;
    sc->found_libm = 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || (ph->p_flags & PF_W))
            continue;
        uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr);
        uintptr_t hi = lo + ph->p_memsz;
        lo = (lo + 7) & ~(uintptr_t)7;
        size_t nd = (hi - lo) / 8;
        const double *d = (const double *)lo;
        for (size_t j = 0; j < nd; j++) {
            double v = d[j];
            if (!sc->found_table && j + 440 <= nd && ccgym_xm_bits(v) == 0 && ccgym_xm_bits(d[j + 2]) == ccgym_xm_cos_hi[0] &&
                xm_is_table(d + j)) {
                sc->table = d + j;
                sc->found_table = 1;
            }
            for (int r = 0; r < XM_NREF; r++)
                if (fabs(v / xm_refs[r] - 1.0) < xm_tols[r])
                    xm_add_cand(sc, r, v);
        }
    }
    return 1;
}

/* Does variant v with the coefficients in K give libm's sin and cos on the
 * table path (0.126 <= |x| < 0.855), resp. libm's sin on the pure polynomial
 * (|x| < 0.126), on n probes? The table path barely depends on its higher
 * coefficients (the remainder from k/128 is at most 1/256), so most of its
 * probes are near the midpoints (k + 1/2)/128, where the remainder is largest. */
static int xm_match_table(const ccgym_xm_consts *K, int v, long n)
{
    uint64_t s = 7;
    for (long i = 0; i < n; i++) {
        double x;
        if (i < 64) {
            x = xm_uniform(&s, 0.127, 0.855);
        } else {
            int k = 16 + (int)(xm_next(&s) % 94);
            x = (k + 0.5) / 128 + xm_uniform(&s, -1.0 / 2048, 1.0 / 2048);
        }
        if (ccgym_xm_bits(ccgym_xm_sin_with(K, v, 0, x)) != ccgym_xm_bits(sin(x)) || ccgym_xm_bits(ccgym_xm_cos_with(K, v, 0, x)) != ccgym_xm_bits(cos(x)))
            return 0;
    }
    return 1;
}

static int xm_match_taylor(const ccgym_xm_consts *K, int v, long n)
{
    uint64_t s = 11;
    for (long i = 0; i < n; i++) {
        double x = xm_uniform(&s, i < 64 ? 0.01 : 0.1, 0.1259);
        if (ccgym_xm_bits(ccgym_xm_sin_with(K, v, 0, x)) != ccgym_xm_bits(sin(x)))
            return 0;
    }
    return 1;
}

/* Probes a coefficient set must match libm on to be taken (quick pass, then
 * the survivors on the long one; a wrong set typically fails within 1e4). */
#define XM_QUICK 64
#define XM_LONG 4096

/* Two sets that both match libm on every probe differ by a few ulps in a
 * coefficient whose effect is far below an ulp of the result: break the tie on
 * inputs where the sets themselves disagree (searched without libm; about one
 * in 1e5 near the table midpoints), eliminating each set that differs from
 * libm there. Returns the number of sets left (moved to the front). */
/* The lanes of the best ISA here, for the tie-break's search only (each
 * difference they find is confirmed by the scalar code before it counts). */
static xm_lanes_fn xm_search_lanes(void)
{
#if defined(CCGYM_XM_X86_LANES) && defined(CCGYM_X86_DETECT)
    unsigned isa = ccgym_cpu_isa();
    if ((isa & CCGYM_ISA_AVX512) && (isa & CCGYM_ISA_FMA))
        return ccgym_xm_lanes_sincos_avx512;
    if ((isa & CCGYM_ISA_AVX2) && (isa & CCGYM_ISA_FMA))
        return ccgym_xm_lanes_sincos_avx2;
#elif defined(CCGYM_XM_NEON_LANES)
    return ccgym_xm_lanes_sincos_neon;
#endif
    return NULL;
}

/* Do sets[0] and sets[j] (j < n) give the same sin (and cos unless taylor) at x? */
static int xm_sets_agree(const ccgym_xm_consts *sets, int n, int v, int taylor, double x)
{
    uint64_t r0s = ccgym_xm_bits(ccgym_xm_sin_with(&sets[0], v, 0, x));
    uint64_t r0c = taylor ? 0 : ccgym_xm_bits(ccgym_xm_cos_with(&sets[0], v, 0, x));
    for (int j = 1; j < n; j++)
        if (ccgym_xm_bits(ccgym_xm_sin_with(&sets[j], v, 0, x)) != r0s ||
            (!taylor && ccgym_xm_bits(ccgym_xm_cos_with(&sets[j], v, 0, x)) != r0c))
            return 0;
    return 1;
}

static int xm_break_ties(ccgym_xm_consts *sets, int n, int v, int taylor)
{
    enum { CHUNK = 1024 };
    static double xs[CHUNK], s0[CHUNK], c0[CHUNK], sj[CHUNK], cj[CHUNK];
    xm_lanes_fn lf = xm_search_lanes();
    uint64_t s = 13;
    for (long it = 0; it < 20000000L / CHUNK && n > 1; it++) {
        for (int i = 0; i < CHUNK; i++) {
            if (taylor) {
                xs[i] = xm_uniform(&s, 0.1, 0.1259);
            } else {
                int k = 16 + (int)(xm_next(&s) % 94);
                xs[i] = (k + 0.5) / 128 + xm_uniform(&s, -1.0 / 2048, 1.0 / 2048);
            }
        }
        int first = -1;
        if (lf) {
            lf(&sets[0], v, xs, s0, c0, CHUNK);
            for (int j = 1; j < n; j++) {
                lf(&sets[j], v, xs, sj, cj, CHUNK);
                for (int i = 0; i < CHUNK; i++)
                    if (ccgym_xm_bits(sj[i]) != ccgym_xm_bits(s0[i]) || (!taylor && ccgym_xm_bits(cj[i]) != ccgym_xm_bits(c0[i]))) {
                        if (first < 0 || i < first)
                            first = i;
                        break;
                    }
            }
            if (first >= 0 && xm_sets_agree(sets, n, v, taylor, xs[first]))
                first = -1; /* the lanes disagree with the scalar code: not a witness */
        } else {
            for (int i = 0; i < CHUNK && first < 0; i++)
                if (!xm_sets_agree(sets, n, v, taylor, xs[i]))
                    first = i;
        }
        if (first < 0)
            continue;
        double x = xs[first];
        uint64_t ls = ccgym_xm_bits(sin(x)), lc = taylor ? 0 : ccgym_xm_bits(cos(x));
        if (xm_nwitness < XM_MAX_WITNESS)
            xm_witness[xm_nwitness++] = x;
        int m = 0;
        for (int j = 0; j < n; j++)
            if (ccgym_xm_bits(ccgym_xm_sin_with(&sets[j], v, 0, x)) == ls &&
                (taylor || ccgym_xm_bits(ccgym_xm_cos_with(&sets[j], v, 0, x)) == lc))
                sets[m++] = sets[j];
        XM_DEBUG("tie-break at x = %a: %d of %d sets left\n", x, m, n);
        n = m;
    }
    return n;
}

#define XM_MAXSETS 64

typedef int (*xm_match_fn)(const ccgym_xm_consts *K, int v, long n);

/* Every combination of candidates for the nf coefficients *field[i] (each
 * from the candidates of ref[i], the last varying fastest) that matches libm
 * by match on XM_QUICK then n_long probes, into sets (at most XM_MAXSETS);
 * returns their number. */
static int xm_search(const xm_scan *sc, ccgym_xm_consts *K, int v, int nf, const int *ref,
                     double *const *field, xm_match_fn match, long n_long, ccgym_xm_consts *sets)
{
    int idx[XM_NREF] = {0}, hits = 0;
    for (int i = 0; i < nf; i++)
        if (sc->ncand[ref[i]] == 0)
            return 0;
    for (;;) {
        for (int i = 0; i < nf; i++)
            *field[i] = sc->cand[ref[i]][idx[i]];
        if (match(K, v, XM_QUICK) && match(K, v, n_long) && hits < XM_MAXSETS)
            sets[hits++] = *K;
        int i = nf - 1;
        while (i >= 0 && ++idx[i] == sc->ncand[ref[i]])
            idx[i--] = 0;
        if (i < 0)
            return hits;
    }
}

/* The pure polynomial's sets: s1 (ref 0), s2 (1), s3 (4), s4 (5), s5 (6). */
static int xm_pick_poly(const xm_scan *sc, ccgym_xm_consts *K, int v, ccgym_xm_consts *sets)
{
    static const int ref[5] = {0, 1, 4, 5, 6};
    double *const field[5] = {&K->s1, &K->s2, &K->s3, &K->s4, &K->s5};
    return xm_search(sc, K, v, 5, ref, field, xm_match_taylor, XM_LONG / 4, sets);
}

/* Pick, for variant v, the one combination of candidates that matches libm.
 * Returns 1 and fills K if exactly one does. */
static int xm_pick(const xm_scan *sc, ccgym_xm_consts *K, int v)
{
    ccgym_xm_consts sets[XM_MAXSETS];
    /* table path: sn3 (ref 0), sn5 (1), cs4 (2), cs6 (3) */
    static const int ref[4] = {0, 1, 2, 3};
    double *const field[4] = {&K->sn3, &K->sn5, &K->cs4, &K->cs6};
    int hits = xm_search(sc, K, v, 4, ref, field, xm_match_table, XM_LONG, sets);
    XM_DEBUG("variant %d: table-path coefficient sets matching libm: %d\n", v, hits);
    if (hits > 1)
        hits = xm_break_ties(sets, hits, v, 0);
    if (hits != 1)
        return 0;
    *K = sets[0];
    hits = xm_pick_poly(sc, K, v, sets);
    if (hits == 0) {
        /* A coefficient may be no double in libm's memory at all: aarch64's
         * glibc builds s1 = -1/6 (0xbfc5555555555555) from move-immediate
         * instructions. Then the rounded Taylor values (generated from
         * mathematics) join the candidates. Only here, where nothing in memory
         * matched: on the table path they would tie with the fitted values. */
        xm_scan with_refs = *sc;
        for (int r = 0; r < XM_NREF; r++)
            xm_add_cand(&with_refs, r, xm_refs[r]);
        hits = xm_pick_poly(&with_refs, K, v, sets);
    }
    XM_DEBUG("variant %d: polynomial coefficient sets matching libm: %d\n", v, hits);
    if (hits > 1)
        hits = xm_break_ties(sets, hits, v, 1);
    if (hits != 1)
        return 0;
    *K = sets[0];
    XM_DEBUG("variant %d: sn3 %a sn5 %a cs4 %a cs6 %a s1 %a s2 %a s3 %a s4 %a s5 %a\n", v, K->sn3,
             K->sn5, K->cs4, K->cs6, K->s1, K->s2, K->s3, K->s4, K->s5);
    return 1;
}
#endif /* CCGYM_XM_CAN_RECOVER */

#if defined(CCGYM_XM_CAN_RECOVER)
/* The lanes of the best ISA the CPU has (CCGYM_EXACT_MATH=scalar: none,
 * =avx2: at most AVX2), taken only if they equal libm on every probe too. */
static void xm_pick_lanes(void)
{
#if (defined(CCGYM_XM_X86_LANES) && defined(CCGYM_X86_DETECT)) || defined(CCGYM_XM_NEON_LANES)
    const char *e = getenv("CCGYM_EXACT_MATH");
    xm_lanes_fn cand[2];
    const char *names[2];
    int nc = 0;
    if (e && strcmp(e, "scalar") == 0)
        return;
#if defined(CCGYM_XM_NEON_LANES)
    cand[nc] = ccgym_xm_lanes_sincos_neon;
    names[nc++] = "neon";
#else
    unsigned isa = ccgym_cpu_isa();
    if ((isa & CCGYM_ISA_AVX512) && (isa & CCGYM_ISA_FMA) && !(e && strcmp(e, "avx2") == 0))
    {
        cand[nc] = ccgym_xm_lanes_sincos_avx512;
        names[nc++] = "avx512";
    }
    if ((isa & CCGYM_ISA_AVX2) && (isa & CCGYM_ISA_FMA))
    {
        cand[nc] = ccgym_xm_lanes_sincos_avx2;
        names[nc++] = "avx2";
    }
#endif
    /* the probes of the self-check that accepted (collected by xm_decide) */
    double *probes = xm_probe_buf;
    double *sv = (double *)malloc((size_t)xm_probe_cap * 2 * sizeof(double));
    xm_probe_buf = NULL;
    if (!probes || !sv) {
        free(probes), free(sv);
        return;
    }
    for (int i = 0; i < nc; i++) {
        cand[i](&xm_k, xm_path, probes, sv, sv + xm_probe_cap, (size_t)xm_probe_len);
        long bad = 0;
        for (long j = 0; j < xm_probe_len; j++)
            bad += (ccgym_xm_bits(sv[j]) != ccgym_xm_bits(sin(probes[j]))) + (ccgym_xm_bits(sv[xm_probe_cap + j]) != ccgym_xm_bits(cos(probes[j])));
        XM_DEBUG("lanes %s: %ld of %ld probes differ\n", names[i], bad, 2 * xm_probe_len);
        if (bad == 0) {
            xm_lanes = cand[i];
            xm_lanes_name = names[i];
            break;
        }
    }
    free(probes);
    free(sv);
#endif
}
#endif

static int xm_env_forces_libm(void)
{
    const char *e = getenv("CCGYM_EXACT_MATH");
    return e && strcmp(e, "libm") == 0;
}

static void xm_decide(void)
{
    xm_math_consts(&xm_k);
    if (xm_env_forces_libm()) {
        xm_path = CCGYM_XM_PATH_LIBM;
        xm_reason = "CCGYM_EXACT_MATH=libm";
        return;
    }
#if !defined(CCGYM_XM_CAN_RECOVER)
    xm_path = CCGYM_XM_PATH_LIBM;
    xm_reason = "not glibc on Linux x86-64/aarch64: scalar libm";
#else
    xm_scan sc;
    memset(&sc, 0, sizeof sc);
    dl_iterate_phdr(xm_phdr_cb, &sc);
    if (!sc.found_libm) {
        xm_path = CCGYM_XM_PATH_LIBM;
        xm_reason = "libm.so not found among the loaded objects: scalar libm";
        return;
    }
    if (!sc.found_table) {
        xm_path = CCGYM_XM_PATH_LIBM;
        xm_reason = "libm's sin/cos table (correctly rounded sin/cos of k/128) not found: scalar libm";
        return;
    }
    for (int r = 0; r < XM_NREF; r++)
        for (int c = 0; c < sc.ncand[r]; c++)
            XM_DEBUG("candidate near %a: %a\n", xm_refs[r], sc.cand[r][c]);
    int fix = 0;
    for (int i = 0; i < 440; i++) {
        if (ccgym_xm_bits(xm_k.tab[i]) != ccgym_xm_bits(sc.table[i]))
            fix++;
        xm_k.tab[i] = sc.table[i];
    }
    xm_fixups = fix;
    static const int order[2] = {CCGYM_XM_PATH_FMA, CCGYM_XM_PATH_NOFMA};
    xm_probe_cap = 200000; /* the self-check's probes, kept for the lanes' check */
    xm_probe_buf = (double *)malloc((size_t)xm_probe_cap * sizeof(double));
    for (int i = 0; i < 2; i++) {
        ccgym_xm_consts K = xm_k;
        if (!xm_pick(&sc, &K, order[i])) {
            XM_DEBUG("variant %d: no unique coefficient set\n", order[i]);
            continue;
        }
        long n = 0, bad;
        xm_probe_len = 0;
        bad = ccgym_xm_selfcheck(&K, order[i], 0, &n);
        XM_DEBUG("variant %d: self-check %ld of %ld probes differ\n", order[i], bad, n);
        if (bad != 0)
            continue;
        xm_k = K;
        xm_path = order[i];
        xm_reason = order[i] == CCGYM_XM_PATH_FMA
                        ? "glibc FMA variant: every self-check probe equal to libm"
                        : "glibc non-FMA variant: every self-check probe equal to libm";
        xm_pick_lanes();
        free(xm_probe_buf); /* when xm_pick_lanes did not take it */
        xm_probe_buf = NULL;
        return;
    }
    free(xm_probe_buf);
    xm_probe_buf = NULL;
    xm_path = CCGYM_XM_PATH_LIBM;
    xm_reason = "self-check refused (no variant equal to libm on every probe): scalar libm";
#endif
}

static void xm_pow2_decide(void);

int ccgym_exact_math_init(void)
{
    if (xm_path < 0) {
        xm_decide();
        xm_pow2_decide();
    }
    return xm_path;
}

/* A refusal's reason, kept in the caller's own buffer (the caller's string
 * may not outlive the call), cut to fit. */
#define XM_REASON_SIZE 256
static void xm_keep_reason(char buf[XM_REASON_SIZE], const char *reason)
{
    size_t n = strlen(reason);
    if (n >= XM_REASON_SIZE)
        n = XM_REASON_SIZE - 1;
    memcpy(buf, reason, n);
    buf[n] = 0;
}

void ccgym_exact_math_refuse(const char *reason)
{
    static char buf[XM_REASON_SIZE];
    xm_keep_reason(buf, reason);
    if (xm_path < 0)
        xm_decide();
    xm_path = CCGYM_XM_PATH_LIBM;
    xm_lanes = NULL;
    xm_lanes_name = "scalar";
    xm_reason = buf;
}

int ccgym_exact_math_path(void)
{
    return xm_path < 0 ? CCGYM_XM_PATH_LIBM : xm_path;
}

const char *ccgym_exact_math_reason(void)
{
    return xm_reason;
}

const ccgym_xm_consts *ccgym_exact_math_consts(void)
{
    return &xm_k;
}

int ccgym_exact_math_table_lo_fixups(void)
{
    return xm_fixups;
}

long ccgym_xm_selfcheck_perturbed(int perturb, long *n_probes)
{
    ccgym_xm_consts K = xm_k;
    int v = xm_path > 0 ? xm_path : CCGYM_XM_PATH_NOFMA;
    int p = CCGYM_XM_PERTURB_NONE;
    switch (perturb) {
    case CCGYM_XM_PERTURB_CONST:
        K.s1 = ccgym_xm_from_bits(ccgym_xm_bits(K.s1) + 1);
        break;
    case CCGYM_XM_PERTURB_DROP_FMA:
        p = perturb;
        break;
    case CCGYM_XM_PERTURB_TABLE_LO: /* one low word (sin(64/128)'s) left out */
        K.tab[4 * 64 + 1] = 0.0;
        break;
    case CCGYM_XM_PERTURB_VARIANT:
        v = v == CCGYM_XM_PATH_FMA ? CCGYM_XM_PATH_NOFMA : CCGYM_XM_PATH_FMA;
        break;
    default:
        break;
    }
    return ccgym_xm_selfcheck(&K, v, p, n_probes);
}

double ccgym_xm_sin(double x)
{
    return xm_path > 0 ? ccgym_xm_sin_with(&xm_k, xm_path, 0, x) : sin(x);
}

double ccgym_xm_cos(double x)
{
    return xm_path > 0 ? ccgym_xm_cos_with(&xm_k, xm_path, 0, x) : cos(x);
}

static int xm_lanes_on = 1;
static int xm_pow2_ok, xm_pow2f_ok;

int ccgym_exact_lanes_active(void)
{
    return xm_lanes != NULL && xm_lanes_on;
}


int ccgym_exact_math_use_lanes(int on)
{
    int was = xm_lanes_on;
    xm_lanes_on = on != 0;
    /* off: the whole per-instance libm step, its squares through pow too */
    ccgym_pow2_fast = xm_lanes_on && xm_pow2_ok;
    ccgym_pow2f_fast = xm_lanes_on && xm_pow2f_ok;
    return was;
}

int ccgym_exact_lanes_isa(void)
{
    if (!ccgym_exact_lanes_active())
        return CCGYM_LANES_OFF;
    if (strcmp(xm_lanes_name, "avx512") == 0)
        return CCGYM_LANES_AVX512;
    if (strcmp(xm_lanes_name, "avx2") == 0)
        return CCGYM_LANES_AVX2;
    return CCGYM_LANES_NEON;
}

const char *ccgym_exact_math_lanes(void)
{
    return xm_path > 0 ? xm_lanes_name : "libm";
}

void ccgym_xm_sincos_array(const double *x, double *s, double *c, size_t n)
{
    if (xm_lanes) {
        xm_lanes(&xm_k, xm_path, x, s, c, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        s[i] = ccgym_xm_sin(x[i]);
        c[i] = ccgym_xm_cos(x[i]);
    }
}

/* ------------------------------------------------------------ pow(x, 2) */

/* src/include/ccgym/npmath.h's ccgym_pow2 takes x * x where its rule allows only
 * once this is 1: set by ccgym_exact_math_init when every probe of
 * ccgym_pow2_selfcheck equals the process's pow(x, 2.0). */
int ccgym_pow2_fast = 0;
int ccgym_pow2f_fast = 0; /* the same for powf(x, 2.0f) (ccgym_pow2f_selfcheck) */
/* (xm_pow2_ok, above: the probes accepted; ccgym_pow2_fast is that while
 * ccgym_exact_math_use_lanes has not switched the lanes off) */
static const char *xm_pow2_reason = "not initialised";

/* |lo| / ulp(hi) of x's exact square hi + lo (the rule's measure), for hi in
 * the rule's range; -1 elsewhere. */
static double xm_sq_frac(double x)
{
    double hi;
    (void)ccgym_pow2_try(x, 0.0, 0, &hi);
    if (!(hi >= 0x1p-900 && hi <= 0x1p900))
        return -1.0;
    const double split = 134217729.0;
    const double c = split * x, xh = c - (c - x), xl = x - xh;
    const double lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl;
    const double e = ccgym_xm_from_bits(ccgym_xm_bits(hi) & UINT64_C(0x7ff0000000000000));
    return fabs(lo) / (e * 0x1p-52);
}

/* One probe x and -x: the rule's result (hi where it takes it, else pow) against pow. */
static long xm_pow2_one(double t_ulp, int drop_lo, double x, long *n)
{
    long bad = 0;
    volatile double two = 2.0; /* pow itself, never folded */
    for (int s = 0; s < 2; s++, x = -x) {
        double r;
        if (!ccgym_pow2_try(x, t_ulp, drop_lo, &r))
            r = pow(x, two);
        bad += ccgym_xm_bits(r) != ccgym_xm_bits(pow(x, two));
        ++*n;
    }
    return bad;
}

/* x in [1, 2) * 2^(k), k uniform in [-40, 40] (a few binades either side of what the envs see). */
static double xm_pow2_random(uint64_t *s)
{
    const double m = 1.0 + (double)(xm_next(s) >> 12) * 0x1p-52;
    return ldexp(m, (int)(xm_next(s) % 81) - 40);
}

long ccgym_pow2_selfcheck(double t, int drop_lo, long *n_probes)
{
    long bad = 0, n = 0;
    const double t_ulp = t * 0x1p-52;
    uint64_t s = UINT64_C(0x706f7732); /* fixed seed: the same probes every run */
    /* random over 81 binades (about 1 in 1200 of these has pow != x * x) */
    for (int i = 0; i < 60000; i++)
        bad += xm_pow2_one(t_ulp, drop_lo, xm_pow2_random(&s), &n);
    /* |lo| just under the threshold T (the rule's edge: taken, must be pow's)
     * and just under 1/2 ulp (where pow rounds the other way: a T too large
     * is caught here); found among random x by the exact square alone. */
    int in_t = 0, in_half = 0;
    for (long i = 0; i < 4000000 && (in_t < 3000 || in_half < 3000); i++) {
        const double x = xm_pow2_random(&s), f = xm_sq_frac(x);
        if (f > CCGYM_POW2_T - 0.01 && f <= CCGYM_POW2_T && in_t < 3000) {
            bad += xm_pow2_one(t_ulp, drop_lo, x, &n);
            in_t++;
        } else if (f > 0.49 && in_half < 3000) {
            bad += xm_pow2_one(t_ulp, drop_lo, x, &n);
            in_half++;
        }
    }
    if (in_t < 3000 || in_half < 3000)
        bad++; /* the probe set must have its edges */
    /* exact midpoints: x = j 2^26 2^k, j odd with 2^53 < j^2 < 2^54 (a 54-bit odd
     * square: a tie of x * x, which pow need not break to even) */
    for (int i = 0; i < 500; i++) {
        uint64_t j = (UINT64_C(94906267) + (xm_next(&s) % UINT64_C(39311471))) | 1; /* in (2^26.5, 2^27) */
        bad += xm_pow2_one(t_ulp, drop_lo, ldexp((double)j, (int)(xm_next(&s) % 41) - 47), &n);
    }
    /* specials: zeros, subnormals, the range ends of the rule, squares that
     * overflow or underflow, powers of two and x * x next to them, inf, NaN */
    static const double sp[] = {0.0, 0x1p-1074, 0x1p-1060, 0x1.fffffffffffffp-1023, 0x1p-1022,
                                1e-300, 1e-200, 1e-160, 0x1p-450, 0x1p450, 1e150, 0x1p511,
                                1.3407807929942596e154, 1e155, 1e200, 1e300, 1.7976931348623157e308,
                                1.0, 2.0, 0.5, 3.0, 0.1, 1.4142135623730951, INFINITY, NAN};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
        for (int d = -3; d <= 3; d++)
            bad += xm_pow2_one(t_ulp, drop_lo, ccgym_xm_from_bits(ccgym_xm_bits(sp[i]) + (uint64_t)(int64_t)d), &n);
    /* around sqrt(2^e) for every e in the range: hi a power of two or next to one */
    for (int e = -900; e <= 900; e++) {
        const double r = sqrt(ldexp(1.0, e));
        for (int d = -2; d <= 2; d++)
            bad += xm_pow2_one(t_ulp, drop_lo, ccgym_xm_from_bits(ccgym_xm_bits(r) + (uint64_t)(int64_t)d), &n);
    }
    if (n_probes)
        *n_probes = n;
    return bad;
}

/* |d - q| / ulp(q) of float x's exact square d and its float q; -1 outside the rule's range. */
static double xm_sqf_frac(float x)
{
    float q;
    (void)ccgym_pow2f_try(x, 0.0, &q);
    if (!(q >= 0x1p-126f && q <= 0x1p127f))
        return -1.0;
    int e;
    (void)frexpf(q, &e);
    return fabs((double)x * (double)x - (double)q) / ldexp(1.0, e - 24);
}

static long xm_pow2f_one(double t_ulp, float x, long *n)
{
    long bad = 0;
    volatile float two = 2.0f;
    for (int s = 0; s < 2; s++, x = -x) {
        float r, p = powf(x, two);
        if (!ccgym_pow2f_try(x, t_ulp, &r))
            r = powf(x, two);
        bad += memcmp(&r, &p, sizeof r) != 0;
        ++*n;
    }
    return bad;
}

static float xm_pow2f_random(uint64_t *s)
{
    const float m = 1.0f + (float)(xm_next(s) >> 41) * 0x1p-23f;
    return ldexpf(m, (int)(xm_next(s) % 61) - 30);
}

long ccgym_pow2f_selfcheck(double t, long *n_probes)
{
    long bad = 0, n = 0;
    const double t_ulp = t * 0x1p-23;
    uint64_t s = UINT64_C(0x706f7766);
    for (int i = 0; i < 60000; i++)
        bad += xm_pow2f_one(t_ulp, xm_pow2f_random(&s), &n);
    int in_t = 0, in_half = 0;
    for (long i = 0; i < 4000000 && (in_t < 3000 || in_half < 3000); i++) {
        const float x = xm_pow2f_random(&s);
        const double f = xm_sqf_frac(x);
        if (f > CCGYM_POW2F_T - 0.01 && f <= CCGYM_POW2F_T && in_t < 3000) {
            bad += xm_pow2f_one(t_ulp, x, &n);
            in_t++;
        } else if (f > 0.49 && in_half < 3000) {
            bad += xm_pow2f_one(t_ulp, x, &n);
            in_half++;
        }
    }
    if (in_t < 3000 || in_half < 3000)
        bad++;
    /* exact float midpoints: x = j 2^k, j odd with 2^24 < j^2 < 2^25 (j in (4096, 5793)) */
    for (uint32_t j = 4097; j < 5793; j += 2)
        bad += xm_pow2f_one(t_ulp, ldexpf((float)j, (int)(xm_next(&s) % 41) - 32), &n);
    static const float sp[] = {0.0f, 0x1p-149f, 0x1p-127f, 0x1p-126f, 1e-30f, 1e-20f, 1e-19f,
                               1e19f, 1.8446743e19f, 1e20f, 1e30f, 3.4028235e38f, 1.0f, 2.0f,
                               0.5f, 3.0f, 0.1f, 1.4142135f, INFINITY, NAN};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
        for (int d = -3; d <= 3; d++) {
            uint32_t u;
            float x;
            memcpy(&u, &sp[i], sizeof u);
            u += (uint32_t)d;
            memcpy(&x, &u, sizeof x);
            bad += xm_pow2f_one(t_ulp, x, &n);
        }
    for (int e = -126; e <= 127; e++) {
        const float r = sqrtf(ldexpf(1.0f, e));
        uint32_t u;
        memcpy(&u, &r, sizeof u);
        for (int d = -2; d <= 2; d++) {
            uint32_t v = u + (uint32_t)d;
            float x;
            memcpy(&x, &v, sizeof x);
            bad += xm_pow2f_one(t_ulp, x, &n);
        }
    }
    if (n_probes)
        *n_probes = n;
    return bad;
}

static void xm_pow2_decide(void)
{
    if (!xm_env_forces_libm()) {
        long nf = 0;
        xm_pow2f_ok = ccgym_pow2f_selfcheck(CCGYM_POW2F_T, &nf) == 0;
        ccgym_pow2f_fast = xm_pow2f_ok && xm_lanes_on;
    }
    long n = 0, bad;
    if (xm_env_forces_libm()) {
        xm_pow2_reason = "CCGYM_EXACT_MATH=libm: every square through pow";
        return;
    }
    bad = ccgym_pow2_selfcheck(CCGYM_POW2_T, 0, &n);
    if (bad) {
        xm_pow2_reason = "pow(x, 2) self-check refused (a probe differs from x * x by the rule): pow";
        return;
    }
    xm_pow2_ok = 1;
    ccgym_pow2_fast = xm_lanes_on;
    xm_pow2_reason = xm_pow2f_ok ? "x * x where |x * x - hi| <= 15/32 ulp (every pow(x, 2) and powf(x, 2) probe equal), else pow"
                                 : "x * x where |x * x - hi| <= 15/32 ulp (every pow(x, 2) probe equal), else pow; float32: powf (its probes refused)";
}

void ccgym_pow2_refuse(const char *reason)
{
    static char buf[XM_REASON_SIZE];
    xm_keep_reason(buf, reason);
    (void)ccgym_exact_math_init();
    xm_pow2_ok = xm_pow2f_ok = 0;
    ccgym_pow2_fast = ccgym_pow2f_fast = 0;
    xm_pow2_reason = buf;
}

int ccgym_pow2_active(void)
{
    return ccgym_pow2_fast | (ccgym_pow2f_fast << 1);
}

const char *ccgym_pow2_reason(void)
{
    return xm_pow2_reason;
}
