/*
 * npy_sincosf.h -- scalar C99 reimplementation of NumPy's float32 sin/cos.
 *
 * Purpose
 * -------
 * Reproduce bit for bit what NumPy 2.4.x returns for np.sin / np.cos on
 * float32 inputs (arrays and numpy.float32 scalars alike; both go through the
 * same ufunc inner loop, a scalar being a loop of length 1).
 *
 * Source followed
 * ---------------
 * numpy/_core/src/umath/loops_trigonometric.dispatch.cpp (NumPy 2.4 era, the
 * Google-Highway port of the older loops_trigonometric.dispatch.c.src;
 * function simd_sincos_f32 and its helpers simd_range_reduction_f32,
 * simd_cosine_poly_f32, simd_sine_poly_f32).  The installed wheel
 * (numpy 2.4.6, manylinux x86-64) was checked to contain exactly this code:
 * symbol simd_sincos_f32(..., SIMD_TRIG_OP) in the X86_V3 and X86_V4
 * dispatch targets, with vfmadd instructions and sinf/cosf@plt fallbacks.
 *
 * Which NumPy dispatch target each variant corresponds to
 * -------------------------------------------------------
 *  - ccgym_npy_sinf / ccgym_npy_cosf:
 *      the NPY_SIMD_FMA3 branch, i.e. the X86_V3 (AVX2+FMA3) and X86_V4
 *      (AVX-512 SKX) targets FLOAT_sin_X86_V3/_V4, FLOAT_cos_X86_V3/_V4.
 *      NumPy picks these on any x86-64 CPU with AVX2+FMA3 (this machine
 *      uses X86_V4).  Highway's MulAdd compiles to a fused multiply-add
 *      there, so every MulAdd below is fmaf(); every plain Mul/Add/Sub is a
 *      plain float operation.  (The AArch64 / VSX targets of NumPy also have
 *      native FMA and run the same algorithm, so this variant should match
 *      them too, given the same libm for the large-argument fallback.)
 *  - ccgym_npy_sinf_nofma / ccgym_npy_cosf_nofma:
 *      the baseline target (X86_V2, i.e. SSE4.2/POPCNT without FMA) entry
 *      points FLOAT_sin / FLOAT_cos.  Without NPY_SIMD_FMA3 NumPy does not
 *      run the polynomial at all: the loop simply calls npy_sinf/npy_cosf,
 *      which are the C library's sinf/cosf.  So this variant is libm.
 *
 * The algorithm (FMA targets), in my own words
 * --------------------------------------------
 *  1. NaN inputs are replaced by 0 before any arithmetic (to avoid raising
 *     FP "invalid"), and at the very end the result for those lanes is
 *     forced to NPY_NANF, the default positive quiet NaN 0x7fc00000 -- the
 *     input NaN's sign/payload is not propagated.
 *  2. Inputs with |x| above a Cody-Waite validity limit (117435.992f for
 *     sin, 71476.0625f for cos) -- including +-inf -- are handed to libm
 *     sinf/cosf one by one.  (So sin(+-inf) is whatever glibc returns,
 *     which is the x86 "default NaN" 0xffc00000 with glibc 2.36.)
 *  3. Otherwise: q = rint(x * 2/pi), rint done with the "add then subtract
 *     1.5*2^23" trick (round-half-even; turns -0 into +0).  In the source
 *     the product and the magic add are separate Highway ops, but in the
 *     compiled wheel GCC fused them: q = fma(x, 2/pi, 1.5*2^23) - 1.5*2^23
 *     (verified in the disassembly of both X86_V3 and X86_V4 targets, and
 *     required for bit parity).
 *  4. Three-step Cody-Waite reduction r = x - q*pi/2 using a 3-part split
 *     of -pi/2, each step one fused multiply-add.
 *  5. With r2 = r*r (plain product), two minimax polynomials evaluated by
 *     Horner with fused multiply-adds:
 *        cos(r) ~ 1 + r2*(c2 + r2*(c4 + r2*(c6 + r2*c8)))
 *        sin(r) ~ r + r*(r2*(s3 + r2*(s5 + r2*(s7 + r2*s9))))
 *     where the innermost sin product r2*(...) is itself computed as
 *     fma(.., r2, +0) (only differs from a plain multiply for a -0 result)
 *     and the final step is fma(p, r, r).
 *  6. Quadrant selection from the integer k = (int)q (plus 1 for cos):
 *     k even -> sine polynomial, k odd -> cosine polynomial;
 *     bit 1 of k set -> negate, implemented as (0 - value).
 *
 * Scalars vs arrays: np.sin(np.float32(x)) goes through the same ufunc
 * inner loop (length 1) as arrays, contiguous or strided, so one function
 * covers both; verified bit-identical on this machine.
 *
 * Verified (numpy 2.4.6, glibc 2.36, AVX-512 CPU, gcc -O0/-O2/-march=native
 * with -ffp-contract=off): all floats in [-4,4] and in 4<|x|<=2^17, 10M
 * random in [-1e6,1e6], specials -- 100% bit-identical to np.sin/np.cos;
 * the _nofma pair is 100% identical with NPY_DISABLE_CPU_FEATURES set to
 * "X86_V3 X86_V4 AVX512_ICL AVX512_SPR" (forcing the baseline loop).
 *
 * Requirements: compile without -ffast-math; fmaf() must be the correctly
 * rounded libm function (it is on glibc / any C99 libm, and GCC/Clang turn
 * it into a single vfmadd instruction when FMA is enabled).  Plain a*b+c
 * must not be contracted: this header uses FP_CONTRACT OFF where honoured,
 * but also compile it with -ffp-contract=off (GCC ignores the pragma).
 * Link with -lm.
 */
#ifndef CCGYM_NPY_SINCOSF_H
#define CCGYM_NPY_SINCOSF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Constants (numerical facts from NumPy's source, required for parity). */
#define CCGYM_NPY_TWO_OVER_PI     0x1.45f306p-1f
#define CCGYM_NPY_NEG_PIO2_HI    -0x1.921fb0p+00f
#define CCGYM_NPY_NEG_PIO2_MID   -0x1.5110b4p-22f
#define CCGYM_NPY_NEG_PIO2_LO    -0x1.846988p-48f
#define CCGYM_NPY_RINT_MAGIC      0x1.800000p+23f
#define CCGYM_NPY_SIN_MAX_ARG     117435.992f
#define CCGYM_NPY_COS_MAX_ARG     71476.0625f

static inline float ccgym_npy__default_nanf(void)
{
    uint32_t bits = 0x7fc00000u;   /* NPY_NANF on x86-64 */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Core of the FMA path, valid for non-NaN |x| <= the Cody-Waite limit.
 * cos_shift = 0 for sine, 1 for cosine. */
static inline float ccgym_npy__sincosf_reduced(float x, int cos_shift)
{
    /* NumPy's source writes Mul(x, 2/pi) then Add(magic) then Sub(magic),
     * but GCC (which builds the wheels, with its default -ffp-contract=fast)
     * contracts the Mul+Add pair into one FMA: the shipped X86_V3 and
     * X86_V4 machine code is `vfmadd (x*2/pi + magic)` followed by a plain
     * add of -magic.  Reproduce what the binary does, not what the source
     * says; using a separately rounded product picks a different quadrant
     * for x*2/pi close to a half-integer (~5e-5 of random |x| < 1e6). */
    float q = fmaf(x, CCGYM_NPY_TWO_OVER_PI, CCGYM_NPY_RINT_MAGIC);
    q = q - CCGYM_NPY_RINT_MAGIC;

    float r = fmaf(q, CCGYM_NPY_NEG_PIO2_HI, x);
    r = fmaf(q, CCGYM_NPY_NEG_PIO2_MID, r);
    r = fmaf(q, CCGYM_NPY_NEG_PIO2_LO, r);
    float r2 = r * r;

    float pc = fmaf(0x1.98e616p-16f, r2, -0x1.6c06dcp-10f);
    pc = fmaf(pc, r2, 0x1.55553cp-05f);
    pc = fmaf(pc, r2, -0x1.000000p-01f);
    pc = fmaf(pc, r2, 0x1.000000p+00f);

    float ps = fmaf(0x1.7d3bbcp-19f, r2, -0x1.a06bbap-13f);
    ps = fmaf(ps, r2, 0x1.11119ap-07f);
    ps = fmaf(ps, r2, -0x1.555556p-03f);
    ps = fmaf(ps, r2, 0.0f);
    ps = fmaf(ps, r, r);

    int32_t k = (int32_t)q + cos_shift;   /* q is integral, |q| < 2^17 */
    float res = (k & 1) ? pc : ps;
    if (k & 2)
        res = 0.0f - res;
    return res;
}

/* --- FMA targets (X86_V3 / X86_V4): NumPy's own SIMD algorithm -------- */

static inline float ccgym_npy_sinf(float x)
{
    if (isnan(x))
        return ccgym_npy__default_nanf();
    if (!(fabsf(x) <= CCGYM_NPY_SIN_MAX_ARG))
        return sinf(x);                       /* libm fallback (incl. inf) */
    return ccgym_npy__sincosf_reduced(x, 0);
}

static inline float ccgym_npy_cosf(float x)
{
    if (isnan(x))
        return ccgym_npy__default_nanf();
    if (!(fabsf(x) <= CCGYM_NPY_COS_MAX_ARG))
        return cosf(x);                       /* libm fallback (incl. inf) */
    return ccgym_npy__sincosf_reduced(x, 1);
}

/* --- Baseline target without FMA (X86_V2): NumPy just calls libm ------ */

static inline float ccgym_npy_sinf_nofma(float x) { return sinf(x); }
static inline float ccgym_npy_cosf_nofma(float x) { return cosf(x); }

#endif /* CCGYM_NPY_SINCOSF_H */
