/* Scalar arithmetic exactly as numpy 2 and CPython do it, for the spots where
 * Gymnasium's envs lean on their semantics: `x ** 2` on numpy scalars and
 * `math.pow` call libm pow (which is not always x * x), numpy's float `%`,
 * np.clip's NaN propagation, and Python's builtin min/max.
 * Build with -fno-builtin-pow -fno-builtin-powf so that the compiler does not
 * turn pow(x, 2.0) into x * x. */
#ifndef CCGYM_NPMATH_H_
#define CCGYM_NPMATH_H_

#include <math.h>

/* numpy float64 scalar ** 2, Python float ** 2, math.pow(x, 2). */
static inline double ccgym_pow2(double x) { return pow(x, 2.0); }
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
/* numpy float32 scalar ** 2 (powf: not always x * x in float32, near the
 * subnormals at least; see tools/check_pow_squares.c). */
static inline float ccgym_pow2f(float x) { return powf(x, 2.0f); }

/* numpy's npy_remainder for float64 (`a % b` on numpy scalars): the result has
 * the sign of b. */
static inline double ccgym_npy_remainder(double a, double b)
{
    double mod = fmod(a, b);
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

/* np.clip on a float64 scalar: NaN passes through. */
static inline double ccgym_npy_clip(double x, double lo, double hi)
{
    if (isnan(x))
        return x;
    x = x > lo ? x : lo;
    return x < hi ? x : hi;
}

/* np.clip on a float32 scalar with Python-float bounds (cast to float32). */
static inline float ccgym_npy_clipf(float x, float lo, float hi)
{
    if (isnan(x))
        return x;
    x = x > lo ? x : lo;
    return x < hi ? x : hi;
}

/* Python's min(max(x, lo), hi): the first argument wins ties and NaN. */
static inline double ccgym_py_bound(double x, double lo, double hi)
{
    double r = (lo > x) ? lo : x;
    return (hi < r) ? hi : r;
}

#endif /* CCGYM_NPMATH_H_ */
