/* The C core's own test driver: plain C, no Python. tools/wine_check.sh
 * builds it natively (gcc, and once under ASan/UBSan) and for Windows with
 * MinGW-w64, which it runs under Wine. It checks what does not depend on the
 * platform's libm, so it holds on Wine (whose libm is not Microsoft's) as on
 * glibc:
 *   - seeding: numpy's PCG64 streams (tests/c/pcg64_kat.h, generated with
 *     numpy by tests/c/gen_pcg64_kat.py), through every seeding path (one
 *     seed, seed ranges across the 2**32 carry, each seeding ISA, masks, 1
 *     and several threads), and the 128-bit multiply against __int128;
 *   - every env of the registry ccgym_envs[] (exact and fast defs, every
 *     fast ISA the CPU has, the three autoreset modes, a time limit, masked
 *     resets) stepped through ccgym_batch_step / ccgym_batch_reset on 1, 2, 3
 *     and 4 threads: the outputs and final buffers must be the same bytes;
 *   - snapshots: the batch's buffers copied, stepped on, restored, stepped
 *     again: the same bytes;
 *   - the bench ceiling's loop and clocks run (src/threads.h's clocks).
 * Prints one line per check group and "driver_test: OK" at the end; exits 1
 * on the first failure. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/ceiling.h"
#include "ccgym/driver.h"
#include "ccgym/env.h"
#include "ccgym/fastmath.h"
#include "ccgym/portable.h"
#include "ccgym/rng.h"
#include "test_bufs.h"
#include "pcg64_kat.h"

static int failures;

#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
            failures++;                                                               \
            if (failures > 20)                                                        \
                exit(1);                                                              \
        }                                                                             \
    } while (0)

/* FNV-1a, 64-bit: a digest of output bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001B3ULL;
    }
    return h;
}
#define FNV_INIT 0xCBF29CE484222325ULL

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* ------------------------------------------------------------- seeding */

static void check_mul128(void)
{
    /* The portable product against a reference built from 32-bit limbs by
     * long multiplication, and (where it exists) against __int128. */
    ccgym_pcg64 g;
    const uint32_t w[1] = {7};
    ccgym_pcg64_seed_words(&g, w, 1);
    int n = 0;
    for (int k = 0; k < 100000; k++) {
        uint64_t a = ccgym_pcg64_next64(&g), b = ccgym_pcg64_next64(&g);
        if (k < 64) { /* the edges too */
            a = (k & 1) ? ~(uint64_t)0 : a;
            b = (k & 2) ? ~(uint64_t)0 : b;
            a = (k & 4) ? 0 : a;
        }
        uint64_t hi, lo = ccgym_mul64_wide(a, b, &hi);
        uint32_t x[2] = {(uint32_t)a, (uint32_t)(a >> 32)}, y[2] = {(uint32_t)b, (uint32_t)(b >> 32)};
        uint64_t z[4] = {0, 0, 0, 0};
        for (int i = 0; i < 2; i++) {
            uint64_t carry = 0;
            for (int j = 0; j < 2; j++) {
                uint64_t t = (uint64_t)x[i] * y[j] + z[i + j] + carry;
                z[i + j] = (uint32_t)t;
                carry = t >> 32;
            }
            z[i + 2] += carry;
        }
        const uint64_t rlo = z[0] | (z[1] << 32), rhi = z[2] | (z[3] << 32);
        CHECK(lo == rlo && hi == rhi, "mul64_wide(%016" PRIx64 ", %016" PRIx64 ")", a, b);
#if defined(__SIZEOF_INT128__)
        const unsigned __int128 p = (unsigned __int128)a * b;
        CHECK(lo == (uint64_t)p && hi == (uint64_t)(p >> 64), "mul64_wide vs __int128");
#endif
        n++;
    }
#if defined(CCGYM_NO_INT128)
    const char *path = "32-bit limbs (CCGYM_NO_INT128)";
#elif defined(CCGYM_MSVC_X64)
    const char *path = "_umul128";
#elif defined(CCGYM_MSVC_ARM64)
    const char *path = "__umulh";
#elif defined(__SIZEOF_INT128__)
    const char *path = "unsigned __int128";
#else
    const char *path = "compiler intrinsic";
#endif
    printf("mul128: %d products exact, path %s\n", n, path);
}

static void check_stream(const ccgym_pcg64 *seeded, const kat_entry *e, const char *how)
{
    ccgym_pcg64 g = *seeded;
    CHECK(g.state.lo == e->state_lo && g.state.hi == e->state_hi && g.inc.lo == e->inc_lo &&
              g.inc.hi == e->inc_hi,
          "%s: seed %" PRIu64 ": state/inc differ from numpy", how, e->seed);
    for (int k = 0; k < KAT_N_RAW; k++) {
        const uint64_t v = ccgym_pcg64_next64(&g);
        CHECK(v == e->raw[k], "%s: seed %" PRIu64 ": raw %d is %016" PRIx64 ", numpy %016" PRIx64,
              how, e->seed, k, v, e->raw[k]);
    }
    g = *seeded;
    for (int k = 0; k < KAT_N_DOUBLE; k++) {
        const double d = ccgym_pcg64_next_double(&g);
        CHECK(same_double(d, e->dbl[k]), "%s: seed %" PRIu64 ": double %d %a, numpy %a", how,
              e->seed, k, d, e->dbl[k]);
    }
}

static void seed_one(ccgym_pcg64 *g, uint64_t s)
{
    uint32_t words[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
    ccgym_pcg64_seed_words(g, words, (s >> 32) ? 2u : 1u);
}

static void check_seeding(void)
{
    int isas = 0;
    for (size_t k = 0; k < KAT_COUNT; k++) {
        const kat_entry *e = &kat[k];
        ccgym_pcg64 g;
        seed_one(&g, e->seed);
        check_stream(&g, e, "seed_words");
        /* The seed as instance 5 of a range base + i; every seeding ISA. */
        if (e->seed >= 5) {
            ccgym_pcg64 r[40];
            for (int isa = 0; isa <= 2; isa++) {
                memset(r, 0, sizeof r);
                if (ccgym_pcg64_seed_range_isa(r, e->seed - 5, 40, NULL, isa) != 0)
                    continue; /* this CPU lacks it */
                if (k == 0 || isa + 1 > isas)
                    isas = isa + 1;
                check_stream(&r[5], e, isa == 0 ? "range scalar" : isa == 1 ? "range lanes" : "range avx2");
            }
        }
    }
    /* Ranges: the lane paths and the threaded split against the scalar
     * reference, across the low word's carry, with and without a mask. */
    const size_t n = 40000; /* > 2 * SEED_MIN_PER_THREAD (8192): threads split it */
    ccgym_pcg64 *ref = (ccgym_pcg64 *)xcalloc(n, sizeof *ref);
    ccgym_pcg64 *got = (ccgym_pcg64 *)xcalloc(n, sizeof *got);
    uint8_t *mask = (uint8_t *)xcalloc(n, 1);
    for (size_t i = 0; i < n; i++)
        mask[i] = (uint8_t)((i * 2654435761u >> 7) % 3 == 0);
    const uint64_t bases[3] = {0, 0xFFFFFFFFULL - 20000, 0xFFFFFFFFFFFFFFFFULL - n + 1};
    for (int bi = 0; bi < 3; bi++) {
        for (int masked = 0; masked < 2; masked++) {
            const uint8_t *m = masked ? mask : NULL;
            memset(ref, 0xAB, n * sizeof *ref);
            CHECK(ccgym_pcg64_seed_range_isa(ref, bases[bi], n, m, 0) == 0, "scalar seeding");
            for (int isa = 1; isa <= 2; isa++) {
                memset(got, 0xAB, n * sizeof *got);
                if (ccgym_pcg64_seed_range_isa(got, bases[bi], n, m, isa) != 0)
                    continue;
                CHECK(memcmp(ref, got, n * sizeof *got) == 0, "seed isa %d base %" PRIu64, isa,
                      bases[bi]);
            }
            for (int threads = 1; threads <= 4; threads++) {
                memset(got, 0xAB, n * sizeof *got);
                ccgym_pcg64_seed_range_mask(got, bases[bi], n, m, threads);
                CHECK(memcmp(ref, got, n * sizeof *got) == 0, "seed_range_mask %d threads", threads);
            }
            if (!masked) {
                memset(got, 0xAB, n * sizeof *got);
                ccgym_pcg64_seed_range(got, bases[bi], n);
                CHECK(memcmp(ref, got, n * sizeof *got) == 0, "seed_range");
            }
        }
    }
    free(ref);
    free(got);
    free(mask);
    printf("seeding: %d numpy streams (state, raw, doubles), %d seeding ISAs, ranges on 1-4 threads\n",
           (int)KAT_COUNT, isas);
}

/* ---------------------------------------------------------------- envs */

/* A batch of n instances of def at Gymnasium's default params (shared). */
static void env_bufs_init(run_bufs *r, const ccgym_env_def *def, size_t n, int mode,
                          int64_t max_steps)
{
    double values[64], params[64];
    const ccgym_field *fields[64];
    default_inputs(def, values, fields);
    CHECK(def->params_size <= sizeof params, "%s: params too large", def->name);
    def->params_init(params, values);
    bufs_init(r, def, n, params, 1, mode, max_steps);
}

/* Copies every buffer of src and its batch's counters into dst (same env and n). */
static void bufs_copy(run_bufs *dst, const run_bufs *src)
{
    const size_t n = src->n, od = (size_t)src->def->obs_dim;
    memcpy(dst->state, src->state, n * src->def->state_size);
    memcpy(dst->rng, src->rng, n * sizeof *src->rng);
    memcpy(dst->episode_start, src->episode_start, n * sizeof(int64_t));
    memcpy(dst->pending, src->pending, n);
    memcpy(dst->terminated, src->terminated, n);
    memcpy(dst->truncated, src->truncated, n);
    memcpy(dst->out_terminated, src->out_terminated, n);
    memcpy(dst->out_truncated, src->out_truncated, n);
    memcpy(dst->episode_return, src->episode_return, n * sizeof(double));
    memcpy(dst->reward, src->reward, n * sizeof(double));
    memcpy(dst->out_reward, src->out_reward, n * sizeof(double));
    memcpy(dst->final_return, src->final_return, n * sizeof(double));
    memcpy(dst->final_length, src->final_length, n * sizeof(int64_t));
    memcpy(dst->obs, src->obs, n * od * sizeof(float));
    memcpy(dst->final_obs, src->final_obs, n * od * sizeof(float));
    dst->b.t = src->b.t;
    dst->b.start_bound = src->b.start_bound;
    dst->b.start_scan = src->b.start_scan;
    dst->b.check_truncation = src->b.check_truncation;
}

/* The digest of everything a step hands out, and the batch's own state. */
static uint64_t digest(const run_bufs *r, uint64_t h)
{
    const size_t n = r->n, od = (size_t)r->def->obs_dim;
    h = fnv(h, r->obs, n * od * sizeof(float));
    h = fnv(h, r->out_reward, n * sizeof(double));
    h = fnv(h, r->out_terminated, n);
    h = fnv(h, r->out_truncated, n);
    h = fnv(h, r->pending, n);
    h = fnv(h, r->episode_start, n * sizeof(int64_t));
    h = fnv(h, r->episode_return, n * sizeof(double));
    h = fnv(h, r->final_return, n * sizeof(double));
    h = fnv(h, r->final_length, n * sizeof(int64_t));
    if (r->b.autoreset_mode == CCGYM_AUTORESET_SAME_STEP)
        h = fnv(h, r->final_obs, n * od * sizeof(float));
    return h;
}

static uint64_t digest_state(const run_bufs *r)
{
    uint64_t h = fnv(FNV_INIT, r->state, r->n * r->def->state_size);
    return fnv(h, r->rng, r->n * sizeof *r->rng);
}

/* Step t's actions: a deterministic stream of its own (a PCG64 seeded with
 * 1000 + t): discrete in [0, n_actions), continuous float32 in a range a
 * little wider than the action spaces' (out of range is clipped). */
static void make_actions(const ccgym_env_def *def, size_t n, int64_t t, void *out)
{
    ccgym_pcg64 g;
    seed_one(&g, 1000u + (uint64_t)t);
    if (def->action_dim == 0) {
        int64_t *a = (int64_t *)out;
        for (size_t i = 0; i < n; i++)
            a[i] = (int64_t)(ccgym_pcg64_next64(&g) % (uint64_t)def->n_actions);
    } else {
        float *a = (float *)out;
        for (size_t i = 0; i < n * (size_t)def->action_dim; i++)
            a[i] = (float)ccgym_pcg64_uniform(&g, -2.5, 5.0);
    }
}

/* A masked reset every RESET_EVERY steps: the instances a hash picks, and in
 * DISABLED mode those awaiting a reset too. */
#define RESET_EVERY 7

static void masked_reset(run_bufs *r, int64_t t, uint8_t *mask, int n_threads)
{
    for (size_t i = 0; i < r->n; i++) {
        uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(t * 40503u);
        mask[i] = (uint8_t)((h >> 11) % 5 == 0);
        if (r->b.autoreset_mode == CCGYM_AUTORESET_DISABLED && r->pending[i])
            mask[i] = 1;
    }
    ccgym_batch_reset(r->def, &r->b, mask, r->def->default_a, r->def->default_b, n_threads);
}

typedef struct run_result {
    uint64_t steps;   /* digest of every step's outputs */
    uint64_t state;   /* digest of the final state and RNGs */
    uint64_t snap;    /* digest of the steps after a restored snapshot */
    long episodes;    /* episodes that ended (for the report) */
} run_result;

#define N_STEPS 60
#define SNAP_AT 30
#define SNAP_STEPS 15

/* One run: seed, full reset, N_STEPS steps with masked resets; at SNAP_AT a
 * snapshot of every buffer, SNAP_STEPS steps, the snapshot restored, the
 * same SNAP_STEPS steps again: both must match. */
static run_result run_env(const ccgym_env_def *def, size_t n, int mode, int n_threads)
{
    run_bufs r;
    env_bufs_init(&r, def, n, mode, 50);
    const size_t act_bytes =
        def->action_dim == 0 ? sizeof(int64_t) : sizeof(float) * (size_t)def->action_dim;
    void *actions = xcalloc(n, act_bytes);
    uint8_t *mask = (uint8_t *)xcalloc(n, 1);
    ccgym_pcg64_seed_range_mask(r.rng, 123456789u, n, NULL, n_threads);
    ccgym_batch_reset(def, &r.b, NULL, def->default_a, def->default_b, n_threads);
    run_result res = {FNV_INIT, 0, FNV_INIT, 0};
    res.steps = fnv(res.steps, r.obs, n * (size_t)def->obs_dim * sizeof(float));
    for (int64_t t = 1; t <= N_STEPS; t++) {
        if (t == SNAP_AT) {
            /* The snapshot: every buffer and the batch's counters. */
            run_bufs snap;
            env_bufs_init(&snap, def, n, mode, 50);
            bufs_copy(&snap, &r);
            uint64_t first = FNV_INIT, again = FNV_INIT;
            for (int pass = 0; pass < 2; pass++) {
                uint64_t h = FNV_INIT;
                for (int64_t u = 0; u < SNAP_STEPS; u++) {
                    make_actions(def, n, t + u, actions);
                    ccgym_batch_step(def, &r.b, actions, n_threads);
                    h = digest(&r, h);
                }
                h = fnv(h, r.state, n * def->state_size);
                h = fnv(h, r.rng, n * sizeof *r.rng);
                if (pass == 0)
                    first = h;
                else
                    again = h;
                bufs_copy(&r, &snap); /* restored: the second pass, then the main run */
            }
            CHECK(first == again, "%s mode %d threads %d: a restored snapshot steps otherwise",
                  def->name, mode, n_threads);
            res.snap = first;
            bufs_free(&snap);
        }
        make_actions(def, n, t, actions);
        ccgym_batch_step(def, &r.b, actions, n_threads);
        for (size_t i = 0; i < n; i++)
            res.episodes += r.out_terminated[i] | r.out_truncated[i];
        res.steps = digest(&r, res.steps);
        if (t % RESET_EVERY == 0) {
            masked_reset(&r, t, mask, n_threads);
            res.steps = digest(&r, res.steps);
        }
    }
    res.state = digest_state(&r);
    free(actions);
    free(mask);
    bufs_free(&r);
    return res;
}

static void check_envs(size_t n)
{
    static const char *const mode_names[3] = {"next_step", "same_step", "disabled"};
    int best_fast = 0;
    while (ccgym_fast_use_isa(best_fast + 1) == 0)
        best_fast++;
    for (int e = 0; e < ccgym_num_envs; e++) {
        const ccgym_stock_def *exact = ccgym_stock_envs[e];
        /* The exact def, then the fast def with each fast ISA the CPU has. */
        const int n_variants = exact->fast != exact ? 2 + best_fast : 1;
        for (int v = 0; v < n_variants; v++) {
            const ccgym_env_def *def = v == 0 ? &exact->def : &exact->fast->def;
            if (v > 0)
                CHECK(ccgym_fast_use_isa(v - 1) == 0, "fast isa %d", v - 1);
            /* Every autoreset mode for the exact def and the best fast ISA;
             * SAME_STEP (final observations) for the lower fast ISAs. */
            const int all_modes = v == 0 || v == n_variants - 1;
            for (int mode = all_modes ? 0 : 1; mode < (all_modes ? 3 : 2); mode++) {
                const run_result one = run_env(def, n, mode, 1);
                static const int thread_counts[2] = {3, 4};
                for (int ti = 0; ti < 2; ti++) {
                    const int threads = thread_counts[ti];
                    const run_result many = run_env(def, n, mode, threads);
                    CHECK(one.steps == many.steps && one.state == many.state &&
                              one.snap == many.snap,
                          "%s%s mode %s: %d threads differ from 1", def->name,
                          v ? " (fast)" : "", mode_names[mode], threads);
                }
                CHECK(one.episodes > 0, "%s: no episode ended", def->name);
                printf("env %-28s %-9s %-9s episodes %6ld steps %016" PRIx64 " state %016" PRIx64
                       "\n",
                       def->name, v == 0 ? "exact" : ccgym_fast_isa(), mode_names[mode],
                       one.episodes, one.steps, one.state);
            }
        }
        (void)ccgym_fast_use_isa(-1);
    }
    printf("envs: %d envs, exact and fast (%d fast ISAs), 3 autoreset modes, %lu instances, "
           "1, 3 and 4 threads equal, snapshots equal\n",
           ccgym_num_envs, best_fast + 1, (unsigned long)n);
}

/* CartPole's reset from seed s: numpy's uniform(-0.05, 0.05, 4). */
static void check_cartpole_reset(void)
{
    const ccgym_env_def *def = NULL;
    for (int e = 0; e < ccgym_num_envs; e++)
        if (strcmp(ccgym_envs[e]->name, "CartPole") == 0)
            def = ccgym_envs[e];
    CHECK(def != NULL, "CartPole not in the registry");
    if (!def)
        return;
    const size_t n = KAT_COUNT;
    run_bufs r;
    env_bufs_init(&r, def, n, CCGYM_AUTORESET_NEXT_STEP, 0);
    for (size_t k = 0; k < n; k++)
        seed_one(&r.rng[k], kat[k].seed);
    ccgym_batch_reset(def, &r.b, NULL, def->default_a, def->default_b, 1);
    static const char *const names[4] = {"x", "x_dot", "theta", "theta_dot"};
    for (size_t k = 0; k < n; k++) {
        for (int j = 0; j < 4; j++) {
            double v = 0.0;
            for (int f = 0; f < def->n_state_fields; f++)
                if (strcmp(def->state_fields[f].name, names[j]) == 0)
                    memcpy(&v, r.state + k * def->state_size + def->state_fields[f].offset,
                           sizeof v);
            CHECK(same_double(v, kat[k].cartpole[j]), "CartPole reset seed %" PRIu64 " %s: %a, numpy %a",
                  kat[k].seed, names[j], v, kat[k].cartpole[j]);
            CHECK(r.obs[4 * k + (size_t)j] == (float)kat[k].cartpole[j], "CartPole reset obs");
        }
    }
    bufs_free(&r);
    printf("cartpole reset: %d seeds equal numpy's uniform(-0.05, 0.05, 4)\n", (int)n);
}

/* The bench ceiling (threads and both clocks of src/threads.h). */
static void check_ceiling(void)
{
    const ccgym_env_def *def = ccgym_envs[0];
    const size_t n = 3 * CCGYM_MIN_INSTANCES_PER_THREAD;
    run_bufs r;
    env_bufs_init(&r, def, n, CCGYM_AUTORESET_NEXT_STEP, 0);
    ccgym_pcg64_seed_range(r.rng, 7, n);
    ccgym_batch_reset(def, &r.b, NULL, def->default_a, def->default_b, 1);
    void *actions = xcalloc(n, sizeof(int64_t));
    make_actions(def, n, 1, actions);
    char *state2 = (char *)xcalloc(n, def->state_size);
    ccgym_pcg64 *rng2 = (ccgym_pcg64 *)xcalloc(n, sizeof *rng2);
    memcpy(state2, r.state, n * def->state_size);
    memcpy(rng2, r.rng, n * sizeof *rng2);
    const ccgym_stock_def *stock = ccgym_stock_of(def);
    const double wall = ccgym_ceiling_run(def, stock, n, 40, r.state, r.rng, actions, 1, r.obs,
                                          r.reward, r.terminated, 1, 0,
                                          ccgym_exact_lanes_active());
    const double cpu = ccgym_ceiling_run(def, stock, n, 40, state2, rng2, actions, 1,
                                         r.final_obs, r.out_reward, r.out_terminated, 3, 1,
                                         ccgym_exact_lanes_active());
    CHECK(wall >= 0.0 && cpu >= 0.0, "ceiling clocks: %g %g", wall, cpu);
    CHECK(memcmp(r.state, state2, n * def->state_size) == 0 && memcmp(r.rng, rng2, n * sizeof *rng2) == 0,
          "ceiling: 3 threads differ from 1");
    free(actions);
    free(state2);
    free(rng2);
    bufs_free(&r);
    printf("ceiling: 1 and 3 threads equal (wall %.3f s, cpu clock %.3f s)\n", wall, cpu);
}

int main(int argc, char **argv)
{
    size_t n = 4 * CCGYM_MIN_INSTANCES_PER_THREAD + 37; /* 4 threads each get a chunk */
    if (argc > 1)
        n = (size_t)strtoul(argv[1], NULL, 10);
    printf("driver_test: fast ISA %s, cpu features 0x%x\n", ccgym_fast_isa(), ccgym_cpu_isa());
    check_mul128();
    check_seeding();
    check_cartpole_reset();
    check_envs(n);
    check_ceiling();
    if (failures) {
        printf("driver_test: %d FAILED\n", failures);
        return 1;
    }
    printf("driver_test: OK\n");
    return 0;
}
