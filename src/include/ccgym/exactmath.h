/* Exact math: double sin/cos that return the same bits as the process's libm
 * (glibc >= 2.28 on x86-64), re-implemented from the algorithm (see
 * src/exact_math.c), so that the exact kernels can run it in SIMD lanes.
 *
 * ccgym_exact_math_init() decides once (idempotent, thread-safe enough to be
 * called at import): it recovers the constants, picks the FMA or non-FMA
 * variant by probing libm, and runs the self-check. Until it has accepted,
 * or if it refuses, every function here is libm's sin/cos. */
#ifndef CCGYM_EXACTMATH_H_
#define CCGYM_EXACTMATH_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A double's bits and back (the constants and probes are bit patterns). */
static inline uint64_t ccgym_xm_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static inline double ccgym_xm_from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

enum {
    CCGYM_XM_PATH_LIBM = 0,  /* scalar libm (the fallback) */
    CCGYM_XM_PATH_NOFMA = 1, /* re-implementation, glibc's non-FMA variant */
    CCGYM_XM_PATH_FMA = 2    /* re-implementation, glibc's FMA variant */
};

/* Perturbations for the self-check's own test (ccgym_xm_selfcheck_perturbed). */
enum {
    CCGYM_XM_PERTURB_NONE = 0,
    CCGYM_XM_PERTURB_CONST = 1,     /* one fitted coefficient (s1) off by one ulp */
    CCGYM_XM_PERTURB_DROP_FMA = 2,  /* one FMA of the FMA variant (do_sin's last) unfused */
    CCGYM_XM_PERTURB_TABLE_LO = 3,  /* one table low word (sin(1/2)'s) left out */
    CCGYM_XM_PERTURB_VARIANT = 4    /* the other variant (FMA <-> non-FMA) */
};

/* The constants the algorithm uses (see src/exact_math.c for where each comes from). */
typedef struct ccgym_xm_consts {
    double big, toint, hpinv, hp0, hp1, mp1, mp2, pp3, pp4, taylor_limit;
    double sn3, sn5, cs2, cs4, cs6; /* table-path polynomial */
    double s1, s2, s3, s4, s5;      /* pure-polynomial sin, |x| < 0.126 */
    double tab[440];                /* k = 0..109: sin_hi, sin_lo, cos_hi, cos_lo */
} ccgym_xm_consts;

int ccgym_exact_math_init(void);          /* the active path (CCGYM_XM_PATH_*) */
int ccgym_exact_math_path(void);
/* Switch to scalar libm for good, with this reason (copied): the binding's
 * numpy check refused. Call before anything steps. */
void ccgym_exact_math_refuse(const char *reason);          /* same, without initialising */
const char *ccgym_exact_math_reason(void); /* why (static string) */
const ccgym_xm_consts *ccgym_exact_math_consts(void);
/* Number of table low words (of 220) that differ from the correctly rounded ones. */
int ccgym_exact_math_table_lo_fixups(void);

/* The active path (libm when the re-implementation is not accepted). */
double ccgym_xm_sin(double x);
double ccgym_xm_cos(double x);
/* A given variant (CCGYM_XM_PATH_NOFMA or _FMA) over given constants, for the
 * checks; perturb is CCGYM_XM_PERTURB_NONE or _DROP_FMA. */
double ccgym_xm_sin_with(const ccgym_xm_consts *k, int variant, int perturb, double x);
double ccgym_xm_cos_with(const ccgym_xm_consts *k, int variant, int perturb, double x);

/* The self-check (probe set against libm) for a variant over constants; returns
 * the number of mismatching probes (0: accepted), *n_probes the probe count. */
long ccgym_xm_selfcheck(const ccgym_xm_consts *k, int variant, int perturb, long *n_probes);
/* The self-check on the recovered constants with one perturbation applied to a
 * copy (the active path is unchanged): the mismatch count. */
long ccgym_xm_selfcheck_perturbed(int perturb, long *n_probes);

/* The lanes in use: "avx512", "avx2", "scalar" (the re-implementation one at a
 * time) or "libm". */
const char *ccgym_exact_math_lanes(void);

/* Whether the exact kernels' block steps use the lanes (exact math accepted
 * with lanes and not switched off); ccgym_exact_math_use_lanes(0) switches
 * the kernels back to their per-instance libm step (the bench's side-by-side
 * row), returning the previous setting. Call it between steps. */
int ccgym_exact_lanes_active(void);
int ccgym_exact_math_use_lanes(int on);

/* The ISA of the lanes exact math chose (CCGYM_LANES_OFF when
 * ccgym_exact_lanes_active() is 0): an env's lanes block (CCGYM_LANES_BLOCK
 * in ccgym/driver.h) runs its build for it. */
enum { CCGYM_LANES_OFF = 0, CCGYM_LANES_AVX2 = 1, CCGYM_LANES_AVX512 = 2, CCGYM_LANES_NEON = 3 };
int ccgym_exact_lanes_isa(void);

/* s[i] = sin(x[i]), c[i] = cos(x[i]) by the active path (lanes where available). */
void ccgym_xm_sincos_array(const double *x, double *s, double *c, size_t n);

/* pow(x, 2.0) by x * x where src/include/ccgym/npmath.h's rule allows (its
 * ccgym_pow2): decided by ccgym_exact_math_init with the probes below.
 * ccgym_pow2_selfcheck: the probes' mismatch count for threshold t (in ulps
 * of x * x; CCGYM_POW2_T is the one in use) and, drop_lo, the exact square's
 * error term left out (the self-check's own test). */
long ccgym_pow2_selfcheck(double t, int drop_lo, long *n_probes);
/* The same for powf(x, 2.0f) (CCGYM_POW2F_T, in float ulps). */
long ccgym_pow2f_selfcheck(double t, long *n_probes);
/* Bit 0: the float64 fast square is on, bit 1: the float32 one. */
int ccgym_pow2_active(void);
const char *ccgym_pow2_reason(void);
/* Switch the fast square off for good, with this reason (copied). */
void ccgym_pow2_refuse(const char *reason);

#endif /* CCGYM_EXACTMATH_H_ */
