/* The reference ceiling (see ccgym/ceiling.h). Each env's bare loop is its
 * def's bare_range (CCGYM_DEFINE_ENV, ccgym_bare_loop in ccgym/driver.h):
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
 * 74% are down, and that loop was 20% slower than the real path. */
#include "ccgym/ceiling.h"

#include "ccgym/driver.h"
#include "ccgym/env.h"
#include "threads.h"

/* Wall time (monotonic) or the calling thread's CPU time, in seconds. */
static double now_seconds(int cpu_clock)
{
    return cpu_clock ? ccgym_thread_cpu_seconds() : 1e-9 * (double)ccgym_monotonic_ns();
}

typedef struct ceiling_ctx {
    const ccgym_env_def *def;
    const ccgym_bare_job *job;
} ceiling_ctx;

static void ceiling_chunk(void *ctx, size_t begin, size_t end)
{
    const ceiling_ctx *c = (const ceiling_ctx *)ctx;
    c->def->bare_range(c->job, begin, end);
}

/* Large enough for any env's params struct and its params_init inputs. */
#define CEILING_MAX_PARAMS 64

double ccgym_ceiling_run(const ccgym_env_def *def, size_t n, int64_t steps, void *state, void *rng,
                         const void *actions, size_t n_action_rows, float *obs, double *reward,
                         uint8_t *terminated, int n_threads, int cpu_clock)
{
    if (def == NULL || def->bare_range == NULL || n_action_rows == 0)
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
    ceiling_ctx ctx = {def, &job};
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
    return now_seconds(cpu_clock) - t0;
}
