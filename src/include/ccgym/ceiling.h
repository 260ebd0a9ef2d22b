/* Bench-only reference ceiling: each env's own exact step and reset (the
 * ones the driver inlines, through the def's bare_range) in a bare loop over
 * N instances x T steps with no driver bookkeeping and no Python; a
 * terminated instance is reset at once with its env's own reset draw.
 * `ccgym bench --ceiling` runs it beside the real path to show how far the
 * exact path is from the limit. Not part of the library's API.
 * Keep in sync with python/ccgym/_ceiling.pyx. */
#ifndef CCGYM_CEILING_H_
#define CCGYM_CEILING_H_

#include <stddef.h>
#include <stdint.h>

#include "ccgym/driver.h"

/* Steps instances [0, n) of env def (a stock def or a registered plugin's) `steps` times with
 * Gymnasium's default parameters (the def's param_fields defaults, through
 * its params_init). Step t takes action row t % n_action_rows of `actions`
 * (rows of n int64 or n * action_dim float32). state (n of the env's state
 * structs) is updated in place; where an instance terminates, its state is
 * reset by the env's own reset (default bounds) from rng[i] (rng: n
 * ccgym_pcg64 generators, 16-byte aligned; NULL: it steps on from the
 * terminal state). obs (n * obs_dim), reward and terminated (n each) hold
 * the last step's output (a reset does not overwrite obs). The instances are
 * split over up to n_threads threads (the driver's rule: at least
 * CCGYM_MIN_INSTANCES_PER_THREAD each), each running all `steps` on its
 * share. Returns the time the loop took in seconds: wall time
 * (CLOCK_MONOTONIC), or with cpu_clock the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID: steadier on a busy machine, only meaningful with
 * one thread); -1.0 for a NULL def or n_action_rows == 0. exact_lanes: whether
 * the real path steps this def's exact_lanes_block (the caller's
 * ccgym_exact_lanes_active(): the def's own module's answer, which a module
 * linking another copy of the kernels must ask for); then so does the
 * ceiling, for n >= CCGYM_EXACT_LANES_MIN, as the real path does. stock:
 * def's stock def (its bare loop and lanes block), or NULL for a plugin's
 * def; the caller's, as it came with def from the module owning the table:
 * a module linking another copy of the registry cannot find it by address. */
double ccgym_ceiling_run(const ccgym_env_def *def, const ccgym_stock_def *stock, size_t n,
                         int64_t steps, void *state, void *rng, const void *actions,
                         size_t n_action_rows, float *obs, double *reward, uint8_t *terminated, int n_threads, int cpu_clock, int exact_lanes);

#endif /* CCGYM_CEILING_H_ */
