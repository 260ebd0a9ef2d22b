/* The reference ceiling (see ccgym/ceiling.h): each env's step written out
 * again with the kernels' exact arithmetic, in the tightest loop that still
 * does an env's whole job (advance the state, write the float32 observation,
 * the reward and the terminated flag). What it leaves out is what the real
 * path adds: the driver's elapsed/truncation/episode bookkeeping, the reset
 * state's observation, the action check and the Python call.
 *
 * An instance that terminates is reset at once (when generators are given)
 * with its env's own reset draw: the kernels' PCG64 uniforms, the least an
 * exact reset can cost, so that the ceiling keeps stepping the states the
 * real path steps. Without a reset a fallen CartPole runs on past its
 * thresholds, its angle grows into libm's slower argument ranges and its
 * terminated flag turns into a coin toss: within 16 steps from live states
 * 74% are down, and that loop was 20% slower than the real path.
 * CartPole's reward after a fall (steps_beyond_terminated) is not modelled
 * either. Acrobot has no torque noise (Gymnasium's default torque_noise_max
 * = 0). Parameters are Gymnasium's defaults, set by the kernels' own
 * *_params_init. */
#include "ccgym/ceiling.h"

#include <math.h>
#include <time.h>

#include "ccgym/acrobot.h"
#include "ccgym/cartpole.h"
#include "ccgym/continuous_mountain_car.h"
#include "ccgym/driver.h"
#include "ccgym/mountain_car.h"
#include "ccgym/npmath.h"
#include "ccgym/pendulum.h"
#include "ccgym/rng.h"

typedef union ceiling_params {
    ccgym_cartpole_params cartpole;
    ccgym_mountain_car_params mountain_car;
    ccgym_continuous_mountain_car_params continuous_mountain_car;
    ccgym_pendulum_params pendulum;
    ccgym_acrobot_params acrobot;
} ceiling_params;

/* ------------------------------------------------------------------ CartPole */
CCGYM_INLINE void cartpole_step(const void *vp, double *s, const void *action, float *obs,
                                double *reward, uint8_t *terminated)
{
    const ccgym_cartpole_params *p = (const ccgym_cartpole_params *)vp;
    const double x = s[0], x_dot = s[1], theta = s[2], theta_dot = s[3];
    const double force = *(const int64_t *)action == 1 ? p->force_mag : -p->force_mag;
    const double costheta = cos(theta);
    const double sintheta = sin(theta);
    const double temp =
        (force + p->polemass_length * (theta_dot * theta_dot) * sintheta) / p->total_mass;
    const double thetaacc =
        (p->gravity * sintheta - costheta * temp) /
        (p->length * (4.0 / 3.0 - p->masspole * (costheta * costheta) / p->total_mass));
    const double xacc = temp - p->polemass_length * thetaacc * costheta / p->total_mass;
    /* kinematics_integrator == "euler", the only one the registered ids use. */
    const double nx = x + p->tau * x_dot;
    const double nx_dot = x_dot + p->tau * xacc;
    const double ntheta = theta + p->tau * theta_dot;
    const double ntheta_dot = theta_dot + p->tau * thetaacc;
    s[0] = nx;
    s[1] = nx_dot;
    s[2] = ntheta;
    s[3] = ntheta_dot;
    *terminated = (uint8_t)(nx < -p->x_threshold || nx > p->x_threshold ||
                            ntheta < -p->theta_threshold_radians ||
                            ntheta > p->theta_threshold_radians);
    *reward = 1.0;
    obs[0] = (float)nx;
    obs[1] = (float)nx_dot;
    obs[2] = (float)ntheta;
    obs[3] = (float)ntheta_dot;
}

/* --------------------------------------------------------------- MountainCar */
CCGYM_INLINE void mountain_car_step(const void *vp, double *s, const void *action, float *obs,
                                    double *reward, uint8_t *terminated)
{
    const ccgym_mountain_car_params *p = (const ccgym_mountain_car_params *)vp;
    double position = s[0], velocity = s[1];
    velocity += (double)(*(const int64_t *)action - 1) * p->force +
                cos(3 * position) * (-p->gravity);
    velocity = ccgym_npy_clip(velocity, -p->max_speed, p->max_speed);
    position += velocity;
    position = ccgym_npy_clip(position, p->min_position, p->max_position);
    if (position == p->min_position && velocity < 0)
        velocity = 0;
    *terminated = (uint8_t)(position >= p->goal_position && velocity >= p->goal_velocity);
    *reward = -1.0;
    s[0] = position;
    s[1] = velocity;
    obs[0] = (float)position;
    obs[1] = (float)velocity;
}

/* ----------------------------------------------------- MountainCarContinuous */
/* The kernel's float32-state branch (every step but the first after a reset).
 * The kernel tracks whether each value is a numpy float32 or a Python float;
 * with the default parameters every comparison and sum gives the same result
 * whichever it is (the clipped values are bounds that compare the same in
 * both precisions, and they are rounded to float32 before any later sum), so
 * this keeps everything in float32 except where the kernel computes in
 * double: 0.0025 * cos(...), a clipped force times power, and the reward. */
CCGYM_INLINE void continuous_mountain_car_step(const void *vp, double *s, const void *action,
                                               float *obs, double *reward,
                                               uint8_t *terminated)
{
    const ccgym_continuous_mountain_car_params *p =
        (const ccgym_continuous_mountain_car_params *)vp;
    const float a = *(const float *)action;
    float position = (float)s[0], velocity = (float)s[1];
    const double c = 0.0025 * cos((double)(3.0f * position));
    float t;
    if (-1.0f > a)
        t = (float)(-1.0 * p->power - c);
    else if (1.0f < a)
        t = (float)(1.0 * p->power - c);
    else
        t = a * (float)p->power - (float)c;
    velocity = velocity + t;
    if (velocity > (float)p->max_speed)
        velocity = (float)p->max_speed;
    if (velocity < (float)-p->max_speed)
        velocity = (float)-p->max_speed;
    position = position + velocity;
    if (position > (float)p->max_position)
        position = (float)p->max_position;
    if (position < (float)p->min_position)
        position = (float)p->min_position;
    if (position == (float)p->min_position && velocity < 0)
        velocity = 0.0f;
    const int term = position >= (float)p->goal_position && velocity >= (float)p->goal_velocity;
    double r = term ? 100.0 : 0.0;
    r -= ccgym_pow2_of_f32(a) * 0.1; /* math.pow(action[0], 2) */
    s[0] = position;
    s[1] = velocity;
    *terminated = (uint8_t)term;
    *reward = r;
    obs[0] = position;
    obs[1] = velocity;
}

/* ------------------------------------------------------------------ Pendulum */
CCGYM_INLINE void pendulum_step(const void *vp, double *s, const void *action, float *obs,
                                double *reward, uint8_t *terminated)
{
    const ccgym_pendulum_params *p = (const ccgym_pendulum_params *)vp;
    const double th = s[0], thdot = s[1], dt = p->dt;
    const float u = ccgym_npy_clipf(*(const float *)action, (float)-p->max_torque,
                                    (float)p->max_torque);
    const double an = ccgym_npy_remainder(th + M_PI, 2 * M_PI) - M_PI;
    const float u_cost = 0.001f * ccgym_pow2f(u);
    const double costs = ccgym_pow2(an) + 0.1 * ccgym_pow2(thdot) + (double)u_cost;
    const float u_acc = (float)p->torque_coef * u;
    double newthdot = thdot + (p->sin_coef * sin(th) + (double)u_acc) * dt;
    newthdot = ccgym_npy_clip(newthdot, -p->max_speed, p->max_speed);
    const double newth = th + newthdot * dt;
    s[0] = newth;
    s[1] = newthdot;
    s[2] = u;
    *reward = -costs;
    *terminated = 0;
    obs[0] = (float)cos(newth);
    obs[1] = (float)sin(newth);
    obs[2] = (float)newthdot;
}

/* ------------------------------------------------------------------- Acrobot */
CCGYM_INLINE void acrobot_dsdt(const ccgym_acrobot_params *p, const double *s, double a,
                               double *out)
{
    const double m2 = p->link_mass_2, I1 = p->link_moi, I2 = p->link_moi;
    const double theta1 = s[0], theta2 = s[1], dtheta1 = s[2], dtheta2 = s[3];
    const double cos_t2 = cos(theta2), sin_t2 = sin(theta2);
    const double d1 = p->d1_a + m2 * (p->d1_b + p->d1_c * cos_t2) + I1 + I2;
    const double d2 = m2 * (p->d2_a + p->d2_b * cos_t2) + I2;
    const double phi2 = p->phi2_c * cos(theta1 + theta2 - M_PI / 2.0);
    const double phi1 = p->phi1_a * ccgym_pow2(dtheta2) * sin_t2 -
                        p->phi1_b * dtheta2 * dtheta1 * sin_t2 +
                        p->phi1_c * cos(theta1 - M_PI / 2) + phi2;
    /* book_or_nips == "book", Gymnasium's default */
    const double ddtheta2 =
        (a + d2 / d1 * phi1 - p->dd2_c * ccgym_pow2(dtheta1) * sin_t2 - phi2) /
        (p->den_a - ccgym_pow2(d2) / d1);
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = -(d2 * ddtheta2 + phi1) / d1;
    out[3] = ddtheta2;
}

CCGYM_INLINE void acrobot_step(const void *vp, double *s, const void *action, float *obs,
                               double *reward, uint8_t *terminated)
{
    static const double avail_torque[3] = {-1.0, 0.0, 1.0};
    const ccgym_acrobot_params *p = (const ccgym_acrobot_params *)vp;
    const double torque = avail_torque[*(const int64_t *)action];
    /* One RK4 step of size dt, as the kernel writes it (the torque's zero
     * derivative terms included: they are part of the same bits). */
    const double dt = p->dt - 0, dt2 = dt / 2.0;
    double k1[4], k2[4], k3[4], k4[4], y[4], ns[4];
    acrobot_dsdt(p, s, torque, k1);
    for (int j = 0; j < 4; j++)
        y[j] = s[j] + dt2 * k1[j];
    acrobot_dsdt(p, y, torque + dt2 * 0.0, k2);
    for (int j = 0; j < 4; j++)
        y[j] = s[j] + dt2 * k2[j];
    acrobot_dsdt(p, y, torque + dt2 * 0.0, k3);
    for (int j = 0; j < 4; j++)
        y[j] = s[j] + dt * k3[j];
    acrobot_dsdt(p, y, torque + dt * 0.0, k4);
    for (int j = 0; j < 4; j++)
        ns[j] = s[j] + dt / 6.0 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    ns[0] = ccgym_acrobot_wrap(ns[0], -M_PI, M_PI);
    ns[1] = ccgym_acrobot_wrap(ns[1], -M_PI, M_PI);
    ns[2] = ccgym_py_bound(ns[2], -p->max_vel_1, p->max_vel_1);
    ns[3] = ccgym_py_bound(ns[3], -p->max_vel_2, p->max_vel_2);
    for (int j = 0; j < 4; j++)
        s[j] = ns[j];
    const int term = -cos(ns[0]) - cos(ns[1] + ns[0]) > 1.0;
    *terminated = (uint8_t)term;
    *reward = term ? 0.0 : -1.0;
    obs[0] = (float)cos(ns[0]);
    obs[1] = (float)sin(ns[0]);
    obs[2] = (float)cos(ns[1]);
    obs[3] = (float)sin(ns[1]);
    obs[4] = (float)ns[2];
    obs[5] = (float)ns[3];
}

/* ---------------------------------------------------------------- resets */
/* Each env's reset as its kernel draws it (Gymnasium's default bounds), in
 * the ceiling's state layout. The observation of the reset state is not
 * written (the real path writes it on the reset step). */
typedef void (*ceiling_reset_fn)(double *s, ccgym_pcg64 *rng);

CCGYM_INLINE void cartpole_reset(double *s, ccgym_pcg64 *rng)
{
    for (int k = 0; k < 4; k++)
        s[k] = ccgym_pcg64_uniform(rng, -0.05, 0.05 - -0.05);
}

CCGYM_INLINE void mountain_car_reset(double *s, ccgym_pcg64 *rng)
{
    s[0] = ccgym_pcg64_uniform(rng, -0.6, -0.4 - -0.6);
    s[1] = 0.0;
}

/* The ceiling steps a float32 MountainCarContinuous state, so the reset
 * position is rounded to float32 (the kernel's first step after a reset
 * computes in float64 instead). */
CCGYM_INLINE void continuous_mountain_car_reset(double *s, ccgym_pcg64 *rng)
{
    s[0] = (float)ccgym_pcg64_uniform(rng, -0.6, -0.4 - -0.6);
    s[1] = 0.0;
}

CCGYM_INLINE void pendulum_reset(double *s, ccgym_pcg64 *rng) /* never terminates */
{
    (void)s;
    (void)rng;
}

CCGYM_INLINE void acrobot_reset(double *s, ccgym_pcg64 *rng) /* a float32 state, as Gymnasium's */
{
    for (int k = 0; k < 4; k++)
        s[k] = (float)ccgym_pcg64_uniform(rng, -0.1, 0.1 - -0.1);
}

/* ---------------------------------------------------------------- the loop */
typedef void (*ceiling_step_fn)(const void *p, double *s, const void *action, float *obs,
                                double *reward, uint8_t *terminated);

typedef struct ceiling_job {
    const ceiling_params *params;
    size_t n;
    int64_t steps;
    double *state;
    ccgym_pcg64 *rng; /* one per instance for resets; NULL: terminated instances step on */
    const char *actions;
    size_t n_action_rows;
    float *obs;
    double *reward;
    uint8_t *terminated;
} ceiling_job;

/* Instantiated once per env with a constant `step`, which the compiler
 * inlines. The job's buffers in local restrict pointers, as the driver has
 * them: a store through one (the uint8_t flags alias anything) then does not
 * reload the others from the job. */
CCGYM_INLINE void ceiling_loop(const ceiling_job *j, size_t begin, size_t end, int state_dim,
                               int obs_dim, size_t action_size, ceiling_step_fn step,
                               ceiling_reset_fn reset)
{
    const void *params = j->params;
    double *restrict state = j->state;
    ccgym_pcg64 *restrict rng = j->rng;
    const char *restrict actions = j->actions;
    float *restrict obs = j->obs;
    double *restrict reward = j->reward;
    uint8_t *restrict terminated = j->terminated;
    const size_t row_bytes = j->n * action_size, n_rows = j->n_action_rows;
    const int64_t steps = j->steps;
    size_t row = 0;
    for (int64_t t = 0; t < steps; t++) {
        const char *a = actions + row * row_bytes;
        for (size_t i = begin; i < end; i++) {
            double *s = state + i * (size_t)state_dim;
            uint8_t term;
            step(params, s, a + i * action_size, obs + i * (size_t)obs_dim, &reward[i], &term);
            terminated[i] = term;
            if (rng && term)
                reset(s, &rng[i]);
        }
        if (++row == n_rows)
            row = 0;
    }
}

static void cartpole_chunk(void *ctx, size_t begin, size_t end)
{
    ceiling_loop((const ceiling_job *)ctx, begin, end, 4, 4, sizeof(int64_t), cartpole_step,
                 cartpole_reset);
}

static void mountain_car_chunk(void *ctx, size_t begin, size_t end)
{
    ceiling_loop((const ceiling_job *)ctx, begin, end, 2, 2, sizeof(int64_t),
                 mountain_car_step, mountain_car_reset);
}

static void continuous_mountain_car_chunk(void *ctx, size_t begin, size_t end)
{
    ceiling_loop((const ceiling_job *)ctx, begin, end, 2, 2, sizeof(float),
                 continuous_mountain_car_step, continuous_mountain_car_reset);
}

static void pendulum_chunk(void *ctx, size_t begin, size_t end)
{
    ceiling_loop((const ceiling_job *)ctx, begin, end, 3, 3, sizeof(float), pendulum_step,
                 pendulum_reset);
}

static void acrobot_chunk(void *ctx, size_t begin, size_t end)
{
    ceiling_loop((const ceiling_job *)ctx, begin, end, 4, 6, sizeof(int64_t), acrobot_step,
                 acrobot_reset);
}

int ccgym_ceiling_state_dim(int env)
{
    static const int dims[] = {4, 2, 2, 3, 4};
    return env >= 0 && env <= CCGYM_CEILING_ACROBOT ? dims[env] : -1;
}

int ccgym_ceiling_obs_dim(int env)
{
    static const int dims[] = {4, 2, 2, 3, 6};
    return env >= 0 && env <= CCGYM_CEILING_ACROBOT ? dims[env] : -1;
}

int ccgym_ceiling_action_dim(int env)
{
    static const int dims[] = {0, 0, 1, 1, 0};
    return env >= 0 && env <= CCGYM_CEILING_ACROBOT ? dims[env] : -1;
}

static double now_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double ccgym_ceiling_run(int env, size_t n, int64_t steps, double *state,
                         void *rng, const void *actions, size_t n_action_rows,
                         float *obs, double *reward, uint8_t *terminated, int n_threads,
                         int cpu_clock)
{
    ceiling_params params;
    void (*chunk)(void *ctx, size_t begin, size_t end);
    switch (env) {
    case CCGYM_CEILING_CARTPOLE:
        ccgym_cartpole_params_init(&params.cartpole, 9.8, 1.0, 0.1, 0.5, 10.0, 0.02, 1, 0);
        chunk = cartpole_chunk;
        break;
    case CCGYM_CEILING_MOUNTAIN_CAR:
        ccgym_mountain_car_params_init(&params.mountain_car, 0.0, 0.001, 0.0025);
        chunk = mountain_car_chunk;
        break;
    case CCGYM_CEILING_CONTINUOUS_MOUNTAIN_CAR:
        ccgym_continuous_mountain_car_params_init(&params.continuous_mountain_car, 0.0, 0.0015);
        chunk = continuous_mountain_car_chunk;
        break;
    case CCGYM_CEILING_PENDULUM:
        ccgym_pendulum_params_init(&params.pendulum, 10.0, 1.0, 1.0, 8.0, 2.0, 0.05);
        chunk = pendulum_chunk;
        break;
    case CCGYM_CEILING_ACROBOT:
        ccgym_acrobot_params_init(&params.acrobot, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 1.0,
                                  4 * M_PI, 9 * M_PI, 0.0, 1, 1);
        chunk = acrobot_chunk;
        break;
    default:
        return -1.0;
    }
    if (n_action_rows == 0)
        return -1.0;
    ceiling_job job = {&params,       n,   steps,  state,     (ccgym_pcg64 *)rng,
                       (const char *)actions, n_action_rows, obs, reward, terminated};
    size_t most = n / CCGYM_MIN_INSTANCES_PER_THREAD;
    if (most < 1)
        most = 1;
    if (n_threads < 1)
        n_threads = 1;
    if ((size_t)n_threads > most)
        n_threads = (int)most;
    const clockid_t clock = cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    const double t0 = now_seconds(clock);
    if (n_threads == 1)
        chunk(&job, 0, n);
    else
        (void)ccgym_parallel_for(chunk, &job, n, n_threads);
    return now_seconds(clock) - t0;
}
