/* The exact-math re-implementation against the process's libm, bit for bit:
 * random inputs across the ranges of the algorithm, +-ulp sweeps around
 * every branch threshold, each table point and k pi/2. Prints the mismatch
 * count of each part; exits 1 if any. Usage: exact_math_check [N random].
 * Run it under GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA too (the non-FMA
 * variant of libm). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/exactmath.h"
#include "ccgym/npmath.h"
#include "ccgym/exactmath_consts.h"

static uint64_t state = 12345;
static uint64_t next(void)
{
    uint64_t z = (state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Inputs are checked in batches (the lanes see full vectors and tails). */
#define BATCH 4099
static long n_checked, n_bad;
static double bx[BATCH], bs[BATCH], bc[BATCH];
static int blen;

static void flush(void)
{
    ccgym_xm_sincos_array(bx, bs, bc, (size_t)blen);
    for (int i = 0; i < blen; i++) {
        double x = bx[i];
        long bad = (ccgym_xm_bits(bs[i]) != ccgym_xm_bits(sin(x))) + (ccgym_xm_bits(bc[i]) != ccgym_xm_bits(cos(x)));
        if (bad && n_bad < 10)
            printf("  mismatch x=%a sin %a/%a cos %a/%a\n", x, bs[i], sin(x), bc[i], cos(x));
        n_bad += bad;
    }
    n_checked += 2 * blen;
    blen = 0;
}

/* Queues x; returns the mismatches found so far since the last call of take(). */
static void check(double x)
{
    bx[blen++] = x;
    if (blen == BATCH)
        flush();
}

static long take(void)
{
    static long seen;
    flush();
    long r = n_bad - seen;
    seen = n_bad;
    return r;
}

static long sweep(double x, int ulps)
{
    uint64_t u = ccgym_xm_bits(fabs(x));
    for (int i = -ulps; i <= ulps; i++) {
        check(ccgym_xm_from_bits(u + (uint64_t)(int64_t)i));
        check(-ccgym_xm_from_bits(u + (uint64_t)(int64_t)i));
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000000L;
    int path = ccgym_exact_math_init();
    printf("lanes %s\n", ccgym_exact_math_lanes());
    printf("path %d: %s; table low words differing from correctly rounded: %d\n", path,
           ccgym_exact_math_reason(), ccgym_exact_math_table_lo_fixups());
    if (path == CCGYM_XM_PATH_LIBM) {
#if defined(__GLIBC__) && (defined(__x86_64__) || defined(__aarch64__))
        printf("FAIL: the re-implementation was not accepted on glibc x86-64/aarch64\n");
        return 1;
#else
        printf("skipped: not glibc x86-64/aarch64, exact math is scalar libm here\n");
        return 0;
#endif
    }
    const ccgym_xm_consts *K = ccgym_exact_math_consts();
    long total = 0;
    /* random: uniform in log |x| over [2^-30, 2^27] (every range), and uniform per range */
    static const double edges[] = {1e-9, 1.49e-8, 0.126, 0.85546875, 2.4262, 10.0, 1e3, 1e5, 1.05e8};
    int nr = (int)(sizeof edges / sizeof edges[0]) - 1;
    long bad = 0;
    for (long i = 0; i < n / 2; i++) {
        double u = (double)(next() >> 11) * (1.0 / 9007199254740992.0);
        double x = exp2(-30.0 + 57.0 * u);
        check((i & 1) ? -x : x);
    }
    bad = take();
    printf("random log-uniform |x| in [2^-30, 2^27]: %ld inputs, %ld mismatches\n", n / 2, bad);
    total += bad;
    bad = 0;
    for (long i = 0; i < n / 2; i++) {
        int r = (int)(i % nr);
        double u = (double)(next() >> 11) * (1.0 / 9007199254740992.0);
        double x = edges[r] + (edges[r + 1] - edges[r]) * u;
        check((i & 2) ? -x : x);
    }
    bad = take();
    printf("random uniform per range (%d ranges): %ld inputs, %ld mismatches\n", nr, n / 2, bad);
    total += bad;
    bad = 0;
    static const uint32_t th[] = {CCGYM_XM_K_TINY_COS, CCGYM_XM_K_TINY_SIN, CCGYM_XM_K_TABLE,
                                  CCGYM_XM_K_MID, CCGYM_XM_K_REDUCE};
    for (int t = 0; t < 5; t++)
        bad += sweep(ccgym_xm_from_bits((uint64_t)th[t] << 32), 100000);
    bad += sweep(K->taylor_limit, 100000);
    bad = take();
    printf("+-1e5 ulps around the 6 branch thresholds: %ld mismatches\n", bad);
    total += bad;
    bad = 0;
    for (int k = 0; k <= 2 * CCGYM_XM_TABLE_N; k++)
        bad += sweep(k / 256.0, 2000);
    bad = take();
    printf("+-2000 ulps around each table point and midpoint k/256: %ld mismatches\n", bad);
    total += bad;
    bad = 0;
    for (long k = 1; k <= 100000; k++)
        bad += sweep(k * K->hp0 + k * K->hp1, 20);
    for (int i = 0; i < 100000; i++) {
        double k = floor((double)(next() >> 11) * (1.0 / 9007199254740992.0) * 6.7e7);
        bad += sweep(k * K->hp0 + k * K->hp1, 5);
    }
    bad = take();
    printf("+-20 ulps around k pi/2, k <= 1e5, +-5 ulps at 1e5 random k < 6.7e7: %ld mismatches\n", bad);
    total += bad;
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e300, -1e300, 5e-324, 2.2250738585072014e-308, 1.0e8, 105414357.0, 6.7e7};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        check(special[i]);
    flush();
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        double s1, c1;
        ccgym_xm_sincos_array(&special[i], &s1, &c1, 1);
        if (isnan(special[i]) ? !(isnan(s1) && isnan(c1)) : (ccgym_xm_bits(s1) != ccgym_xm_bits(sin(special[i])) || ccgym_xm_bits(c1) != ccgym_xm_bits(cos(special[i])))) {
            printf("  special %a: sin %a cos %a\n", special[i], s1, c1);
            total++;
        }
    }
    /* ccgym_fmod (include/ccgym/npmath.h) against libm's fmod */
    bad = 0;
    long nf = 0;
    static const double bs_[] = {6.283185307179586, 1.0, 3.0, 0.1, 1e-250, 1e250, 2.5e-300, 7e299, -6.283185307179586};
    for (size_t j = 0; j < sizeof bs_ / sizeof bs_[0]; j++) {
        double b = bs_[j];
        for (long i = 0; i < n / 100; i++) {
            double u = (double)(next() >> 11) * (1.0 / 9007199254740992.0);
            double a = b * exp2(-4.0 + 60.0 * u) * ((i & 1) ? -1 : 1);
            if (i % 7 == 0) /* near multiples of b */
                a = ccgym_xm_from_bits(ccgym_xm_bits(floor(a / b) * b) + (uint64_t)(int64_t)(i % 5 - 2));
            double r1 = ccgym_fmod(a, b), r2 = fmod(a, b);
            nf++;
            if (ccgym_xm_bits(r1) != ccgym_xm_bits(r2)) {
                if (bad < 5)
                    printf("  fmod mismatch a=%a b=%a: %a vs %a\n", a, b, r1, r2);
                bad++;
            }
        }
    }
    static const double fsp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 5e-324, 1e308};
    for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 7; j++) {
            double r1 = ccgym_fmod(fsp[i], fsp[j]), r2 = fmod(fsp[i], fsp[j]);
            nf++;
            if (!(isnan(r1) && isnan(r2)) && ccgym_xm_bits(r1) != ccgym_xm_bits(r2))
                bad++;
        }
    printf("ccgym_fmod vs fmod: %ld pairs, %ld mismatches\n", nf, bad);
    total += bad;
    printf("total: %ld values checked, %ld mismatches\n", n_checked, total);
    return total != 0;
}
