/* The reference ceiling (see ccgym/ceiling.h). Each stock env's bare loop is
 * its stock def's bare_range (CCGYM_DEFINE_STOCK_ENV, ccgym_bare_loop in
 * ccgym/driver.h):
 * the same inline step and reset, the same state structs and the same
 * default parameters as the real path, so the ceiling computes what the real
 * path computes by construction. What it leaves out is what the real path
 * adds: the driver's time limit and episode bookkeeping, the autoreset modes,
 * the action check and the Python call.
 *
 * An instance that terminates is reset at once (when generators are given)
 * with its env's own reset, so that the ceiling keeps stepping the states the
 * real path steps. Without a reset a fallen CartPole runs on past its
 * thresholds, its angle grows into libm's slower argument ranges and its
 * terminated flag turns into a coin toss: within 16 steps from live states
 * 74% are down, and that loop was 20% slower than the real path.
 *
 * An env whose exact step runs in SIMD lanes (its def's exact_lanes_block,
 * taken by the real path when exact math's lanes are on) has the same
 * block as its bare loop then: the same math as the real path, a block of
 * CCGYM_FAST_BLOCK instances at a time, over a batch view with no time
 * limit (the block's own bookkeeping of an ordinary step, a few adds per
 * instance, is the only driver work it keeps).
 *
 * A plugin's def has no bare loop: its ceiling is its own step_range over
 * such a view, in SAME_STEP mode (a terminated instance is reset at once with
 * the default bounds, as the bare loop does), so it keeps the driver's
 * bookkeeping of an ordinary step. */
#include <stdlib.h>

#include "ccgym/ceiling.h"

#include "ccgym/driver.h"
#include "ccgym/env.h"
#include "fast_kernels.h"
#include "threads.h"

/* Wall time (monotonic) or the calling thread's CPU time, in seconds. */
static double now_seconds(int cpu_clock)
{
    return cpu_clock ? ccgym_thread_cpu_seconds() : 1e-9 * (double)ccgym_monotonic_ns();
}

typedef struct ceiling_ctx {
    const ccgym_env_def *def;
    const ccgym_stock_def *stock; /* NULL: a plugin's def (its step_range over `lanes`) */
    const ccgym_bare_job *job;
    const ccgym_batch *lanes; /* non-NULL: the bare loop of the exact lanes block */
} ceiling_ctx;

/* The bare loop over the def's exact_lanes_block, instances [begin, end). */
static void ceiling_lanes_range(const ceiling_ctx *c, size_t begin, size_t end)
{
    const ccgym_env_def *def = c->def;
    const ccgym_bare_job *j = c->job;
    const size_t action_size = def->n_actions ? sizeof(int64_t) : sizeof(float) * (size_t)def->action_dim;
    const size_t row_bytes = j->n * action_size;
    uint8_t special[CCGYM_FAST_BLOCK];
    float scratch[CCGYM_MAX_OBS_DIM];
    size_t row = 0;
    for (int64_t t = 0; t < j->steps; t++) {
        const char *a = (const char *)j->actions + row * row_bytes;
        for (size_t lo = begin; lo < end; lo += CCGYM_FAST_BLOCK) {
            const size_t hi = end - lo < CCGYM_FAST_BLOCK ? end : lo + CCGYM_FAST_BLOCK;
            c->stock->exact_lanes_block(c->lanes, a, lo, hi, special);
            if (j->rng)
                for (size_t i = lo; i < hi; i++)
                    if (j->terminated[i])
                        def->reset_one(j->params, (char *)j->state + i * def->state_size, &j->rng[i],
                                       def->default_a, def->default_b, scratch);
        }
        if (++row == j->n_action_rows)
            row = 0;
    }
}

/* A plugin's step_range over the view, instances [begin, end). */
static void ceiling_step_range(const ceiling_ctx *c, size_t begin, size_t end)
{
    const ccgym_env_def *def = c->def;
    const ccgym_bare_job *j = c->job;
    const size_t action_size = def->action_dim ? sizeof(float) * (size_t)def->action_dim
                                               : sizeof(int64_t);
    const size_t row_bytes = j->n * action_size;
    size_t row = 0;
    for (int64_t t = 0; t < j->steps; t++) {
        def->step_range(c->lanes, (const char *)j->actions + row * row_bytes, begin, end);
        if (++row == j->n_action_rows)
            row = 0;
    }
}

static void ceiling_chunk(void *ctx, size_t begin, size_t end)
{
    const ceiling_ctx *c = (const ceiling_ctx *)ctx;
    if (c->stock == NULL)
        ceiling_step_range(c, begin, end);
    else if (c->lanes)
        ceiling_lanes_range(c, begin, end);
    else
        c->stock->bare_range(c->job, begin, end);
}

/* Large enough for any env's params struct and its params_init inputs. */
#define CEILING_MAX_PARAMS 64

double ccgym_ceiling_run(const ccgym_env_def *def, const ccgym_stock_def *stock, size_t n, int64_t steps, void *state, void *rng,
                         const void *actions, size_t n_action_rows, float *obs, double *reward,
                         uint8_t *terminated, int n_threads, int cpu_clock, int exact_lanes)
{
    if (def == NULL || n_action_rows == 0)
        return -1.0;
    if (stock == NULL && (def->step_range == NULL || def->obs_dim > CCGYM_MAX_OBS_DIM ||
                          (def->action_dim == 0 && def->n_actions == 0)))
        return -1.0;
    double values[CEILING_MAX_PARAMS];
    double params[CEILING_MAX_PARAMS]; /* doubles: aligned for any params struct */
    if (def->params_size > sizeof params || def->n_param_fields > CEILING_MAX_PARAMS)
        return -1.0;
    int k = 0;
    for (int f = 0; f < def->n_param_fields; f++)
        if (def->param_fields[f].flags & CCGYM_PARAM_INPUT)
            values[k++] = def->param_fields[f].value;
    def->params_init(params, values);
    ccgym_bare_job job = {params, n, steps, state, (ccgym_pcg64 *)rng, actions,
                          n_action_rows, obs, reward, terminated};
    ceiling_ctx ctx = {def, stock, &job, NULL};
    /* The real path's exact lanes, as the real path takes them (its
     * step_range: exact_lanes_block, lanes on, at least CCGYM_EXACT_LANES_MIN
     * instances), over a batch view: the job's arrays, shared params, no time
     * limit, and zeroed bookkeeping arrays for the block to write. */
    ccgym_batch view;
    void *book = NULL;
    const int plugin = stock == NULL;
    if (plugin || (exact_lanes && stock->exact_lanes_block && n >= CCGYM_EXACT_LANES_MIN)) {
        /* A plugin's SAME_STEP view also needs final observations, returns
         * and lengths (and nothing reads them). */
        const size_t per = 2 * sizeof(int64_t) + 2 +
                           (plugin ? sizeof(float) * (size_t)def->obs_dim + 2 * sizeof(int64_t)
                                   : 0);
        book = calloc(n * per + 8, 1); /* (+ 8: the aligned tail below) */
        if (book == NULL)
            return -1.0;
        memset(&view, 0, sizeof view);
        view.n = n;
        view.state = state;
        view.params = params;
        view.params_stride = 0;
        view.rng = (ccgym_pcg64 *)rng;
        view.episode_start = (int64_t *)book;
        view.episode_return = (double *)((int64_t *)book + n);
        view.truncated = (uint8_t *)((int64_t *)book + 2 * n);
        view.pending_reset = view.truncated + n;
        view.obs = obs;
        view.reward = reward;
        view.terminated = terminated;
        if (plugin) {
            int64_t *tail = (int64_t *)(view.pending_reset + n);
            tail = (int64_t *)(((uintptr_t)tail + 7u) & ~(uintptr_t)7u);
            view.final_return = (double *)tail;
            view.final_length = tail + n;
            view.final_obs = (float *)(tail + 2 * n);
            /* No generators: a terminated instance steps on, as the bare loop's. */
            view.autoreset_mode = rng ? CCGYM_AUTORESET_SAME_STEP : CCGYM_AUTORESET_DISABLED;
        }
        ctx.lanes = &view;
    }
    size_t most = n / CCGYM_MIN_INSTANCES_PER_THREAD;
    if (most < 1)
        most = 1;
    if (n_threads < 1)
        n_threads = 1;
    if ((size_t)n_threads > most)
        n_threads = (int)most;
    const double t0 = now_seconds(cpu_clock);
    if (n_threads == 1)
        ceiling_chunk(&ctx, 0, n);
    else
        (void)ccgym_parallel_for(ceiling_chunk, &ctx, n, n_threads);
    const double seconds = now_seconds(cpu_clock) - t0;
    free(book);
    return seconds;
}
