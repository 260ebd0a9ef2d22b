/* Bench-only reference ceiling: each env's physics, exactly as the kernels in
 * src/ compute it (same arithmetic, same bits), in a bare loop over N
 * instances x T steps with no driver and no Python; a terminated instance
 * is reset at once with its env's own reset draw.
 * `ccgym bench --ceiling` runs it beside the real path to show how far the
 * exact path is from the limit. Not part of the library's API.
 * Keep in sync with python/ccgym/_ceiling.pyx. */
#ifndef CCGYM_CEILING_H_
#define CCGYM_CEILING_H_

#include <stddef.h>
#include <stdint.h>

/* Same order as ENV_KINDS in python/ccgym/_core.pyx. */
enum ccgym_ceiling_env {
    CCGYM_CEILING_CARTPOLE = 0,
    CCGYM_CEILING_MOUNTAIN_CAR = 1,
    CCGYM_CEILING_CONTINUOUS_MOUNTAIN_CAR = 2,
    CCGYM_CEILING_PENDULUM = 3,
    CCGYM_CEILING_ACROBOT = 4
};

/* Doubles of state per instance (-1 for an unknown env):
 * CartPole (x, x_dot, theta, theta_dot); MountainCar (position, velocity);
 * MountainCarContinuous (position, velocity), float32 values, i.e. the state
 * after at least one step; Pendulum (th, thdot, last_u);
 * Acrobot (theta1, theta2, dtheta1, dtheta2). */
int ccgym_ceiling_state_dim(int env);
int ccgym_ceiling_obs_dim(int env);
/* 0: discrete (int64 actions), 1: one float32 per instance. */
int ccgym_ceiling_action_dim(int env);

/* Steps instances [0, n) `steps` times with Gymnasium's default parameters.
 * Step t takes action row t % n_action_rows of `actions` (rows of n int64 or
 * n float32). state (n * state_dim doubles) is updated in place; where an
 * instance terminates, its state is redrawn as its kernel's reset draws it,
 * from rng[i] (rng: n ccgym_pcg64 generators, 16-byte aligned; NULL: it
 * steps on from the terminal state). obs
 * (n * obs_dim), reward and terminated (n each) hold the last step's output.
 * The instances are split over up to n_threads threads (the driver's rule:
 * at least CCGYM_MIN_INSTANCES_PER_THREAD each), each running all `steps`
 * on its share. Returns the time the loop took in seconds: wall time
 * (CLOCK_MONOTONIC), or with cpu_clock the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID: steadier on a busy machine, only meaningful
 * with one thread); -1.0 for an unknown env or n_action_rows == 0. */
double ccgym_ceiling_run(int env, size_t n, int64_t steps, double *state,
                         void *rng, const void *actions, size_t n_action_rows,
                         float *obs, double *reward, uint8_t *terminated, int n_threads,
                         int cpu_clock);

#endif /* CCGYM_CEILING_H_ */
