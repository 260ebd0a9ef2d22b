/* Vectorisable double-precision sin/cos for ccgym's opt-in fast mode
 * (precision="fast"). Not bit-exact with libm: within 2 ulp of it on
 * |x| <= CCGYM_FAST_TRIG_MAX (tests/test_fast.py measures it); NaN, inf and
 * larger |x| go to libm. Written to be inlined into loops that GCC
 * vectorises: no branches, no calls, integer work on the bits of doubles.
 * The constants come from tools/fit_sincos.py. */
#ifndef CCGYM_FASTMATH_H_
#define CCGYM_FASTMATH_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The instruction set the fast kernels use: "avx512", "avx2" or "generic"
 * (src/fast_envs.c): the best this CPU has, unless the environment variable
 * CCGYM_FAST_ISA names a lower one or ccgym_fast_use_isa chose one. */
const char *ccgym_fast_isa(void);
/* The fast instruction sets by index, the order of src/fast_envs.c's kernels[]
 * (the `isa` of the calls below, ccgym_fast_isa_index in ccgym/driver.h). */
enum { CCGYM_FAST_GENERIC = 0, CCGYM_FAST_AVX2 = 1, CCGYM_FAST_AVX512 = 2 };
/* Makes the fast kernels use isa (0 generic, 1 avx2, 2 avx512, -1 the best)
 * from now on; returns -1 if this CPU or build lacks it. Not thread-safe:
 * for tests and benchmarks, between steps. */
int ccgym_fast_use_isa(int isa);
/* The fast sin/cos of n doubles with the kernels of isa (0 generic, 1 avx2,
 * 2 avx512, -1 the one in use); returns -1 if this CPU or build lacks it. For tests. */
int ccgym_fast_sincos_array(const double *x, double *s, double *c, size_t n, int isa);

/* Cody-Waite reduction with a three-part pi/2 stays accurate while
 * k = round(x * 2/pi) < 2**20; stop well before. */
#define CCGYM_FAST_TRIG_MAX 1.0e5

/* sin and cos of x for |x| <= CCGYM_FAST_TRIG_MAX (garbage beyond: see
 * ccgym_fast_sincos_n for the guarded version). */
static inline void ccgym_fast_sincos(double x, double *sinx, double *cosx)
{
    /* k = x * 2/pi rounded to nearest: adding 1.5 * 2**52 leaves no fraction
     * bits, and the low mantissa bits of the sum are k mod 2**51. */
    const double shifter = 0x1.8p52;
    const double t = x * 0x1.45f306dc9c883p-1 + shifter;
    const double k = t - shifter;
    uint64_t q;
    memcpy(&q, &t, sizeof q);
    /* r = x - k * pi/2: the first two parts of pi/2 have 33 significant bits,
     * so k times them is exact and the first subtraction cancels exactly. */
    double r = x - k * 0x1.921fb54400000p+0;
    r = r - k * 0x1.0b4611a600000p-34;
    r = r - k * 0x1.3198a2e037073p-69;
    const double z = r * r;
    /* |r| <= pi/4: sin r = r + r z P(z), cos r = 1 - z/2 + z^2 Q(z). */
    const double ps = -0x1.5555555555555p-3 +
                      z * (0x1.1111111110bb2p-7 +
                           z * (-0x1.a01a019e83aaep-13 +
                                z * (0x1.71de37968a0c8p-19 +
                                     z * (-0x1.ae600b02b34c6p-26 + z * 0x1.5e0b19f7da2f5p-33))));
    const double qc = 0x1.5555555555555p-5 +
                      z * (-0x1.6c16c16c16967p-10 +
                           z * (0x1.a01a019f4eb01p-16 +
                                z * (-0x1.27e4fa17da082p-22 +
                                     z * (0x1.1eeb68e939f79p-29 + z * -0x1.907da366cc39dp-37))));
    const double sr = r + (r * z) * ps;
    /* 1 - z/2 loses the low bits of z/2; add them back with the tail. */
    const double hz = 0.5 * z, w = 1.0 - hz;
    const double cr = w + (((1.0 - w) - hz) + (z * z) * qc);
    /* Quadrant k mod 4: swap sin/cos on odd k, then fix the signs. */
    const int odd = (int)(q & 1);
    double s = odd ? cr : sr;
    double c = odd ? sr : cr;
    uint64_t sb, cb;
    memcpy(&sb, &s, sizeof sb);
    memcpy(&cb, &c, sizeof cb);
    sb ^= (q & 2) << 62;
    cb ^= ((q + 1) & 2) << 62;
    memcpy(&s, &sb, sizeof s);
    memcpy(&c, &cb, sizeof c);
    *sinx = s;
    *cosx = c;
}

/* sin and cos of n doubles; out-of-range, NaN and inf inputs take libm. */
static inline void ccgym_fast_sincos_n(const double *__restrict x, double *__restrict s,
                                       double *__restrict c, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        ccgym_fast_sincos(x[i], &s[i], &c[i]);
        bad |= !(fabs(x[i]) <= CCGYM_FAST_TRIG_MAX);
    }
    if (bad) {
        for (size_t i = 0; i < n; i++) {
            if (!(fabs(x[i]) <= CCGYM_FAST_TRIG_MAX)) {
                s[i] = sin(x[i]);
                c[i] = cos(x[i]);
            }
        }
    }
}

#endif /* CCGYM_FASTMATH_H_ */
