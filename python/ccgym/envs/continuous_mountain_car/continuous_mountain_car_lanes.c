/* MountainCarContinuous's exact float32-action step over a block of
 * instances in SIMD lanes: the def's exact_lanes_block (CCGYM_LANES_BLOCK in
 * continuous_mountain_car.c), built once per ISA (CMakeLists.txt: every
 * lanes file of src/). The step is the one step body,
 * ccgym_continuous_mountain_car_step_body (ccgym/continuous_mountain_car.h),
 * at the default's types (a float32 action on a float32 state, Python-float
 * attributes) over exact math's lanes for math.cos(3 * position), in a
 * branch-free loop the compiler carries into this ISA's lanes
 * (-ffp-contract=off: each operation rounded as written, so every lane gives
 * the per-instance step's bits). Instances the lanes cannot take (an action,
 * velocity or position at or past a bound, whose line may change a value's
 * type; the float64 state right after a reset; numpy-typed attributes) are
 * recomputed with the scalar body from the same inputs;
 * tests/test_exact_math.py compares the block with the per-instance step bit
 * for bit.
 * Exact only (CCGYM_LANES_ENTRY): the fast builds of this file define
 * nothing, and the env's fast def steps exactly (no trig worth a fast form). */
#include <math.h>

#include "block_book.h"
#include "continuous_mountain_car.h"
#include "ccgym/driver.h"
#include "fast_kernels.h"

#define BLOCK CCGYM_FAST_BLOCK

CCGYM_ALWAYS_INLINE void cmc_lanes(const ccgym_batch *b, const void *actions, size_t lo,
                                   size_t hi, uint8_t *special, const size_t ps)
{
    const size_t m = hi - lo;
    ccgym_continuous_mountain_car_state *__restrict st =
        (ccgym_continuous_mountain_car_state *)b->state + lo;
    const ccgym_continuous_mountain_car_params *__restrict P =
        (const ccgym_continuous_mountain_car_params *)b->params + lo * ps;
    const float *__restrict act = (const float *)actions + lo;
    float *__restrict obs = b->obs + lo * 2;
    double *__restrict reward = b->reward + lo;
    uint8_t *__restrict terminated = b->terminated + lo;
    double pos[BLOCK], vel[BLOCK], three[BLOCK], sn[BLOCK], cs[BLOCK];
    double npos[BLOCK], nvel[BLOCK], rew[BLOCK], slow[BLOCK];
    int64_t f32[BLOCK], tf[BLOCK];
    /* shared params: a local copy, so that the loop reads them as constants */
    const ccgym_continuous_mountain_car_params shared = *P;
    /* 3 * position at the default's types (a Python 3.0 times a float32) */
    for (size_t i = 0; i < m; i++) {
        pos[i] = st[i].position;
        vel[i] = st[i].velocity;
        const ccgym_num position = ccgym_num_of(ccgym_num_cast(pos[i], CCGYM_T_F32), CCGYM_T_F32);
        three[i] = ccgym_num_op(ccgym_num_py(3.0), position, CCGYM_OP_MUL).v;
    }
    for (size_t i = 0; i < m; i++)
        f32[i] = st[i].state_f32;
    ccgym_block_sincos(three, sn, cs, m);
    for (size_t i = 0; i < m; i++) {
        const ccgym_continuous_mountain_car_params *p = ps ? P + i : &shared;
        ccgym_continuous_mountain_car_state s;
        s.position = pos[i];
        s.velocity = vel[i];
        s.state_f32 = 1;
        double sl = ((p->typed != 0) | (f32[i] == 0)) ? 1.0 : 0.0, r;
        float ob[2];
        uint8_t t;
        ccgym_continuous_mountain_car_step_body(CCGYM_BLOCK_BK, p, &s, act[i], CCGYM_ACTION_F32, CCGYM_T_F32,
                                                0, cs[i], ob, &r, &t, &sl);
        npos[i] = s.position;
        nvel[i] = s.velocity;
        rew[i] = r;
        tf[i] = t;
        slow[i] = sl;
    }
    if (CCGYM_UNLIKELY(ccgym_block_any(slow, m)))
        for (size_t i = 0; i < m; i++) {
            if (slow[i] == 0)
                continue;
            const ccgym_continuous_mountain_car_params *p = P + i * ps;
            ccgym_continuous_mountain_car_state s = st[i];
            const int stt = s.state_f32 ? CCGYM_T_F32 : CCGYM_T_F64;
            double unused = 0, r;
            float ob[2];
            uint8_t t;
            if (p->typed)
                ccgym_continuous_mountain_car_step_body(0, p, &s, act[i], CCGYM_ACTION_F32, stt, 1,
                                                        0.0, ob, &r, &t, &unused);
            else
                ccgym_continuous_mountain_car_step_body(0, p, &s, act[i], CCGYM_ACTION_F32, stt, 0,
                                                        0.0, ob, &r, &t, &unused);
            npos[i] = s.position;
            nvel[i] = s.velocity;
            rew[i] = r;
            tf[i] = t;
        }
    for (size_t i = 0; i < m; i++) {
        st[i].position = npos[i];
        st[i].velocity = nvel[i];
        st[i].state_f32 = 1;
    }
    for (size_t i = 0; i < m; i++) {
        obs[2 * i + 0] = (float)npos[i];
        obs[2 * i + 1] = (float)nvel[i];
        reward[i] = rew[i];
        terminated[i] = (uint8_t)tf[i];
    }
    fast_book_block(b, lo, m, rew, terminated, special);
}

CCGYM_LANES_ENTRY(ccgym_continuous_mountain_car, cmc_lanes)
