/* MountainCar's exact step over a block of instances in SIMD lanes: the
 * def's exact_lanes_block (CCGYM_LANES_BLOCK in mountain_car.c), built
 * once per ISA (CMakeLists.txt: every lanes file of src/). The step is the
 * one step body, ccgym_mountain_car_step_body (ccgym/mountain_car.h), at the
 * default's types, over exact math's lanes for math.cos(3 * position), in a
 * branch-free loop the compiler carries into this ISA's lanes
 * (-ffp-contract=off: each operation rounded as written, so every lane gives
 * the per-instance step's bits). Instances the lanes cannot take (numpy-typed
 * attributes or state, a NaN gravity) are recomputed with the scalar body
 * from the same inputs; tests/test_exact_math.py compares the block with the
 * per-instance step bit for bit.
 * Exact only (CCGYM_LANES_ENTRY): the fast builds of this file define
 * nothing, and the env's fast def steps exactly (no trig worth a fast form). */
#include <math.h>

#include "block_book.h"
#include "ccgym/driver.h"
#include "mountain_car.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

CCGYM_ALWAYS_INLINE void mountain_car_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                            size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_mountain_car_state *__restrict st = (ccgym_mountain_car_state *)b->state + lo;
    const ccgym_mountain_car_params *__restrict P =
        (const ccgym_mountain_car_params *)b->params + lo * ps;
    const int64_t *__restrict act = (const int64_t *)actions + lo;
    float *__restrict obs = b->obs + lo * 2;
    double *__restrict reward = b->reward + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    double three[BLOCK], sn[BLOCK], cs[BLOCK], npos[BLOCK], nvel[BLOCK], slow[BLOCK];
    double ret_add[BLOCK], pos[BLOCK], vel[BLOCK];
    int64_t styped[BLOCK], tf[BLOCK];
    /* shared params: a local copy, so that the loop reads them as constants */
    const ccgym_mountain_car_params shared = *P;
    /* 3 * position at the default's types (a Python 3.0 times a float64) */
    for (size_t i = 0; i < m; i++) {
        pos[i] = st[i].position;
        vel[i] = st[i].velocity;
        three[i] = ccgym_num_op(ccgym_num_py(3.0), ccgym_num_of(pos[i], CCGYM_T_F64),
                                CCGYM_OP_MUL)
                       .v;
    }
    for (size_t i = 0; i < m; i++)
        styped[i] = st[i].typed;
    ccgym_block_sincos(three, sn, cs, m);
    for (size_t i = 0; i < m; i++) {
        const ccgym_mountain_car_params *p = ps ? P + i : &shared;
        ccgym_mountain_car_state s, next;
        s.position = pos[i];
        s.velocity = vel[i];
        s.typed = 0;
        s.position_t = s.velocity_t = CCGYM_T_F64;
        double sl = (p->typed | styped[i]) != 0 ? 1.0 : 0.0;
        uint8_t t;
        ccgym_mountain_car_step_body(CCGYM_BLOCK_BK, p, &s, act[i], 0, cs[i], &next, &t, &sl);
        npos[i] = next.position;
        nvel[i] = next.velocity;
        tf[i] = t;
        slow[i] = sl;
    }
    for (size_t i = 0; i < m; i++)
        terminated[i] = (uint8_t)tf[i];
    if (CCGYM_UNLIKELY(ccgym_block_any(slow, m)))
        for (size_t i = 0; i < m; i++) {
            if (slow[i] == 0)
                continue;
            const ccgym_mountain_car_params *p = P + i * ps;
            const int typed = (p->typed | st[i].typed) != 0;
            ccgym_mountain_car_state next;
            double unused = 0;
            ccgym_mountain_car_step_body(0, p, &st[i], act[i], typed, 0.0, &next, &terminated[i],
                                         &unused);
            st[i] = next; /* its types too */
            npos[i] = next.position;
            nvel[i] = next.velocity;
        }
    for (size_t i = 0; i < m; i++) {
        st[i].position = npos[i];
        st[i].velocity = nvel[i];
    }
    for (size_t i = 0; i < m; i++) {
        obs[2 * i + 0] = (float)npos[i];
        obs[2 * i + 1] = (float)nvel[i];
        reward[i] = -1.0;
        ret_add[i] = -1.0;
    }
    fast_book_block(b, lo, m, ret_add, terminated, special);
}

CCGYM_LANES_ENTRY(ccgym_mountain_car, mountain_car_lanes)
