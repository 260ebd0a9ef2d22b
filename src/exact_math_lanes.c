/* The lane version of src/exact_math.c's sin/cos: the same operations in the
 * same order, across the lanes of an AVX2 or AVX-512 vector. Built once per
 * instruction set with CCGYM_XM_LANES=avx2 or avx512 (CMakeLists.txt), and
 * with the exact files' -ffp-contract=off: the FMA variant's fused operations
 * are explicit fma intrinsics, nothing else is fused. Each lane follows its
 * own range's path of the scalar code: the two table kernels (do_sin and
 * do_cos) are evaluated once per lane on the arguments that range gives them,
 * and sin and cos are picked from them. Lanes beyond the Cody-Waite range
 * (|x| >= 2^26 pi/2, inf, NaN) are computed by scalar libm. */
#include <math.h>
#include <string.h>

#include "ccgym/exactmath.h"
#include "ccgym/exactmath_consts.h"

#if !defined(CCGYM_XM_LANES)
#error "build with CCGYM_XM_LANES=avx2, avx512 or neon"
#endif
#define XM_CAT2(a, b) a##_##b
#define XM_CAT(a, b) XM_CAT2(a, b)
#define XM_NAME(n) XM_CAT(n, CCGYM_XM_LANES)
#define avx2 2
#define avx512 3
#define neon 4
#if CCGYM_XM_LANES == avx512
#define XM_AVX512 1
#elif CCGYM_XM_LANES == neon
#define XM_NEON 1
#endif
#undef avx2
#undef avx512
#undef neon

#if defined(XM_NEON)
#include <arm_neon.h>
#else
#include <immintrin.h>
#endif

#if defined(XM_NEON)
/* AArch64 Advanced SIMD: two doubles; masks are all-ones/zero 64-bit lanes;
 * no gather (two scalar loads). */
#define W 2
typedef float64x2_t V;
typedef int64x2_t VI;
typedef uint64x2_t M;
#define SET1 vdupq_n_f64
#define LOADU vld1q_f64
#define STOREU vst1q_f64
#define ADD vaddq_f64
#define SUB vsubq_f64
#define MUL vmulq_f64
#define FMA(a, b, c) vfmaq_f64(c, a, b)
#define XM_U(a) vreinterpretq_u64_f64(a)
#define XM_D(a) vreinterpretq_f64_u64(a)
#define AND(a, b) XM_D(vandq_u64(XM_U(a), XM_U(b)))
#define OR(a, b) XM_D(vorrq_u64(XM_U(a), XM_U(b)))
#define XOR(a, b) XM_D(veorq_u64(XM_U(a), XM_U(b)))
#define ANDN(a, b) XM_D(vbicq_u64(XM_U(b), XM_U(a))) /* ~a & b */
#define LT(a, b) vcltq_f64(a, b)
#define LE(a, b) vcleq_f64(a, b)
#define SEL(m, a, b) vbslq_f64(m, a, b)
#define MAND(a, b) vandq_u64(a, b)
#define MNOT(a) veorq_u64(a, vdupq_n_u64(~UINT64_C(0)))
#define MBITS(m) ((unsigned)(vgetq_lane_u64(m, 0) & 1u) | (unsigned)(vgetq_lane_u64(m, 1) & 1u) << 1)
#define ITOD vreinterpretq_f64_s64
#define DTOI vreinterpretq_s64_f64
#define ISET1(v) vdupq_n_s64((int64_t)(v))
#define IAND vandq_s64
#define ISHL vshlq_n_s64
#define IADD vaddq_s64
#define ITEST(a, b) vtstq_s64(a, b)
#define GATHER(base, idx) \
    vcombine_f64(vld1_f64((base) + vgetq_lane_s64(idx, 0)), vld1_f64((base) + vgetq_lane_s64(idx, 1)))
#elif defined(XM_AVX512)
#define W 8
typedef __m512d V;
typedef __m512i VI;
typedef __mmask8 M;
#define SET1 _mm512_set1_pd
#define LOADU _mm512_loadu_pd
#define STOREU _mm512_storeu_pd
#define ADD _mm512_add_pd
#define SUB _mm512_sub_pd
#define MUL _mm512_mul_pd
#define FMA _mm512_fmadd_pd
#define AND _mm512_and_pd
#define OR _mm512_or_pd
#define XOR _mm512_xor_pd
#define ANDN _mm512_andnot_pd
#define LT(a, b) _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ)
#define LE(a, b) _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ)
#define SEL(m, a, b) _mm512_mask_blend_pd(m, b, a)
#define MAND(a, b) ((M)((a) & (b)))
#define MNOT(a) ((M)~(a))
#define MBITS(m) ((unsigned)(m))
#define ITOD _mm512_castsi512_pd
#define DTOI _mm512_castpd_si512
#define ISET1 _mm512_set1_epi64
#define IAND _mm512_and_si512
#define ISHL _mm512_slli_epi64
#define IADD _mm512_add_epi64
#define ITEST(a, b) _mm512_test_epi64_mask(a, b)
#define GATHER(base, idx) _mm512_i64gather_pd(idx, base, 8)
#else
#define W 4
typedef __m256d V;
typedef __m256i VI;
typedef __m256d M;
#define SET1 _mm256_set1_pd
#define LOADU _mm256_loadu_pd
#define STOREU _mm256_storeu_pd
#define ADD _mm256_add_pd
#define SUB _mm256_sub_pd
#define MUL _mm256_mul_pd
#define FMA _mm256_fmadd_pd
#define AND _mm256_and_pd
#define OR _mm256_or_pd
#define XOR _mm256_xor_pd
#define ANDN _mm256_andnot_pd
#define LT(a, b) _mm256_cmp_pd(a, b, _CMP_LT_OQ)
#define LE(a, b) _mm256_cmp_pd(a, b, _CMP_LE_OQ)
#define SEL(m, a, b) _mm256_blendv_pd(b, a, m)
#define MAND(a, b) _mm256_and_pd(a, b)
#define MNOT(a) _mm256_xor_pd(a, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)))
#define MBITS(m) ((unsigned)_mm256_movemask_pd(m))
#define ITOD _mm256_castsi256_pd
#define DTOI _mm256_castpd_si256
#define ISET1 _mm256_set1_epi64x
#define IAND _mm256_and_si256
#define ISHL _mm256_slli_epi64
#define IADD _mm256_add_epi64
#define ITEST(a, b) _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(a, b), b))
#define GATHER(base, idx) _mm256_i64gather_pd(base, idx, 8)
#endif

#define NEG(a) XOR(a, SIGN)
#define ABS(a) ANDN(SIGN, a)
#define COPYSIGN(mag, sgn) OR(ANDN(SIGN, mag), AND(SIGN, sgn))

/* The table offset 4k of |x| < 1 rounded to the nearest k/128 (low word of big + |x|). */
#define TABIDX(u) ISHL(IAND(DTOI(u), ISET1(0xffffffffLL)), 2)

/* One pass over W lanes; F: the FMA variant (a constant after inlining). */
static inline __attribute__((always_inline)) void xm_lanes(const ccgym_xm_consts *K, const int F,
                                                           V x, V *so, V *co, unsigned *fallback)
{
    const V SIGN = SET1(-0.0), ZERO = SET1(0.0), HALF = SET1(0.5);
    const V BIG = SET1(K->big), TOINT = SET1(K->toint), HPINV = SET1(K->hpinv);
    const V HP0 = SET1(K->hp0), HP1 = SET1(K->hp1);
    const V SN3 = SET1(K->sn3), SN5 = SET1(K->sn5), CS2 = SET1(K->cs2), CS4 = SET1(K->cs4),
            CS6 = SET1(K->cs6);
    const double *tab = K->tab;

    V ax = ABS(x);
    M inrange = LT(ax, SET1(ccgym_xm_from_bits((uint64_t)CCGYM_XM_K_REDUCE << 32)));
    *fallback = ~MBITS(inrange) & ((1u << W) - 1);
    x = SEL(inrange, x, ZERO); /* keeps the table index in range on the other lanes */
    ax = ABS(x);
    M small = LT(ax, SET1(ccgym_xm_from_bits((uint64_t)CCGYM_XM_K_TABLE << 32)));
    M mid = MAND(MNOT(small), LT(ax, SET1(ccgym_xm_from_bits((uint64_t)CCGYM_XM_K_MID << 32))));
    M red = MNOT(LT(ax, SET1(ccgym_xm_from_bits((uint64_t)CCGYM_XM_K_MID << 32))));

    /* Cody-Waite reduction (every lane; used where red). */
    V t, xn, y, b, db, t1, t2;
    if (F) {
        t = FMA(x, HPINV, TOINT);
        xn = SUB(t, TOINT);
        V nxn = NEG(xn);
        y = FMA(nxn, SET1(K->mp2), FMA(nxn, SET1(K->mp1), x));
        t2 = FMA(nxn, SET1(K->pp3), y);
        db = FMA(nxn, SET1(K->pp3), SUB(y, t2));
        b = FMA(nxn, SET1(K->pp4), t2);
        db = ADD(db, FMA(nxn, SET1(K->pp4), SUB(t2, b)));
    } else {
        t = ADD(MUL(x, HPINV), TOINT);
        xn = SUB(t, TOINT);
        y = SUB(SUB(x, MUL(xn, SET1(K->mp1))), MUL(xn, SET1(K->mp2)));
        t1 = MUL(xn, SET1(K->pp3));
        t2 = SUB(y, t1);
        db = SUB(SUB(y, t2), t1);
        t1 = MUL(xn, SET1(K->pp4));
        b = SUB(t2, t1);
        db = ADD(db, SUB(SUB(t2, b), t1));
    }
    VI n = DTOI(t);
    /* pi/2 - |x| (mid range) */
    V tt = SUB(HP0, ax);
    V am = ADD(tt, HP1);
    V dam = ADD(SUB(tt, am), HP1);

    /* do_sin's argument per range: small (x, 0), mid (am, dam), red (b, db) */
    V sa = SEL(small, x, SEL(mid, am, b));
    V sda = SEL(small, ZERO, SEL(mid, dam, db));
    /* do_cos's: small (x, 0), mid (pi/2 - |x|, hp1), red (b, db) */
    V ca = SEL(small, x, SEL(mid, tt, b));
    V cda = SEL(small, ZERO, SEL(mid, HP1, db));

    /* ---- do_sin(sa, sda) */
    V S;
    {
        V a = sa, da = sda, aa = ABS(a);
        V xx = MUL(a, a), p, tp;
        if (F) {
            p = FMA(FMA(FMA(FMA(SET1(K->s5), xx, SET1(K->s4)), xx, SET1(K->s3)), xx, SET1(K->s2)), xx,
                    SET1(K->s1));
            tp = FMA(FMA(p, a, NEG(MUL(HALF, da))), xx, da);
        } else {
            p = ADD(MUL(ADD(MUL(ADD(MUL(ADD(MUL(SET1(K->s5), xx), SET1(K->s4)), xx), SET1(K->s3)), xx),
                            SET1(K->s2)),
                        xx),
                    SET1(K->s1));
            tp = ADD(MUL(SUB(MUL(p, a), MUL(HALF, da)), xx), da);
        }
        V rt = ADD(a, tp);
        V dx = SEL(LE(a, ZERO), NEG(da), da);
        V u = ADD(BIG, aa);
        VI k = TABIDX(u);
        V r = SUB(aa, SUB(u, BIG));
        V rr = MUL(r, r);
        V sn = GATHER(tab, k), ssn = GATHER(tab + 1, k), cs = GATHER(tab + 2, k), ccs = GATHER(tab + 3, k);
        V s, c, cor;
        if (F) {
            s = ADD(r, FMA(MUL(r, rr), FMA(rr, SN5, SN3), dx));
            c = FMA(r, dx, MUL(rr, FMA(FMA(rr, CS6, CS4), rr, CS2)));
            cor = FMA(s, cs, FMA(NEG(sn), c, FMA(s, ccs, ssn)));
        } else {
            s = ADD(r, ADD(dx, MUL(MUL(r, rr), ADD(SN3, MUL(rr, SN5)))));
            c = ADD(MUL(r, dx), MUL(rr, ADD(CS2, MUL(rr, ADD(CS4, MUL(rr, CS6))))));
            cor = ADD(SUB(ADD(ssn, MUL(s, ccs)), MUL(sn, c)), MUL(cs, s));
        }
        V rs = COPYSIGN(ADD(sn, cor), a);
        S = SEL(LT(aa, SET1(K->taylor_limit)), rt, rs);
    }
    /* ---- do_cos(ca, cda) */
    V C;
    {
        V a = ca, aa = ABS(a);
        V dx = SEL(LT(a, ZERO), NEG(cda), cda);
        V u = ADD(BIG, aa);
        VI k = TABIDX(u);
        V r = ADD(SUB(aa, SUB(u, BIG)), dx);
        V rr = MUL(r, r);
        V sn = GATHER(tab, k), ssn = GATHER(tab + 1, k), cs = GATHER(tab + 2, k), ccs = GATHER(tab + 3, k);
        V s, c, cor;
        if (F) {
            s = FMA(MUL(r, rr), FMA(rr, SN5, SN3), r);
            c = MUL(rr, FMA(FMA(rr, CS6, CS4), rr, CS2));
            cor = FMA(NEG(sn), s, FMA(NEG(cs), c, FMA(NEG(s), ssn, ccs)));
        } else {
            s = ADD(r, MUL(MUL(r, rr), ADD(SN3, MUL(rr, SN5))));
            c = MUL(rr, ADD(CS2, MUL(rr, ADD(CS4, MUL(rr, CS6)))));
            cor = SUB(SUB(SUB(ccs, MUL(s, ssn)), MUL(cs, c)), MUL(sn, s));
        }
        C = ADD(cs, cor);
    }
    /* ---- pick: red lanes by quadrant n (sin: n, cos: n + 1) */
    M odd = ITEST(n, ISET1(1));
    M q2s = ITEST(n, ISET1(2));
    M q2c = ITEST(IADD(n, ISET1(1)), ISET1(2));
    V rsin = SEL(odd, C, S);
    rsin = SEL(q2s, NEG(rsin), rsin);
    V rcos = SEL(odd, S, C);
    rcos = SEL(q2c, NEG(rcos), rcos);
    V sinv = SEL(small, S, SEL(mid, COPYSIGN(C, x), rsin));
    V cosv = SEL(small, C, SEL(mid, S, rcos));
    (void)red;
    sinv = SEL(LT(ax, SET1(ccgym_xm_from_bits((uint64_t)CCGYM_XM_K_TINY_SIN << 32))), x, sinv);
    cosv = SEL(LT(ax, SET1(ccgym_xm_from_bits((uint64_t)CCGYM_XM_K_TINY_COS << 32))), SET1(1.0), cosv);
    *so = sinv;
    *co = cosv;
}

static void xm_run(const ccgym_xm_consts *K, const int F, const double *x, double *s, double *c,
                   size_t n)
{
    size_t i = 0;
    V vs, vc;
    unsigned fb;
    for (; i + W <= n; i += W) {
        xm_lanes(K, F, LOADU(x + i), &vs, &vc, &fb);
        STOREU(s + i, vs);
        STOREU(c + i, vc);
        for (int j = 0; fb; j++, fb >>= 1)
            if (fb & 1) {
                s[i + j] = sin(x[i + j]);
                c[i + j] = cos(x[i + j]);
            }
    }
    if (i < n) {
        double bx[W] = {0}, bs[W], bc[W];
        memcpy(bx, x + i, (n - i) * sizeof(double));
        xm_lanes(K, F, LOADU(bx), &vs, &vc, &fb);
        STOREU(bs, vs);
        STOREU(bc, vc);
        for (size_t j = 0; i + j < n; j++) {
            s[i + j] = (fb >> j) & 1 ? sin(x[i + j]) : bs[j];
            c[i + j] = (fb >> j) & 1 ? cos(x[i + j]) : bc[j];
        }
    }
}

void XM_NAME(ccgym_xm_lanes_sincos)(const ccgym_xm_consts *K, int variant, const double *x, double *s,
                                     double *c, size_t n)
{
    if (variant == CCGYM_XM_PATH_FMA)
        xm_run(K, 1, x, s, c, n);
    else
        xm_run(K, 0, x, s, c, n);
}
