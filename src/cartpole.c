#include <math.h>

#include "ccgym/cartpole.h"
#include "ccgym/driver.h"

void ccgym_cartpole_params_init(ccgym_cartpole_params *p, double gravity, double masscart,
                                double masspole, double length, double force_mag,
                                double tau, int euler, int sutton_barto_reward)
{
    p->gravity = gravity;
    p->masscart = masscart;
    p->masspole = masspole;
    p->total_mass = masspole + masscart;
    p->length = length;
    p->polemass_length = masspole * length;
    p->force_mag = force_mag;
    p->tau = tau;
    p->theta_threshold_radians = 12 * 2 * M_PI / 360;
    p->x_threshold = 2.4;
    p->euler = euler;
    p->sutton_barto_reward = sutton_barto_reward;
}

static inline void cartpole_observe(const ccgym_cartpole_state *s, float *obs)
{
    obs[0] = (float)s->x;
    obs[1] = (float)s->x_dot;
    obs[2] = (float)s->theta;
    obs[3] = (float)s->theta_dot;
}

CCGYM_INLINE void ccgym_cartpole_step(const ccgym_cartpole_params *p, ccgym_cartpole_state *s,
                                      ccgym_pcg64 *rng, const int64_t *action, float *obs,
                                      double *reward, uint8_t *terminated)
{
    (void)rng;
    double x = s->x, x_dot = s->x_dot, theta = s->theta, theta_dot = s->theta_dot;
    double force = *action == 1 ? p->force_mag : -p->force_mag;
    double costheta = cos(theta);
    double sintheta = sin(theta);
    double temp = (force + p->polemass_length * (theta_dot * theta_dot) * sintheta) / p->total_mass;
    double thetaacc = (p->gravity * sintheta - costheta * temp) /
                      (p->length * (4.0 / 3.0 - p->masspole * (costheta * costheta) / p->total_mass));
    double xacc = temp - p->polemass_length * thetaacc * costheta / p->total_mass;
    if (p->euler) {
        x = x + p->tau * x_dot;
        x_dot = x_dot + p->tau * xacc;
        theta = theta + p->tau * theta_dot;
        theta_dot = theta_dot + p->tau * thetaacc;
    } else {
        x_dot = x_dot + p->tau * xacc;
        x = x + p->tau * x_dot;
        theta_dot = theta_dot + p->tau * thetaacc;
        theta = theta + p->tau * theta_dot;
    }
    s->x = x;
    s->x_dot = x_dot;
    s->theta = theta;
    s->theta_dot = theta_dot;
    int term = x < -p->x_threshold || x > p->x_threshold ||
               theta < -p->theta_threshold_radians || theta > p->theta_threshold_radians;
    double r;
    if (!term) {
        r = p->sutton_barto_reward ? 0.0 : 1.0;
    } else if (s->steps_beyond_terminated < 0) {
        s->steps_beyond_terminated = 0; /* the pole just fell */
        r = p->sutton_barto_reward ? -1.0 : 1.0;
    } else {
        s->steps_beyond_terminated += 1;
        r = p->sutton_barto_reward ? -1.0 : 0.0;
    }
    *reward = r;
    *terminated = (uint8_t)term;
    cartpole_observe(s, obs);
}

static inline void ccgym_cartpole_reset(const ccgym_cartpole_params *p, ccgym_cartpole_state *s,
                                        ccgym_pcg64 *rng, double low, double high, float *obs)
{
    (void)p;
    double range = high - low;
    s->x = ccgym_pcg64_uniform(rng, low, range);
    s->x_dot = ccgym_pcg64_uniform(rng, low, range);
    s->theta = ccgym_pcg64_uniform(rng, low, range);
    s->theta_dot = ccgym_pcg64_uniform(rng, low, range);
    s->steps_beyond_terminated = -1;
    cartpole_observe(s, obs);
}

CCGYM_DEFINE_ENV(ccgym_cartpole, "CartPole", ccgym_cartpole_state, ccgym_cartpole_params,
                 int64_t, 0, 2, 4, -0.05, 0.05)
