#include "ccgym/driver.h"

typedef struct step_ctx {
    const ccgym_env_def *def;
    const ccgym_batch *b;
    const void *actions;
    const uint8_t *mask;
    double a, bnd;
} step_ctx;

static void step_chunk(void *ctx, size_t begin, size_t end)
{
    const step_ctx *c = (const step_ctx *)ctx;
    c->def->step_range(c->b, c->actions, begin, end);
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

void ccgym_batch_step(const ccgym_env_def *def, const ccgym_batch *b, const void *actions,
                      int n_threads)
{
    int t = effective_threads(b->n, n_threads);
    if (t == 1) {
        def->step_range(b, actions, 0, b->n);
        return;
    }
    step_ctx c = {def, b, actions, NULL, 0.0, 0.0};
    (void)ccgym_parallel_for(step_chunk, &c, b->n, t);
}

void ccgym_batch_reset(const ccgym_env_def *def, const ccgym_batch *b, const uint8_t *mask,
                       double a, double bnd, int n_threads)
{
    int t = effective_threads(b->n, n_threads);
    if (t == 1) {
        def->reset_range(b, mask, a, bnd, 0, b->n);
        return;
    }
    step_ctx c = {def, b, NULL, mask, a, bnd};
    (void)ccgym_parallel_for(reset_chunk, &c, b->n, t);
}
