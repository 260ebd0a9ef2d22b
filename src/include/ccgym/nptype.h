/* Values of Gymnasium's step with their numpy 2 (NEP 50) types, for the
 * steps whose precision depends on what the values are: Python floats (or
 * ints), numpy float16, float32 or float64 scalars. The continuous envs'
 * typed steps (src/continuous_mountain_car.c, src/pendulum.c) compute line
 * by line with these; the type tags of their params (CCGYM_T_*) are these.
 *
 * NEP 50: an operation of a numpy scalar with a Python number casts the
 * Python number to the numpy dtype; two numpy scalars promote to the wider
 * dtype; two Python numbers compute in double. numpy int32/int64 scalars
 * within the ints the callers accept (exact as doubles, products below
 * 2**53) compute as float64 values do: every float they meet promotes to
 * float64 with them, and their integer arithmetic is exact. */
#ifndef CCGYM_NPTYPE_H_
#define CCGYM_NPTYPE_H_

#include "ccgym/npmath.h"

/* Inlined at every use even where the compiler would call them: in a step
 * whose tags are constants the type tests then fold away. */
#define CCGYM_NUM_INLINE CCGYM_ALWAYS_INLINE

/* In order of precision after CCGYM_T_PY (promotion takes the larger). */
enum { CCGYM_T_PY = 0, CCGYM_T_F16 = 1, CCGYM_T_F32 = 2, CCGYM_T_F64 = 3 };

typedef struct ccgym_num {
    double v; /* its value, exactly (a float16 or float32 value is a double too) */
    int t;    /* CCGYM_T_* */
} ccgym_num;

CCGYM_NUM_INLINE ccgym_num ccgym_num_of(double v, int t)
{
    ccgym_num r = {v, t};
    return r;
}

CCGYM_NUM_INLINE ccgym_num ccgym_num_py(double v) { return ccgym_num_of(v, CCGYM_T_PY); }

/* v cast to type t, as numpy casts a Python number operand (or a narrower
 * numpy value, exactly). */
CCGYM_NUM_INLINE double ccgym_num_cast(double v, int t)
{
    if (t == CCGYM_T_F32)
        return (double)(float)v;
    if (t == CCGYM_T_F16)
        return ccgym_round_f16(v);
    return v;
}

/* a's value as type t (t at least as wide as a's type or a a Python
 * number): a value of type t already is one. */
CCGYM_NUM_INLINE double ccgym_num_as(ccgym_num a, int t)
{
    return a.t == t ? a.v : ccgym_num_cast(a.v, t);
}

CCGYM_NUM_INLINE int ccgym_num_promote(int a, int b)
{
    if (a == CCGYM_T_PY)
        return b;
    if (b == CCGYM_T_PY)
        return a;
    return a > b ? a : b;
}

enum { CCGYM_OP_ADD, CCGYM_OP_SUB, CCGYM_OP_MUL, CCGYM_OP_DIV };

/* a op b in promote(a, b): float32 arithmetic for float32, float32 rounded to
 * float16 for float16 (numpy's float16 scalar math: exact, float32 having
 * more than twice float16's digits), double otherwise. */
CCGYM_NUM_INLINE ccgym_num ccgym_num_op(ccgym_num a, ccgym_num b, int op)
{
    const int t = ccgym_num_promote(a.t, b.t);
    ccgym_num r = {0.0, t};
    if (t == CCGYM_T_F32 || t == CCGYM_T_F16) {
        const float x = (float)ccgym_num_as(a, t), y = (float)ccgym_num_as(b, t);
        const float z = op == CCGYM_OP_ADD   ? x + y
                        : op == CCGYM_OP_SUB ? x - y
                        : op == CCGYM_OP_MUL ? x * y
                                             : x / y;
        r.v = t == CCGYM_T_F16 ? ccgym_round_f16(z) : (double)z;
    } else {
        r.v = op == CCGYM_OP_ADD   ? a.v + b.v
              : op == CCGYM_OP_SUB ? a.v - b.v
              : op == CCGYM_OP_MUL ? a.v * b.v
                                   : a.v / b.v;
    }
    return r;
}

CCGYM_NUM_INLINE ccgym_num ccgym_num_neg(ccgym_num a) { return ccgym_num_of(-a.v, a.t); }

/* a ** 2: libm pow for Python and numpy float64 values (an int's square is
 * exact either way), powf for a numpy float32 scalar (numpy's scalar power;
 * not always x * x, see ccgym_pow2f), powf rounded to float16 for float16. */
CCGYM_NUM_INLINE ccgym_num ccgym_num_pow2_bk(const int lanes, ccgym_num a, double *slow)
{
    if (a.t == CCGYM_T_F32)
        return ccgym_num_of((double)ccgym_pow2f_bk(lanes, (float)a.v, slow), a.t);
    if (a.t == CCGYM_T_F16)
        return ccgym_num_of(ccgym_round_f16(ccgym_pow2f_bk(lanes, (float)a.v, slow)), a.t);
    return ccgym_num_of(ccgym_pow2_bk(lanes, a.v, slow), a.t);
}

/* (lanes: npmath.h's exact lanes backend, for the step bodies of the lanes
 * blocks) */
CCGYM_NUM_INLINE ccgym_num ccgym_num_pow2(ccgym_num a)
{
    double unused = 0;
    return ccgym_num_pow2_bk(0, a, &unused);
}

/* Comparisons, both sides cast to their promoted type (float32 values
 * compared as floats: the same result, no double round trips). */
CCGYM_NUM_INLINE int ccgym_num_gt(ccgym_num a, ccgym_num b)
{
    const int t = ccgym_num_promote(a.t, b.t);
    if (t == CCGYM_T_F32)
        return (float)a.v > (float)b.v;
    return ccgym_num_as(a, t) > ccgym_num_as(b, t);
}
CCGYM_NUM_INLINE int ccgym_num_lt(ccgym_num a, ccgym_num b) { return ccgym_num_gt(b, a); }
CCGYM_NUM_INLINE int ccgym_num_ge(ccgym_num a, ccgym_num b)
{
    const int t = ccgym_num_promote(a.t, b.t);
    if (t == CCGYM_T_F32)
        return (float)a.v >= (float)b.v;
    return ccgym_num_as(a, t) >= ccgym_num_as(b, t);
}
CCGYM_NUM_INLINE int ccgym_num_eq(ccgym_num a, ccgym_num b)
{
    const int t = ccgym_num_promote(a.t, b.t);
    if (t == CCGYM_T_F32)
        return (float)a.v == (float)b.v;
    return ccgym_num_as(a, t) == ccgym_num_as(b, t);
}

/* a as np.asarray makes it: a Python float becomes a numpy float64 (an
 * operand that is not weak, as np.clip's first argument). */
CCGYM_NUM_INLINE ccgym_num ccgym_num_strong(ccgym_num a)
{
    return a.t == CCGYM_T_PY ? ccgym_num_of(a.v, CCGYM_T_F64) : a;
}

/* np.clip(x, lo, hi) of a numpy value x (a 1-element array) and bounds of
 * any type: the result's type is promote(x, lo, hi), every operand cast to
 * it; NaN in x passes through. */
CCGYM_NUM_INLINE ccgym_num ccgym_num_clip(ccgym_num x, ccgym_num lo, ccgym_num hi)
{
    const int t = ccgym_num_promote(x.t, ccgym_num_promote(lo.t, hi.t));
    if (t == CCGYM_T_F32) /* the same values, compared as floats (no double round trips) */
        return ccgym_num_of((double)ccgym_npy_clipf((float)ccgym_num_as(x, t),
                                                    (float)ccgym_num_as(lo, t),
                                                    (float)ccgym_num_as(hi, t)),
                            t);
    return ccgym_num_of(
        ccgym_npy_clip(ccgym_num_as(x, t), ccgym_num_as(lo, t), ccgym_num_as(hi, t)), t);
}

#endif /* CCGYM_NPTYPE_H_ */
