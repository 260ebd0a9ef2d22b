#include "ccgym/driver.h"

typedef struct step_ctx {
    const ccgym_env_def *def;
    ccgym_batch *b;
    const void *actions;
    const uint8_t *mask;
    double a, bnd;
} step_ctx;

/* The least episode_start of instances [begin, end), folded into b->start_scan. */
static void scan_starts(ccgym_batch *b, size_t begin, size_t end)
{
    const int64_t *start = b->episode_start;
    int64_t least = INT64_MAX;
    for (size_t i = begin; i < end; i++)
        least = start[i] < least ? start[i] : least;
    ccgym_atomic_min_i64_relaxed(&b->start_scan, least);
}

/* The step's reward and flags of [begin, end) into the caller's arrays
 * (while they are in this thread's cache): memcpy for a large range, a
 * plain loop for the few instances where its calls would cost more. */
static void copy_out(const ccgym_batch *b, size_t begin, size_t end)
{
    const size_t m = end - begin;
    if (m >= 64) {
        memcpy(b->out_reward + begin, b->reward + begin, sizeof(double) * m);
        memcpy(b->out_terminated + begin, b->terminated + begin, m);
        memcpy(b->out_truncated + begin, b->truncated + begin, m);
        return;
    }
    double *restrict r = b->out_reward;
    uint8_t *restrict te = b->out_terminated, *restrict tr = b->out_truncated;
    const double *restrict r0 = b->reward;
    const uint8_t *restrict te0 = b->terminated, *restrict tr0 = b->truncated;
    for (size_t i = begin; i < end; i++) {
        r[i] = r0[i];
        te[i] = te0[i];
        tr[i] = tr0[i];
    }
}

static void step_chunk(void *ctx, size_t begin, size_t end)
{
    const step_ctx *c = (const step_ctx *)ctx;
    /* Actions of another type than float32 (enum ccgym_action_type) take the
     * env's typed step (the binding sets a type for continuous envs only). */
    if (c->b->action_type != CCGYM_ACTION_F32 && c->def->typed_step_range)
        c->def->typed_step_range(c->b, c->actions, begin, end);
    else
        c->def->step_range(c->b, c->actions, begin, end);
    if (c->b->out_reward)
        copy_out(c->b, begin, end);
    if (c->b->check_truncation)
        scan_starts(c->b, begin, end);
}

static void reset_chunk(void *ctx, size_t begin, size_t end)
{
    const step_ctx *c = (const step_ctx *)ctx;
    c->def->reset_range(c->b, c->mask, c->a, c->bnd, begin, end);
}

static int effective_threads(size_t n, int n_threads)
{
    size_t most = n / CCGYM_MIN_INSTANCES_PER_THREAD;
    if (most < 1)
        most = 1;
    if (n_threads < 1)
        n_threads = 1;
    return (size_t)n_threads > most ? (int)most : n_threads;
}

void ccgym_batch_step(const ccgym_env_def *def, ccgym_batch *b, const void *actions,
                      int n_threads)
{
    b->t++;
    /* Whether an instance may reach the time limit on this step (one that
     * started at or before t - max_episode_steps). If so the step tests each
     * instance and the least start after it becomes the new bound. */
    b->check_truncation = b->max_episode_steps > 0 &&
                          b->t - b->max_episode_steps >= b->start_bound;
    b->start_scan = INT64_MAX;
    b->saved_obs = NULL; /* every observation is now its state's */
    int t = effective_threads(b->n, n_threads);
    step_ctx c = {def, b, actions, NULL, 0.0, 0.0};
    if (t == 1)
        step_chunk(&c, 0, b->n);
    else
        (void)ccgym_parallel_for(step_chunk, &c, b->n, t);
    if (b->check_truncation)
        b->start_bound = b->start_scan;
}

void ccgym_batch_reset(const ccgym_env_def *def, ccgym_batch *b, const uint8_t *mask,
                       double a, double bnd, int n_threads)
{
    if (!mask)
        b->saved_obs = NULL; /* every observation is now a reset's */
    int t = effective_threads(b->n, n_threads);
    if (t == 1) {
        def->reset_range(b, mask, a, bnd, 0, b->n);
        return;
    }
    step_ctx c = {def, b, NULL, mask, a, bnd};
    (void)ccgym_parallel_for(reset_chunk, &c, b->n, t);
}

void ccgym_batch_observe(const ccgym_env_def *def, const ccgym_batch *b, float *out)
{
    for (size_t i = 0; i < b->n; i++)
        ccgym_observe_one(b, def->observe_one, def->state_size, def->obs_dim, i,
                          out + i * (size_t)def->obs_dim);
}
