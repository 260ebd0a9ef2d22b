#include <float.h>
#include <math.h>

#include "ccgym/acrobot.h"
#include "ccgym/driver.h"
#include "ccgym/npmath.h"
#include "npy_sincosf.h"

#define G 9.8

/* Gymnasium's AcrobotEnv: layouts, defaults (its class attributes), params_init's inputs. */
static const ccgym_field ccgym_acrobot_state_fields[] = {
    CCGYM_FIELD(ccgym_acrobot_state, s, CCGYM_FIELD_F64, 4, 0, 0),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
static const ccgym_field ccgym_acrobot_param_fields[] = {
    CCGYM_ATTR(ccgym_acrobot_params, dt, CCGYM_FIELD_F64, DERIVED, 0, "dt", 0),
    CCGYM_ATTR(ccgym_acrobot_params, link_length_1, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_LENGTH_1", CCGYM_ATTR_INT_PRODUCT),
    CCGYM_ATTR(ccgym_acrobot_params, link_length_2, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_LENGTH_2", 0),
    CCGYM_ATTR(ccgym_acrobot_params, link_mass_1, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_MASS_1", CCGYM_ATTR_INT_PRODUCT),
    CCGYM_ATTR(ccgym_acrobot_params, link_mass_2, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_MASS_2", CCGYM_ATTR_INT_PRODUCT),
    CCGYM_ATTR(ccgym_acrobot_params, link_com_pos_1, CCGYM_FIELD_F64, PHYS, 0.5, "LINK_COM_POS_1", CCGYM_ATTR_INT_PRODUCT),
    CCGYM_ATTR(ccgym_acrobot_params, link_com_pos_2, CCGYM_FIELD_F64, PHYS, 0.5, "LINK_COM_POS_2", CCGYM_ATTR_INT_PRODUCT),
    CCGYM_ATTR(ccgym_acrobot_params, link_moi, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_MOI", CCGYM_ATTR_INT_PRODUCT),
    CCGYM_ATTR(ccgym_acrobot_params, max_vel_1, CCGYM_FIELD_F64, PHYS, 4 * M_PI, "MAX_VEL_1", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_NEGATED),
    CCGYM_ATTR(ccgym_acrobot_params, max_vel_2, CCGYM_FIELD_F64, PHYS, 9 * M_PI, "MAX_VEL_2", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_NEGATED),
    /* numpy's uniform(-t, t) overflows past half the largest double (t - -t) */
    CCGYM_BOUNDED_ATTR(ccgym_acrobot_params, torque_noise_max, CCGYM_FIELD_F64, PHYS, 0.0,
                       "torque_noise_max", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_KEYWORD,
                       0.0, DBL_MAX / 2),
    /* book_or_nips == "book" */
    CCGYM_SWITCH(ccgym_acrobot_params, book, CCGYM_FIELD_I64, 1, "book_or_nips", CCGYM_ATTR_KEYWORD, "book|nips"),
    CCGYM_FIELD(ccgym_acrobot_params, d1_a, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, d1_b, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, d1_c, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, d2_a, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, d2_b, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, phi2_c, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, phi1_a, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, phi1_b, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, phi1_c, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, dd2_c, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_acrobot_params, den_a, CCGYM_FIELD_F64, 1, DERIVED, 0),
    /* Not Gymnasium's: which numpy float32 sin/cos the reset matches. 1 here;
     * the binding sets it from the running numpy (ccgym._params). */
    CCGYM_FIELD(ccgym_acrobot_params, use_npy_fma_trig, CCGYM_FIELD_I32, 1,
                FLAG | CCGYM_PARAM_NUMPY_FMA, 1),
    /* AVAIL_TORQUE: not inputs (Gymnasium's constructor takes none); set by
     * params_init to Gymnasium's class value, by the single env's attribute. */
    CCGYM_FIELD(ccgym_acrobot_params, torque_0, CCGYM_FIELD_F64, 1, DERIVED | CCGYM_PARAM_KEPT, 0),
    CCGYM_FIELD(ccgym_acrobot_params, torque_1, CCGYM_FIELD_F64, 1, DERIVED | CCGYM_PARAM_KEPT, 0),
    CCGYM_FIELD(ccgym_acrobot_params, torque_2, CCGYM_FIELD_F64, 1, DERIVED | CCGYM_PARAM_KEPT, 0),
};
#undef PHYS
#undef FLAG
#undef DERIVED

void ccgym_acrobot_params_init(ccgym_acrobot_params *p, double link_length_1,
                               double link_length_2, double link_mass_1, double link_mass_2,
                               double link_com_pos_1, double link_com_pos_2, double link_moi,
                               double max_vel_1, double max_vel_2, double torque_noise_max,
                               int book, int use_npy_fma_trig)
{
    const double m1 = link_mass_1, m2 = link_mass_2, l1 = link_length_1;
    const double lc1 = link_com_pos_1, lc2 = link_com_pos_2, I2 = link_moi;
    p->dt = 0.2;
    p->link_length_1 = link_length_1;
    p->link_length_2 = link_length_2;
    p->link_mass_1 = m1;
    p->link_mass_2 = m2;
    p->link_com_pos_1 = lc1;
    p->link_com_pos_2 = lc2;
    p->link_moi = link_moi;
    p->max_vel_1 = max_vel_1;
    p->max_vel_2 = max_vel_2;
    p->torque_noise_max = torque_noise_max;
    p->book = book;
    p->use_npy_fma_trig = use_npy_fma_trig;
    p->reserved = 0;
    p->torque_0 = -1.0; /* AVAIL_TORQUE = [-1.0, 0.0, +1] */
    p->torque_1 = 0.0;
    p->torque_2 = 1.0;
    /* d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * cos(theta2)) + I1 + I2 */
    p->d1_a = m1 * ccgym_pow2(lc1);
    p->d1_b = ccgym_pow2(l1) + ccgym_pow2(lc2);
    p->d1_c = 2 * l1 * lc2;
    /* d2 = m2 * (lc2**2 + l1 * lc2 * cos(theta2)) + I2 */
    p->d2_a = ccgym_pow2(lc2);
    p->d2_b = l1 * lc2;
    /* phi2 = m2 * lc2 * g * cos(theta1 + theta2 - pi / 2.0) */
    p->phi2_c = m2 * lc2 * G;
    /* phi1 = -m2 * l1 * lc2 * dtheta2**2 * sin(theta2)
     *        - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin(theta2)
     *        + (m1 * lc1 + m2 * l1) * g * cos(theta1 - pi / 2) + phi2 */
    p->phi1_a = -m2 * l1 * lc2;
    p->phi1_b = 2 * m2 * l1 * lc2;
    p->phi1_c = (m1 * lc1 + m2 * l1) * G;
    /* book: ... - m2 * l1 * lc2 * dtheta1**2 * sin(theta2) ... */
    p->dd2_c = m2 * l1 * lc2;
    /* denominator: m2 * lc2**2 + I2 - d2**2 / d1 */
    p->den_a = m2 * ccgym_pow2(lc2) + I2;
}

static void ccgym_acrobot_params_init_values(void *p, const double *v)
{
    ccgym_acrobot_params_init((ccgym_acrobot_params *)p, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                              v[7], v[8], v[9], (int)v[10], (int)v[11]);
}

/* AcrobotEnv._dsdt on s = (theta1, theta2, dtheta1, dtheta2), torque a. */
static inline void acrobot_dsdt(const ccgym_acrobot_params *p, const double *s, double a,
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
    double ddtheta2;
    if (p->book)
        ddtheta2 = (a + d2 / d1 * phi1 - p->dd2_c * ccgym_pow2(dtheta1) * sin_t2 - phi2) /
                   (p->den_a - ccgym_pow2(d2) / d1);
    else
        ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (p->den_a - ccgym_pow2(d2) / d1);
    const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = ddtheta1;
    out[3] = ddtheta2;
}

/* A step's observation of its new state s (_get_ob: float64 cos/sin). */
static inline void acrobot_step_obs(const double *s, float *obs)
{
    obs[0] = (float)cos(s[0]);
    obs[1] = (float)sin(s[0]);
    obs[2] = (float)cos(s[1]);
    obs[3] = (float)sin(s[1]);
    obs[4] = (float)s[2];
    obs[5] = (float)s[3];
}

CCGYM_INLINE void ccgym_acrobot_step(const ccgym_acrobot_params *p, ccgym_acrobot_state *st,
                                     ccgym_pcg64 *rng, const int64_t *action, float *obs,
                                     double *reward, uint8_t *terminated)
{
    double torque = ccgym_acrobot_torque(p, *action);
    if (p->torque_noise_max > 0)
        torque += ccgym_acrobot_torque_noise(p, rng);
    /* rk4(self._dsdt, s_augmented, [0, self.dt]): one step of size dt; the
     * torque rides along as a fifth state with derivative 0. */
    const double dt = p->dt - 0, dt2 = dt / 2.0;
    const double *y0 = st->s;
    double k1[4], k2[4], k3[4], k4[4], y[4];
    acrobot_dsdt(p, y0, torque, k1);
    for (int j = 0; j < 4; j++)
        y[j] = y0[j] + dt2 * k1[j];
    acrobot_dsdt(p, y, torque + dt2 * 0.0, k2);
    for (int j = 0; j < 4; j++)
        y[j] = y0[j] + dt2 * k2[j];
    acrobot_dsdt(p, y, torque + dt2 * 0.0, k3);
    for (int j = 0; j < 4; j++)
        y[j] = y0[j] + dt * k3[j];
    acrobot_dsdt(p, y, torque + dt * 0.0, k4);
    double ns[4];
    for (int j = 0; j < 4; j++)
        ns[j] = y0[j] + dt / 6.0 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    ns[0] = ccgym_acrobot_wrap(ns[0], -M_PI, M_PI);
    ns[1] = ccgym_acrobot_wrap(ns[1], -M_PI, M_PI);
    ns[2] = ccgym_py_bound(ns[2], -p->max_vel_1, p->max_vel_1);
    ns[3] = ccgym_py_bound(ns[3], -p->max_vel_2, p->max_vel_2);
    for (int j = 0; j < 4; j++)
        st->s[j] = ns[j];
    const int term = -cos(ns[0]) - cos(ns[1] + ns[0]) > 1.0;
    *terminated = (uint8_t)term;
    *reward = term ? 0.0 : -1.0;
    acrobot_step_obs(ns, obs);
}

/* The reset's observation of the float32 state s32: numpy's float32 cos/sin. */
static inline void acrobot_reset_obs(const ccgym_acrobot_params *p, const float *s32, float *obs)
{
    if (p->use_npy_fma_trig) {
        obs[0] = ccgym_npy_cosf(s32[0]);
        obs[1] = ccgym_npy_sinf(s32[0]);
        obs[2] = ccgym_npy_cosf(s32[1]);
        obs[3] = ccgym_npy_sinf(s32[1]);
    } else {
        obs[0] = ccgym_npy_cosf_nofma(s32[0]);
        obs[1] = ccgym_npy_sinf_nofma(s32[0]);
        obs[2] = ccgym_npy_cosf_nofma(s32[1]);
        obs[3] = ccgym_npy_sinf_nofma(s32[1]);
    }
    obs[4] = s32[2];
    obs[5] = s32[3];
}

static inline void ccgym_acrobot_reset(const ccgym_acrobot_params *p, ccgym_acrobot_state *st,
                                       ccgym_pcg64 *rng, double low, double high, float *obs)
{
    /* uniform(...).astype(np.float32): the state is float32, and so is the
     * numpy cos/sin of it in the first observation. */
    float s32[4];
    for (int j = 0; j < 4; j++) {
        s32[j] = (float)ccgym_pcg64_uniform(rng, low, high - low);
        st->s[j] = s32[j];
    }
    acrobot_reset_obs(p, s32, obs);
}

/* After a reset its float32 trig of the (float32) state, after a step the
 * step's float64 trig. */
static inline void ccgym_acrobot_observe(const ccgym_acrobot_params *p,
                                         const ccgym_acrobot_state *st, int just_reset,
                                         float *obs)
{
    if (just_reset) {
        float s32[4];
        for (int j = 0; j < 4; j++)
            s32[j] = (float)st->s[j];
        acrobot_reset_obs(p, s32, obs);
        return;
    }
    acrobot_step_obs(st->s, obs);
}

/* Gymnasium's spaces (its __init__), as the def states them (ccgym/env.h). */
static const float ccgym_acrobot_obs_low[6] = {-1.0f, -1.0f, -1.0f, -1.0f, -(float)(4 * M_PI),
                                               -(float)(9 * M_PI)};
static const float ccgym_acrobot_obs_high[6] = {1.0f, 1.0f, 1.0f, 1.0f, (float)(4 * M_PI),
                                                (float)(9 * M_PI)};

CCGYM_DEFINE_ENV(ccgym_acrobot, ccgym_acrobot_state, ccgym_acrobot_params, int64_t, 0, 3, 6,
                 -0.1, 0.1, ccgym_acrobot_fast_step_range, .name = "Acrobot",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 500,
                 .canvas_height = 500, .gym_class = "AcrobotEnv", .scene = "acrobot",
                 .obs_low = ccgym_acrobot_obs_low, .obs_high = ccgym_acrobot_obs_high)
