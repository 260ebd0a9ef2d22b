/* ccgym's own driver: the batch step and reset every env plugs into (the
 * loop itself, ccgym_drive_step, is the public ccgym/define_env.h's), the
 * thread pool, the exact lanes and fast drivers, and the stock envs' def
 * (ccgym_stock_def: the public def plus the members only ccgym's own envs
 * have, the lanes and fast blocks and the bench ceiling's loop). Private:
 * not installed; a plugin sees only ccgym/ccgym.h.
 * Keep in sync with python/ccgym/_core.pxd. */
#ifndef CCGYM_DRIVER_H_
#define CCGYM_DRIVER_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ccgym/define_env.h"
#include "ccgym/env.h"
#include "ccgym/exactmath.h"
#include "ccgym/fastmath.h"
#include "ccgym/npmath.h"
#include "ccgym/rng.h"

#include "ccgym/portable.h"

/* ------------------------------------------------------------ seeding
 * (src/rng.c; the draws are the public ccgym/rng.h's) */
/* Seeds one generator from the uint32 entropy words of a SeedSequence
 * (numpy's _coerce_to_uint32_array of a non-negative int: little-endian
 * 32-bit words, at least one). */
void ccgym_pcg64_seed_words(ccgym_pcg64 *rng, const uint32_t *words, size_t n_words);

/* Seeds rng[i] with the integer seed base + i, for i in [0, n): the seeds
 * gymnasium's SyncVectorEnv.reset(seed=base) gives its sub-environments.
 * The caller keeps base + n <= 2**64 (base + i is taken modulo 2**64). */
void ccgym_pcg64_seed_range(ccgym_pcg64 *rng, uint64_t base, size_t n);

/* The same for the i where mask[i] is nonzero (all when mask is NULL; the
 * others are left alone), split across up to n_threads threads for a large
 * n. The result does not depend on n_threads. */
void ccgym_pcg64_seed_range_mask(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask,
                                 int n_threads);

/* For the tests: ccgym_pcg64_seed_range_mask on one thread by the given
 * implementation: 0 the scalar reference (ccgym_pcg64_seed_words per seed),
 * 1 the portable lane blocks, 2 the AVX2 lane blocks, -1 the best this CPU
 * runs (what the others use). Returns -1, seeding nothing, when the CPU
 * lacks that one. */
int ccgym_pcg64_seed_range_isa(ccgym_pcg64 *rng, uint64_t base, size_t n, const uint8_t *mask,
                               int isa);

/* The bench ceiling's job (see ccgym/ceiling.h): n instances stepped `steps`
 * times, step t taking row t % n_action_rows of actions. */
typedef struct ccgym_bare_job {
    const void *params;       /* one params struct shared by all instances */
    size_t n;
    int64_t steps;
    void *state;              /* n state structs */
    ccgym_pcg64 *rng;         /* NULL: a terminated instance steps on */
    const void *actions;
    size_t n_action_rows;
    float *obs;
    double *reward;
    uint8_t *terminated;
} ccgym_bare_job;

/* A block kernel: the step of instances [lo, hi) (hi - lo <= 256) of a
 * batch (src/fast_kernels.h's ccgym_fast_block_fn contract). */
typedef void (*ccgym_block_fn)(const struct ccgym_batch *b, const void *actions, size_t lo,
                               size_t hi, uint8_t *special);

/* A stock env's def: the public def (first, so that a stock def's address
 * is its public def's) and what only ccgym's own envs have. */
typedef struct ccgym_stock_def {
    ccgym_env_def def;
    /* precision="fast": this env with the vectorised step (itself when it
     * has none). */
    const struct ccgym_stock_def *fast;
    /* The bench ceiling's bare loop over instances [begin, end). */
    void (*bare_range)(const ccgym_bare_job *job, size_t begin, size_t end);
    /* The exact step of instances [lo, hi) as a block kernel: the env's step
     * body with its sin/cos batched through ccgym/exactmath.h, so in SIMD
     * lanes when those are active; the same bits as step_range. step_range
     * takes it, under the block driver, when ccgym_exact_lanes_active();
     * NULL: none (the per-instance loop). */
    ccgym_block_fn exact_lanes_block;
    /* precision="fast": the fast step of instances [lo, hi) as a block
     * kernel (the exact_lanes_block contract), the fast def's step under the
     * fast driver; NULL: the fast def steps exactly. Built from the env's one
     * block file (src/<env>_lanes.c with the fast backend, CCGYM_FAST_KERNEL). */
    ccgym_block_fn fast_block;
} ccgym_stock_def;

/* The registry (src/envs.c, its list src/envs.def): every stock env's exact
 * def, the first entries of _core.ENV_KINDS (registered plugins follow, in
 * the binding's table); ccgym_envs[k] is &ccgym_stock_envs[k]->def. */
extern const ccgym_stock_def *const ccgym_stock_envs[];
extern const ccgym_env_def *const ccgym_envs[];
extern const int ccgym_num_envs;
/* The stock def whose exact or fast public def is def, or NULL (a plugin's). */
const ccgym_stock_def *ccgym_stock_of(const ccgym_env_def *def);

/* precision="fast": the fast block driver (src/fast_kernels.c, built for the
 * fast ISA in use) over the block `block` of def (its fast_block), and the
 * index of that ISA (ccgym/fastmath.h CCGYM_FAST_*: src/fast_envs.c). */
void ccgym_fast_drive(const ccgym_env_def *def, void (*block)(const struct ccgym_batch *,
                                                              const void *, size_t, size_t,
                                                              uint8_t *),
                      const ccgym_batch *b, const void *actions, size_t begin, size_t end);
int ccgym_fast_isa_index(void);

/* Whether every one of the n discrete actions a[i] is in [0, n_actions)
 * (n_actions > 0): the action check of every discrete step, vectorised for
 * the CPU as the fast kernels are (src/fast_envs.c). */
int ccgym_discrete_in_range(const int64_t *a, size_t n, int64_t n_actions);

/* Runs fn(ctx, begin, end) over [0, n) split into up to n_threads contiguous
 * chunks, on the calling thread and the workers of a persistent pool
 * (src/parallel.c: started on first use, they outlive the call; a child
 * after fork() starts its own). It returns when every chunk is done. One call
 * at a time uses the pool: a concurrent caller runs its loop serially.
 * Returns 0, or -1 if fewer workers could start than asked for (their chunks
 * are then run by those that did: the result is the same). */
int ccgym_parallel_for(void (*fn)(void *ctx, size_t begin, size_t end), void *ctx,
                       size_t n, int n_threads);

/* Fewer instances than this per thread are not worth a thread. */
#define CCGYM_MIN_INSTANCES_PER_THREAD 2048

/* Steps all b->n instances (actions: n int64, or n * action_dim float32, or
 * n * action_dim double when b->action_type is not CCGYM_ACTION_F32),
 * split across up to n_threads threads. Instances are independent, so the
 * result does not depend on n_threads. Advances b->t and keeps the time
 * limit's start_bound. */
void ccgym_batch_step(const ccgym_env_def *def, ccgym_batch *b, const void *actions,
                      int n_threads);
/* Resets the instances where mask is nonzero (all if mask is NULL). The
 * others' obs rows get their last observation again (from saved_obs, else
 * rebuilt by observe_one), so obs may be any array: nothing is read from it. */
void ccgym_batch_reset(const ccgym_env_def *def, ccgym_batch *b, const uint8_t *mask,
                       double a, double bnd, int n_threads);
/* Writes every instance's last observation into out (n * obs_dim floats):
 * saved_obs, else rebuilt from the state by the def's observe_one. Exact for
 * an exact def; for a fast def the exact rebuild of the state (within the
 * fast bound of what its step wrote). */
void ccgym_batch_observe(const ccgym_env_def *def, const ccgym_batch *b, float *out);

/* Exact steps in SIMD lanes (a stock env's ccgym_stock_def.exact_lanes_block): whether
 * they are on (exact math accepted with lanes, src/include/ccgym/exactmath.h, and
 * not switched off), and the block driver that runs them (src/fast_envs.c). */
int ccgym_exact_lanes_active(void);
/* Fewer instances than this in a step_range call take the per-instance step
 * (a block of one costs more than libm: callgrind, Pendulum N=1, 1407 against
 * 782 instructions per step). */
#define CCGYM_EXACT_LANES_MIN 16
void ccgym_exact_lanes_drive(const ccgym_env_def *def,
                             void (*block)(const struct ccgym_batch *, const void *, size_t,
                                           size_t, uint8_t *),
                             const ccgym_batch *b, const void *actions, size_t begin, size_t end);



/* An env's exact lanes block: its exact step body over a block of
 * instances in SIMD lanes, written once in src/<env>_lanes.c as
 * CCGYM_LANES_FN(ccgym_<env>_lanes_block) and built by CMake once per ISA
 * (every src/<env>_lanes.c; the build defines CCGYM_BUILD_LANES_X86 or
 * CCGYM_BUILD_LANES_NEON for the kernels when it does). CCGYM_LANES_BLOCK(NAME),
 * in the env's file, declares those builds and defines the block the def
 * names as .exact_lanes_block = CCGYM_LANES_BLOCK_OF(NAME): the build for
 * ccgym_exact_lanes_isa(). A build without lanes (MSVC, other CPUs, the C
 * test driver) has none: NULL, the per-instance step. */
#define CCGYM_LANES_BLOCK_ARGS                                                               \
    const ccgym_batch *b, const void *actions, size_t lo, size_t hi, uint8_t *special
#if defined(CCGYM_BUILD_LANES_X86)
#define CCGYM_LANES_BLOCK(NAME)                                                              \
    void NAME##_lanes_block_avx2(CCGYM_LANES_BLOCK_ARGS);                                    \
    void NAME##_lanes_block_avx512(CCGYM_LANES_BLOCK_ARGS);                                  \
    static void NAME##_exact_lanes_block(CCGYM_LANES_BLOCK_ARGS)                             \
    {                                                                                        \
        if (ccgym_exact_lanes_isa() == CCGYM_LANES_AVX512)                                   \
            NAME##_lanes_block_avx512(b, actions, lo, hi, special);                          \
        else                                                                                 \
            NAME##_lanes_block_avx2(b, actions, lo, hi, special);                            \
    }
#define CCGYM_LANES_BLOCK_OF(NAME) NAME##_exact_lanes_block
#elif defined(CCGYM_BUILD_LANES_NEON)
#define CCGYM_LANES_BLOCK(NAME) void NAME##_lanes_block_neon(CCGYM_LANES_BLOCK_ARGS);
#define CCGYM_LANES_BLOCK_OF(NAME) NAME##_lanes_block_neon
#else
#define CCGYM_LANES_BLOCK(NAME)
#define CCGYM_LANES_BLOCK_OF(NAME) NULL
#endif
/* An env's fast block (ccgym_env_def.fast_block): the same block file,
 * src/<env>_lanes.c, built once per fast ISA with the fast backend
 * (src/block_book.h), as NAME_fast_block_<isa>. CCGYM_FAST_KERNEL(NAME), in
 * the env's file, declares those builds and defines the block the def names
 * as .fast_block = CCGYM_FAST_KERNEL_OF(NAME): the build for the fast ISA in
 * use (ccgym_fast_isa_index). */
#if defined(CCGYM_FAST_X86)
#define CCGYM_FAST_KERNEL(NAME)                                                               \
    void NAME##_fast_block_generic(CCGYM_LANES_BLOCK_ARGS);                                  \
    void NAME##_fast_block_avx2(CCGYM_LANES_BLOCK_ARGS);                                     \
    void NAME##_fast_block_avx512(CCGYM_LANES_BLOCK_ARGS);                                   \
    static void NAME##_fast_block(CCGYM_LANES_BLOCK_ARGS)                                    \
    {                                                                                        \
        const int isa_ = ccgym_fast_isa_index();                                             \
        if (isa_ == CCGYM_FAST_AVX512)                                                       \
            NAME##_fast_block_avx512(b, actions, lo, hi, special);                           \
        else if (isa_ == CCGYM_FAST_AVX2)                                                    \
            NAME##_fast_block_avx2(b, actions, lo, hi, special);                             \
        else                                                                                 \
            NAME##_fast_block_generic(b, actions, lo, hi, special);                          \
    }
#define CCGYM_FAST_KERNEL_OF(NAME) NAME##_fast_block
#else
#define CCGYM_FAST_KERNEL(NAME) void NAME##_fast_block_generic(CCGYM_LANES_BLOCK_ARGS);
#define CCGYM_FAST_KERNEL_OF(NAME) NAME##_fast_block_generic
#endif
/* In src/<env>_lanes.c (built with CCGYM_XM_LANES=avx2, avx512 or neon):
 * the name of this build's function. */
#define CCGYM_LANES_CAT2_(a, b) a##_##b
#define CCGYM_LANES_CAT_(a, b) CCGYM_LANES_CAT2_(a, b)
#define CCGYM_LANES_FN(name) CCGYM_LANES_CAT_(name, CCGYM_XM_LANES)

/* The bench ceiling's bare loop (ccgym/ceiling.h) over instances [begin, end):
 * the env's own step and reset, inlined as in the driver's loop, without the
 * driver's bookkeeping (no time limit, no episode sums, no autoreset modes).
 * An instance that terminates is reset at once with the env's own reset
 * (default bounds) when generators are given; the reset's observation goes
 * to scratch, so that obs keeps the step's. */
CCGYM_INLINE void ccgym_bare_loop(const ccgym_bare_job *j, size_t begin, size_t end,
                                  size_t state_size, int obs_dim, size_t action_size,
                                  double def_a, double def_b, ccgym_step_fn step,
                                  ccgym_reset_fn reset)
{
    const void *params = j->params;
    char *restrict states = (char *)j->state;
    ccgym_pcg64 *restrict rng = j->rng;
    const char *restrict actions = (const char *)j->actions;
    float *restrict obs = j->obs;
    double *restrict reward = j->reward;
    uint8_t *restrict terminated = j->terminated;
    const size_t row_bytes = j->n * action_size, n_rows = j->n_action_rows;
    const int64_t steps = j->steps;
    float scratch[CCGYM_MAX_OBS_DIM];
    size_t row = 0;
    for (int64_t t = 0; t < steps; t++) {
        const char *a = actions + row * row_bytes;
        for (size_t i = begin; i < end; i++) {
            void *s = states + i * state_size;
            uint8_t term;
            step(params, s, &rng[i], a + i * action_size, obs + i * (size_t)obs_dim, &reward[i],
                 &term);
            terminated[i] = term;
            if (rng && term)
                reset(params, s, &rng[i], def_a, def_b, scratch);
        }
        if (++row == n_rows)
            row = 0;
    }
}

/* A stock env's CCGYM_DEFINE_ENV (ccgym/define_env.h): defines NAME_def and
 * NAME_fast_def (ccgym_stock_def) with the same arguments and, after them,
 * the exact lanes block (CCGYM_LANES_BLOCK_OF(NAME), or NULL) and the fast
 * block (CCGYM_FAST_KERNEL_OF(NAME), or NULL). The exact step takes the lanes
 * block (when lanes are on and the range is large enough) or the public
 * per-instance loop; the fast def is the same env with the fast block under
 * the fast driver where there is one, else the exact step. */
#define CCGYM_DEFINE_STOCK_ENV(NAME, STATE_T, PARAMS_T, ACTION_T, ACTION_DIM, N_ACTIONS,      \
                               OBS_DIM, DEF_A, DEF_B, LANES_BLOCK, FAST_BLOCK, ...)          \
    CCGYM_ENV_CONSTS_(NAME, OBS_DIM, DEF_A, DEF_B)                                           \
    CCGYM_ENV_FNS_(NAME, STATE_T, PARAMS_T, ACTION_T)                                        \
    extern const ccgym_stock_def NAME##_def;                                                 \
    static void NAME##_step_range(const ccgym_batch *b, const void *actions, size_t begin,  \
                                  size_t end)                                               \
    {                                                                                        \
        if (NAME##_def.exact_lanes_block && end - begin >= CCGYM_EXACT_LANES_MIN &&          \
            ccgym_exact_lanes_active()) {                                                    \
            ccgym_exact_lanes_drive(&NAME##_def.def, NAME##_def.exact_lanes_block, b,        \
                                    actions, begin, end);                                    \
            return;                                                                          \
        }                                                                                    \
        ccgym_drive_step(b, actions, sizeof(ACTION_T) * ((ACTION_DIM) ? (ACTION_DIM) : 1),   \
                         begin, end, sizeof(STATE_T), OBS_DIM, DEF_A, DEF_B,                 \
                         NAME##_step_fn, NAME##_reset_fn);                                   \
    }                                                                                        \
    static void NAME##_fast_step_range(const ccgym_batch *b, const void *actions,           \
                                       size_t begin, size_t end)                            \
    {                                                                                        \
        if (NAME##_def.fast_block) {                                                         \
            ccgym_fast_drive(&NAME##_def.def, NAME##_def.fast_block, b, actions, begin, end); \
            return;                                                                          \
        }                                                                                    \
        NAME##_step_range(b, actions, begin, end);                                           \
    }                                                                                        \
    static void NAME##_bare_range(const ccgym_bare_job *j, size_t begin, size_t end)         \
    {                                                                                        \
        ccgym_bare_loop(j, begin, end, sizeof(STATE_T), OBS_DIM,                             \
                        sizeof(ACTION_T) * ((ACTION_DIM) ? (ACTION_DIM) : 1), DEF_A, DEF_B,  \
                        NAME##_step_fn, NAME##_reset_fn);                                    \
    }                                                                                        \
    extern const ccgym_stock_def NAME##_fast_def;                                            \
    const ccgym_stock_def NAME##_def = {                                                     \
        .def = {CCGYM_ENV_DEF_INIT_(NAME, STATE_T, PARAMS_T, ACTION_DIM, N_ACTIONS, OBS_DIM,  \
                                    DEF_A, DEF_B, NAME##_step_range),                        \
                __VA_ARGS__},                                                                \
        .fast = &NAME##_fast_def, .bare_range = NAME##_bare_range,                           \
        .exact_lanes_block = LANES_BLOCK, .fast_block = FAST_BLOCK};                         \
    const ccgym_stock_def NAME##_fast_def = {                                                \
        .def = {CCGYM_ENV_DEF_INIT_(NAME, STATE_T, PARAMS_T, ACTION_DIM, N_ACTIONS, OBS_DIM,  \
                                    DEF_A, DEF_B, NAME##_fast_step_range),                   \
                __VA_ARGS__},                                                                \
        .fast = &NAME##_fast_def, .bare_range = NAME##_bare_range,                           \
        .exact_lanes_block = LANES_BLOCK, .fast_block = FAST_BLOCK};

#endif /* CCGYM_DRIVER_H_ */
