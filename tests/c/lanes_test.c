/* Every env's exact SIMD lanes block (ccgym_stock_def.exact_lanes_block, the
 * src/<env>_lanes.c built per ISA) against the per-instance scalar-libm step,
 * bit for bit, on every lanes ISA of this build and CPU: AVX-512 and AVX2 on
 * x86-64, NEON on AArch64 (where it runs under qemu-aarch64-static from the
 * cross build: tools/neon_check.sh). The C counterpart of
 * tests/test_exact_math.py's lanes tests, without Python, so that a cross
 * build can run it.
 *
 * For each def of the registry ccgym_envs[] that has an exact_lanes_block,
 * two batches with the same seeds, params and actions are stepped side by
 * side through ccgym_batch_step: one with the lanes switched off
 * (ccgym_exact_math_use_lanes(0): the per-instance step, libm's sin/cos and
 * pow), one with them on (step_range takes the block driver for
 * CCGYM_EXACT_LANES_MIN instances or more). After every step (and every
 * masked reset) obs, reward, terminated, truncated, the episode bookkeeping,
 * final observations, every state field and every generator must be the
 * same bytes. The runs:
 *   - Gymnasium's defaults, each autoreset mode, a short time limit, N = 1,
 *     17, 64, 259 and 1000 (vector tails and partial blocks; N = 1 is below
 *     CCGYM_EXACT_LANES_MIN, the per-instance step on both sides), actions
 *     from the action space (continuous: within the Box and, one in eight,
 *     outside it);
 *   - every switch flipped and every constructor keyword changed;
 *   - edge states (signed zeros, subnormals, multiples of pi, huge values,
 *     inf, NaN, values beyond fmod's Dekker range) in every float64 state
 *     field, with shared params and with per-instance params (scaled, NaN,
 *     inf, negated, and numpy float32 type tags), zero and NaN actions.
 *
 * The ISAs: exact math picks its lanes once per process at init
 * (src/exact_math.c, xm_pick_lanes: the best the CPU has, at most AVX2 under
 * CCGYM_EXACT_MATH=avx2), so each ISA runs in a child process (fork) that
 * sets that variable before initialising: the default pick, then on x86-64
 * AVX2 when the default was AVX-512. With CCGYM_EXACT_MATH already set the
 * test runs once, in process, with what it picks (libm or scalar: no lanes,
 * reported and passed).
 *
 * Usage: lanes_test [STEPS] (default 200: the steps of each default run;
 * about 35 s under qemu-aarch64-static, 1.5 s natively for two ISAs).
 * Prints one line per env x ISA and "lanes_test: OK"; exits 1 on a mismatch
 * (the first mismatching step, instance and values) or when lanes are off
 * on a build and platform that should have them. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/driver.h"
#include "ccgym/env.h"
#include "ccgym/exactmath.h"
#include "ccgym/nptype.h"
#include "ccgym/rng.h"
#include "test_bufs.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#define LANES_TEST_FORK 1
#endif

static void seed_one(ccgym_pcg64 *g, uint64_t s)
{
    uint32_t words[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
    ccgym_pcg64_seed_words(g, words, (s >> 32) ? 2u : 1u);
}

/* ------------------------------------------------------------- params */

static int ends_with(const char *s, const char *tail)
{
    const size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

enum { PARAMS_DEFAULT = 0, PARAMS_CHANGED = 1, PARAMS_PER_INSTANCE = 2 };

/* n_params params structs of def: Gymnasium's defaults; every switch
 * flipped and every constructor keyword away from its default (a number
 * times 0.75, a zero 0.125: tests/test_exact_math.py's _other_keywords); or
 * per instance (test_lanes_block_edge_states_and_params): each nonzero
 * float input scaled by a uniform factor in [0.5, 1.5), NaN, inf and the
 * negated value on instances 4, 5 and 6, and a type tag (an input named
 * *_t) numpy float32 on every third instance. */
static char *make_params(const ccgym_env_def *def, int how, size_t n_params)
{
    double values[64];
    const ccgym_field *fields[64];
    char *out = (char *)xcalloc(n_params, def->params_size);
    ccgym_pcg64 g;
    seed_one(&g, 11);
    for (size_t i = 0; i < n_params; i++) {
        const int k = default_inputs(def, values, fields);
        for (int j = 0; j < k; j++) {
            const ccgym_field *f = fields[j];
            const double v = values[j];
            if (how == PARAMS_CHANGED) {
                if (f->flags & CCGYM_PARAM_BOOL) {
                    values[j] = v != 0 ? 0.0 : 1.0;
                } else if (f->attr && (f->attr_class & CCGYM_ATTR_KEYWORD)) {
                    const double w = v != 0 ? v * 0.75 : 0.125;
                    if (!(f->attr_class & CCGYM_ATTR_BOUNDED) || (w >= f->lo && w <= f->hi))
                        values[j] = w;
                }
            } else if (how == PARAMS_PER_INSTANCE) {
                if (f->type != CCGYM_FIELD_F64 && ends_with(f->name, "_t")) {
                    if (i % 3 == 0)
                        values[j] = CCGYM_T_F32;
                } else if (f->type == CCGYM_FIELD_F64 && v != 0 &&
                           !(f->flags & (CCGYM_PARAM_BOOL | CCGYM_PARAM_NUMPY_FMA))) {
                    values[j] = v * ccgym_pcg64_uniform(&g, 0.5, 1.5);
                    if (i == 4)
                        values[j] = NAN;
                    else if (i == 5)
                        values[j] = INFINITY;
                    else if (i == 6)
                        values[j] = -v;
                }
            }
        }
        def->params_init(out + i * def->params_size, values);
    }
    return out;
}

/* ------------------------------------------------------------- actions */

/* Step t's actions, a stream of their own (PCG64 seeded with seed + t):
 * discrete in [0, n_actions); continuous float32 within the action Box and,
 * one in eight, up to its width beyond either bound; odd: every 7th a zero
 * and the next a NaN (continuous). */
static void make_actions(const ccgym_env_def *def, size_t n, int64_t t, uint64_t seed, int odd,
                         void *out)
{
    ccgym_pcg64 g;
    seed_one(&g, seed + (uint64_t)t);
    if (def->action_dim == 0) {
        int64_t *a = (int64_t *)out;
        for (size_t i = 0; i < n; i++)
            a[i] = (int64_t)(ccgym_pcg64_next64(&g) % (uint64_t)def->n_actions);
        return;
    }
    const size_t d = (size_t)def->action_dim;
    float *a = (float *)out;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) {
            const double lo = def->action_low ? def->action_low[j] : -1.0;
            const double hi = def->action_high ? def->action_high[j] : 1.0;
            const double w = hi - lo;
            const int outside = ccgym_pcg64_next64(&g) % 8 == 0;
            a[i * d + j] = (float)(outside ? ccgym_pcg64_uniform(&g, lo - w, hi + w)
                                           : ccgym_pcg64_uniform(&g, lo, hi));
            if (odd && i % 7 == 0)
                a[i * d + j] = 0.0f;
            else if (odd && i % 7 == 1)
                a[i * d + j] = NAN;
        }
}

/* ------------------------------------------------------------- edge states */

#define PI_ 3.141592653589793 /* np.pi */
static const double edge_values[] = {
    0.0, -0.0, 1e-310, -1e-310, 5e-324, PI_, -PI_, 2 * PI_, 3 * PI_, 1e6, -1e6,
    4503599627370496.0 /* 2^52 */, 1e17, -1e17, 1e300, -1e300, INFINITY, -INFINITY, NAN, 7.5,
    -7.5, 8.0, -8.0, 1e-200, 2.2250738585072014e-308, 0.25, -4.0,
    /* where floor(a / b) is one too small (beyond fmod's Dekker range) */
    2.2705145737052024e+18, -2.2775439518658577e+21, 2.1216797144779826e+30};
#define N_EDGE (sizeof edge_values / sizeof edge_values[0])

/* Every float64 state value (each element of an array field apart) gets
 * the edge values, field-element j on instances j, j + m, j + 2m, ...
 * (m of them): as test_lanes_block_edge_states_and_params. */
static void put_edges(run_bufs *r)
{
    const ccgym_env_def *def = r->def;
    size_t offs[64], m = 0;
    for (int f = 0; f < def->n_state_fields; f++) {
        const ccgym_field *fl = &def->state_fields[f];
        if (fl->type != CCGYM_FIELD_F64)
            continue;
        for (int e = 0; e < fl->count && m < 64; e++)
            offs[m++] = fl->offset + (size_t)e * sizeof(double);
    }
    for (size_t j = 0; j < m; j++)
        for (size_t k = 0; k < N_EDGE && j + k * m < r->n; k++)
            memcpy(r->state + (j + k * m) * def->state_size + offs[j], &edge_values[k],
                   sizeof(double));
}

/* ------------------------------------------------------------- comparison */

/* The first instance where two runs' per-instance arrays (size bytes per
 * instance) differ, or n. */
static size_t first_diff(const void *a, const void *b, size_t n, size_t size)
{
    if (memcmp(a, b, n * size) == 0)
        return n;
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * size, (const char *)b + i * size, size) != 0)
            return i;
    return n;
}

static void print_f64(const char *what, double x, double y)
{
    uint64_t u, v;
    memcpy(&u, &x, sizeof u);
    memcpy(&v, &y, sizeof v);
    printf("    %-22s libm %-24a (0x%016" PRIx64 ")  lanes %-24a (0x%016" PRIx64 ")%s\n", what, x,
           u, y, v, u != v ? "  <-" : "");
}

/* Compares every output and state of libm run x and lanes run y; on a
 * difference prints the first instance's values and returns 1. */
static int compare(const run_bufs *x, const run_bufs *y, const char *where, int64_t step)
{
    const ccgym_env_def *def = x->def;
    const size_t n = x->n, od = (size_t)def->obs_dim;
    size_t i = n, k;
#define TAKE(A, SIZE)                                                                      \
    do {                                                                                   \
        k = first_diff(x->A, y->A, n, SIZE);                                               \
        i = k < i ? k : i;                                                                 \
    } while (0)
    TAKE(obs, od * sizeof(float));
    TAKE(out_reward, sizeof(double));
    TAKE(out_terminated, 1);
    TAKE(out_truncated, 1);
    TAKE(pending, 1);
    TAKE(episode_start, sizeof(int64_t));
    TAKE(episode_return, sizeof(double));
    TAKE(final_return, sizeof(double));
    TAKE(final_length, sizeof(int64_t));
    TAKE(rng, sizeof(ccgym_pcg64));
    if (x->b.autoreset_mode == CCGYM_AUTORESET_SAME_STEP)
        TAKE(final_obs, od * sizeof(float));
#undef TAKE
    /* the state by its fields (a struct's padding is not compared) */
    for (size_t s = 0; s < n && s < i; s++) {
        const char *a = x->state + s * def->state_size, *b = y->state + s * def->state_size;
        for (int f = 0; f < def->n_state_fields; f++) {
            const ccgym_field *fl = &def->state_fields[f];
            const size_t size = (fl->type == CCGYM_FIELD_I32 ? 4u : 8u) * (size_t)fl->count;
            if (memcmp(a + fl->offset, b + fl->offset, size) != 0) {
                i = s;
                break;
            }
        }
    }
    if (i == n)
        return 0;
    printf("  MISMATCH %s, %s: step %" PRId64 ", instance %lu of %lu\n", def->name, where, step,
           (unsigned long)i, (unsigned long)n);
    for (size_t j = 0; j < od; j++) {
        char what[32];
        snprintf(what, sizeof what, "obs[%lu]", (unsigned long)j);
        print_f64(what, x->obs[i * od + j], y->obs[i * od + j]);
    }
    print_f64("reward", x->out_reward[i], y->out_reward[i]);
    print_f64("episode_return", x->episode_return[i], y->episode_return[i]);
    printf("    %-22s libm %u/%u/%u lanes %u/%u/%u\n", "terminated/truncated/pending",
           x->out_terminated[i], x->out_truncated[i], x->pending[i], y->out_terminated[i],
           y->out_truncated[i], y->pending[i]);
    printf("    %-22s libm %" PRId64 "/%" PRId64 " lanes %" PRId64 "/%" PRId64 "\n",
           "episode_start/final_len", x->episode_start[i], x->final_length[i], y->episode_start[i],
           y->final_length[i]);
    printf("    %-22s %s\n", "rng",
           memcmp(&x->rng[i], &y->rng[i], sizeof x->rng[i]) ? "differ  <-" : "equal");
    for (int f = 0; f < def->n_state_fields; f++) {
        const ccgym_field *fl = &def->state_fields[f];
        for (int e = 0; e < fl->count; e++) {
            const size_t off = i * def->state_size + fl->offset;
            char what[64];
            snprintf(what, sizeof what, "state.%s[%d]", fl->name, e);
            if (fl->type == CCGYM_FIELD_F64) {
                double u, v;
                memcpy(&u, x->state + off + (size_t)e * 8, 8);
                memcpy(&v, y->state + off + (size_t)e * 8, 8);
                print_f64(what, u, v);
            } else if (fl->type == CCGYM_FIELD_I64) {
                int64_t u, v;
                memcpy(&u, x->state + off + (size_t)e * 8, 8);
                memcpy(&v, y->state + off + (size_t)e * 8, 8);
                printf("    %-22s libm %" PRId64 " lanes %" PRId64 "%s\n", what, u, v,
                       u != v ? "  <-" : "");
            } else {
                int32_t u, v;
                memcpy(&u, x->state + off + (size_t)e * 4, 4);
                memcpy(&v, y->state + off + (size_t)e * 4, 4);
                printf("    %-22s libm %d lanes %d%s\n", what, (int)u, (int)v,
                       u != v ? "  <-" : "");
            }
        }
    }
    return 1;
}

/* ------------------------------------------------------------- runs */

typedef struct run_spec {
    const char *name;
    size_t n;
    int mode;
    int64_t max_steps;
    int params;  /* PARAMS_* */
    int edges;   /* edge states after the reset, and odd actions */
    int64_t steps;
} run_spec;

/* Instances stepped and blocks the lanes took, for the report. */
static long long n_compared;

/* Two batches of spec, lanes off and on, stepped side by side; a masked
 * reset every 7 steps (a hashed choice, and in DISABLED mode the instances
 * awaiting one). Returns 1 on the first mismatch. */
static int run_pair(const ccgym_env_def *def, const run_spec *spec)
{
    const size_t n = spec->n;
    const size_t n_params = spec->params == PARAMS_PER_INSTANCE ? n : 1;
    char *params = make_params(def, spec->params, n_params);
    run_bufs r[2];
    for (int k = 0; k < 2; k++) {
        bufs_init(&r[k], def, n, params, n_params, spec->mode, spec->max_steps);
        ccgym_pcg64_seed_range_mask(r[k].rng, 20261204u, n, NULL, 1);
        ccgym_batch_reset(def, &r[k].b, NULL, def->default_a, def->default_b, 1);
        if (spec->edges)
            put_edges(&r[k]);
    }
    free(params);
    const size_t act_bytes =
        def->action_dim == 0 ? sizeof(int64_t) : sizeof(float) * (size_t)def->action_dim;
    void *actions = xcalloc(n, act_bytes);
    uint8_t *mask = (uint8_t *)xcalloc(n, 1);
    char where[96];
    snprintf(where, sizeof where, "%s, N=%lu, mode %d", spec->name, (unsigned long)n, spec->mode);
    int bad = compare(&r[0], &r[1], where, 0);
    for (int64_t t = 1; t <= spec->steps && !bad; t++) {
        make_actions(def, n, t, 1000u + n, spec->edges, actions);
        for (int k = 0; k < 2; k++) {
            (void)ccgym_exact_math_use_lanes(k);
            ccgym_batch_step(def, &r[k].b, actions, 1);
        }
        (void)ccgym_exact_math_use_lanes(1);
        bad = compare(&r[0], &r[1], where, t);
        n_compared += (long long)n;
        if (!bad && t % 7 == 0) {
            for (int k = 0; k < 2; k++) {
                for (size_t i = 0; i < n; i++) {
                    const uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(t * 40503u);
                    mask[i] = (uint8_t)((h >> 11) % 5 == 0);
                    if (spec->mode == CCGYM_AUTORESET_DISABLED && r[k].pending[i])
                        mask[i] = 1;
                }
                (void)ccgym_exact_math_use_lanes(k);
                ccgym_batch_reset(def, &r[k].b, mask, def->default_a, def->default_b, 1);
            }
            (void)ccgym_exact_math_use_lanes(1);
            bad = compare(&r[0], &r[1], where, t);
        }
    }
    free(actions);
    free(mask);
    bufs_free(&r[0]);
    bufs_free(&r[1]);
    return bad;
}

static const size_t sizes[] = {1, 17, 64, 259, 1000};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

/* Every def with a lanes block, on the lanes exact math picked in this
 * process. Returns the number of env x run mismatches. */
static int check_envs(int64_t steps)
{
    const char *isa = ccgym_exact_math_lanes();
    int failed = 0, n_envs = 0;
    for (int e = 0; e < ccgym_num_envs; e++) {
        const ccgym_env_def *def = ccgym_envs[e];
        if (!ccgym_stock_envs[e]->exact_lanes_block) {
            printf("lanes_test %-7s %-24s no lanes block: skipped\n", isa, def->name);
            continue;
        }
        n_envs++;
        n_compared = 0;
        int runs = 0, bad = 0;
        for (int mode = 0; mode < 3; mode++)
            for (size_t s = 0; s < N_SIZES; s++) {
                const run_spec spec = {"defaults", sizes[s], mode, 23, PARAMS_DEFAULT, 0, steps};
                bad += run_pair(def, &spec);
                runs++;
            }
        for (int mode = 0; mode < 2; mode++) {
            const run_spec spec = {"switches and keywords changed", 100, mode, 23, PARAMS_CHANGED,
                                   0, 80};
            bad += run_pair(def, &spec);
            runs++;
        }
        for (int per = 0; per < 2; per++) {
            const run_spec spec = {per ? "edge states, per-instance params" : "edge states",
                                   300, CCGYM_AUTORESET_NEXT_STEP, 0,
                                   per ? PARAMS_PER_INSTANCE : PARAMS_DEFAULT, 1, 20};
            bad += run_pair(def, &spec);
            runs++;
        }
        printf("lanes_test %-7s %-24s %2d runs, %9lld instance-steps: %s\n", isa, def->name,
               runs, n_compared, bad ? "MISMATCH" : "equal to libm");
        failed += bad != 0;
    }
    printf("lanes_test %-7s %d envs with lanes blocks, %d with mismatches\n", isa, n_envs, failed);
    return failed;
}

/* Initialises exact math (with CCGYM_EXACT_MATH as the caller set it) and
 * checks every env on its lanes. Returns 0 (all equal, or lanes off by
 * request), 1 (a mismatch, or lanes off where this build should have them). */
static int run_isa(int64_t steps)
{
    const int path = ccgym_exact_math_init();
    const char *forced = getenv("CCGYM_EXACT_MATH");
    printf("lanes_test: exact math path %d (%s), lanes %s, pow2 %d (%s)%s%s\n", path,
           ccgym_exact_math_reason(), ccgym_exact_math_lanes(), ccgym_pow2_active(),
           ccgym_pow2_reason(), forced ? ", CCGYM_EXACT_MATH=" : "", forced ? forced : "");
    if (!ccgym_exact_lanes_active()) {
        const int by_request = forced && (strcmp(forced, "libm") == 0 || strcmp(forced, "scalar") == 0);
        printf("lanes_test: lanes are OFF (%s): nothing compared\n",
               by_request ? "CCGYM_EXACT_MATH asks for it" : "exact math did not accept them");
#if (defined(CCGYM_BUILD_LANES_X86) || defined(CCGYM_BUILD_LANES_NEON)) && defined(__GLIBC__)
        return by_request ? 0 : 1;
#else
        return 0;
#endif
    }
    return check_envs(steps) != 0;
}

#if defined(LANES_TEST_FORK)
/* run_isa in a child with CCGYM_EXACT_MATH=value (NULL: unset); *isa gets
 * the child's ccgym_exact_lanes_isa(). Returns the child's result. */
static int run_child(const char *value, int64_t steps, int *isa)
{
    int fds[2];
    *isa = CCGYM_LANES_OFF;
    if (pipe(fds) != 0) {
        perror("pipe");
        return 1;
    }
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (value)
            setenv("CCGYM_EXACT_MATH", value, 1);
        else
            unsetenv("CCGYM_EXACT_MATH");
        (void)ccgym_exact_math_init();
        const int got = ccgym_exact_lanes_isa();
        if (write(fds[1], &got, sizeof got) != (ssize_t)sizeof got)
            _exit(2);
        close(fds[1]);
        const int rc = run_isa(steps);
        fflush(stdout);
        _exit(rc);
    }
    close(fds[1]);
    if (read(fds[0], isa, sizeof *isa) != (ssize_t)sizeof *isa)
        *isa = CCGYM_LANES_OFF;
    close(fds[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        printf("lanes_test: child (CCGYM_EXACT_MATH=%s) did not exit normally\n",
               value ? value : "");
        return 1;
    }
    return WEXITSTATUS(status) != 0;
}
#endif

int main(int argc, char **argv)
{
    const int64_t steps = argc > 1 ? (int64_t)strtoll(argv[1], NULL, 10) : 200;
    int failed = 0, n_isas = 0;
#if defined(LANES_TEST_FORK)
    if (getenv("CCGYM_EXACT_MATH")) {
        failed = run_isa(steps);
        n_isas = ccgym_exact_lanes_active();
    } else {
        int isa;
        failed |= run_child(NULL, steps, &isa);
        n_isas = isa != CCGYM_LANES_OFF;
        /* x86-64: the default took AVX-512, so AVX2 (CCGYM_EXACT_MATH=avx2) too */
        if (isa == CCGYM_LANES_AVX512) {
            int isa2;
            failed |= run_child("avx2", steps, &isa2);
            if (isa2 != CCGYM_LANES_AVX2) {
                printf("lanes_test: CCGYM_EXACT_MATH=avx2 did not give AVX2 lanes (%d)\n", isa2);
                failed = 1;
            }
            n_isas = 2;
        }
    }
#else
    failed = run_isa(steps);
    n_isas = ccgym_exact_lanes_active();
#endif
    if (failed) {
        printf("lanes_test: FAILED\n");
        return 1;
    }
    if (n_isas == 0)
        printf("lanes_test: OK (lanes off: nothing compared)\n");
    else
        printf("lanes_test: OK (%d lanes ISA%s)\n", n_isas, n_isas > 1 ? "s" : "");
    return 0;
}
