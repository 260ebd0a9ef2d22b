/* The buffers of a ccgym_batch that the C tests own (tests/c/driver_test.c,
 * tests/c/lanes_test.c): one allocation per buffer, as the binding makes
 * them, wired into the batch a test steps. Include after ccgym/driver.h. */
#ifndef CCGYM_TEST_BUFS_H_
#define CCGYM_TEST_BUFS_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/driver.h"
#include "ccgym/env.h"

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* The params_init inputs of def (CCGYM_PARAM_INPUT fields, in order) at
 * Gymnasium's defaults; returns their number. */
static int default_inputs(const ccgym_env_def *def, double *values, const ccgym_field **fields)
{
    int k = 0;
    for (int f = 0; f < def->n_param_fields; f++)
        if (def->param_fields[f].flags & CCGYM_PARAM_INPUT) {
            fields[k] = &def->param_fields[f];
            values[k++] = def->param_fields[f].value;
        }
    return k;
}

typedef struct run_bufs {
    size_t n;
    const ccgym_env_def *def;
    ccgym_batch b;
    char *params;
    char *state;
    ccgym_pcg64 *rng;
    int64_t *episode_start, *final_length;
    uint8_t *pending, *terminated, *truncated, *out_terminated, *out_truncated;
    double *episode_return, *reward, *out_reward, *final_return;
    float *obs, *final_obs;
} run_bufs;

/* A batch of n instances of def with the given params structs (n_params:
 * 1, shared, or n, per instance; copied), in autoreset mode `mode` with
 * time limit max_steps (0: none). */
static void bufs_init(run_bufs *r, const ccgym_env_def *def, size_t n, const void *params,
                      size_t n_params, int mode, int64_t max_steps)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->def = def;
    const size_t od = (size_t)def->obs_dim;
    r->params = (char *)xcalloc(n_params, def->params_size);
    memcpy(r->params, params, n_params * def->params_size);
    r->state = (char *)xcalloc(n, def->state_size);
    r->rng = (ccgym_pcg64 *)xcalloc(n, sizeof *r->rng);
    r->episode_start = (int64_t *)xcalloc(n, sizeof(int64_t));
    r->final_length = (int64_t *)xcalloc(n, sizeof(int64_t));
    r->pending = (uint8_t *)xcalloc(n, 1);
    r->terminated = (uint8_t *)xcalloc(n, 1);
    r->truncated = (uint8_t *)xcalloc(n, 1);
    r->out_terminated = (uint8_t *)xcalloc(n, 1);
    r->out_truncated = (uint8_t *)xcalloc(n, 1);
    r->episode_return = (double *)xcalloc(n, sizeof(double));
    r->reward = (double *)xcalloc(n, sizeof(double));
    r->out_reward = (double *)xcalloc(n, sizeof(double));
    r->final_return = (double *)xcalloc(n, sizeof(double));
    r->obs = (float *)xcalloc(n * od, sizeof(float));
    r->final_obs = (float *)xcalloc(n * od, sizeof(float));
    ccgym_batch *b = &r->b;
    b->n = n;
    b->state = r->state;
    b->params = r->params;
    b->params_stride = n_params > 1 ? def->params_size : 0;
    b->rng = r->rng;
    b->episode_start = r->episode_start;
    b->pending_reset = r->pending;
    b->episode_return = r->episode_return;
    b->max_episode_steps = max_steps;
    b->autoreset_mode = mode;
    b->obs = r->obs;
    b->reward = r->reward;
    b->terminated = r->terminated;
    b->truncated = r->truncated;
    b->out_reward = r->out_reward;
    b->out_terminated = r->out_terminated;
    b->out_truncated = r->out_truncated;
    b->final_obs = r->final_obs;
    b->final_return = r->final_return;
    b->final_length = r->final_length;
    b->action_type = CCGYM_ACTION_F32;
}

static void bufs_free(run_bufs *r)
{
    free(r->params);
    free(r->state);
    free(r->rng);
    free(r->episode_start);
    free(r->final_length);
    free(r->pending);
    free(r->terminated);
    free(r->truncated);
    free(r->out_terminated);
    free(r->out_truncated);
    free(r->episode_return);
    free(r->reward);
    free(r->out_reward);
    free(r->final_return);
    free(r->obs);
    free(r->final_obs);
}

#endif /* CCGYM_TEST_BUFS_H_ */
