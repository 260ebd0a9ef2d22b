#include <float.h>
#include <math.h>

#include "acrobot.h"
#include "ccgym/draw.h"
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
    CCGYM_ATTR(ccgym_acrobot_params, dt, CCGYM_FIELD_F64, DERIVED, 0, "dt", CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_length_1, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_LENGTH_1", CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_length_2, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_LENGTH_2", CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_mass_1, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_MASS_1", CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_mass_2, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_MASS_2", CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_com_pos_1, CCGYM_FIELD_F64, PHYS, 0.5, "LINK_COM_POS_1", CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_com_pos_2, CCGYM_FIELD_F64, PHYS, 0.5, "LINK_COM_POS_2", CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, link_moi, CCGYM_FIELD_F64, PHYS, 1.0, "LINK_MOI", CCGYM_ATTR_INT_PRODUCT | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, max_vel_1, CCGYM_FIELD_F64, PHYS, 4 * M_PI, "MAX_VEL_1", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_NEGATED | CCGYM_ATTR_CLASS_LEVEL),
    CCGYM_ATTR(ccgym_acrobot_params, max_vel_2, CCGYM_FIELD_F64, PHYS, 9 * M_PI, "MAX_VEL_2", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_NEGATED | CCGYM_ATTR_CLASS_LEVEL),
    /* numpy's uniform(-t, t) overflows past half the largest double (t - -t) */
    CCGYM_BOUNDED_ATTR(ccgym_acrobot_params, torque_noise_max, CCGYM_FIELD_F64, PHYS, 0.0,
                       "torque_noise_max", CCGYM_ATTR_NUMPY | CCGYM_ATTR_NARROW | CCGYM_ATTR_KEYWORD | CCGYM_ATTR_CLASS_LEVEL,
                       0.0, DBL_MAX / 2),
    /* book_or_nips == "book" */
    CCGYM_SWITCH(ccgym_acrobot_params, book, CCGYM_FIELD_I64, 1, "book_or_nips", CCGYM_ATTR_KEYWORD | CCGYM_ATTR_CLASS_LEVEL, "book|nips"),
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
    /* AVAIL_TORQUE[0..2]: not inputs (Gymnasium's constructor takes none);
     * set by params_init to Gymnasium's class value, then from the list the
     * single env's step reads (CCGYM_ATTR_LIST_ITEM). */
    CCGYM_ATTR(ccgym_acrobot_params, torque_0, CCGYM_FIELD_F64, DERIVED | CCGYM_PARAM_KEPT, 0, "AVAIL_TORQUE", CCGYM_ATTR_LIST_ITEM),
    CCGYM_ATTR(ccgym_acrobot_params, torque_1, CCGYM_FIELD_F64, DERIVED | CCGYM_PARAM_KEPT, 0, "AVAIL_TORQUE", CCGYM_ATTR_LIST_ITEM),
    CCGYM_ATTR(ccgym_acrobot_params, torque_2, CCGYM_FIELD_F64, DERIVED | CCGYM_PARAM_KEPT, 0, "AVAIL_TORQUE", CCGYM_ATTR_LIST_ITEM),
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

/* AcrobotEnv._dsdt on s = (theta1, theta2, dtheta1, dtheta2), torque a:
 * the step body's (ccgym/acrobot.h) over libm's cos and sin. */
static inline void acrobot_dsdt(const ccgym_acrobot_params *p, const double *s, double a,
                                double *out)
{
    double ang[3];
    ccgym_acrobot_dsdt_angles(s, ang);
    const double cos_t2 = cos(ang[0]);
    const ccgym_acrobot_squares sq = ccgym_acrobot_squares_of(p, s, cos_t2);
    ccgym_acrobot_dsdt_body(p, s, a, cos_t2, sin(ang[0]), cos(ang[1]), cos(ang[2]), &sq, out);
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
    /* rk4 (ccgym/acrobot.h: ccgym_acrobot_rk4_stage) */
    const double dt = p->dt - 0;
    const double *y0 = st->s;
    double k[4][4], y[4], ns[4], unused = 0;
    for (int j = 0; j < 4; j++) {
        const double a = ccgym_acrobot_rk4_stage(j, dt, y0, j ? k[j - 1] : y0, torque, y);
        acrobot_dsdt(p, y, a, k[j]);
    }
    ccgym_acrobot_rk4_end(0, p, dt, y0, k[0], k[1], k[2], k[3], ns, &unused);
    for (int j = 0; j < 4; j++)
        st->s[j] = ns[j];
    const int term = ccgym_acrobot_terminal(cos(ns[0]), cos(ns[1] + ns[0]));
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

/* Gymnasium's AcrobotEnv.render(): the ground line, then each link (rotated
 * by its angle) and its joint disc. */
static void ccgym_acrobot_paint(const ccgym_draw *d, const void *state, const void *params)
{
    const double *s = ((const ccgym_acrobot_state *)state)->s;
    const ccgym_acrobot_params *p = (const ccgym_acrobot_params *)params;
    const ccgym_rgb black = {0, 0, 0}, link = {0, 204, 204}, joint = {204, 204, 0};
    const double bound = p->link_length_1 + p->link_length_2 + 0.2;
    const double scale = d->width / (bound * 2);
    const double offset = d->width / 2.0;
    const double p1x = -p->link_length_1 * cos(s[0]) * scale;
    const double p1y = p->link_length_1 * sin(s[0]) * scale;
    /* xys = [[0, 0], p1][:, ::-1] */
    const double xs[2] = {0, p1y}, ys[2] = {0, p1x};
    const double thetas[2] = {s[0] - M_PI / 2, s[0] + s[1] - M_PI / 2};
    const double lens[2] = {p->link_length_1 * scale, p->link_length_2 * scale};
    /* pygame.draw.line between points of the same y */
    d->hline_f(d->canvas, -2.2 * scale + offset, 2.2 * scale + offset, 1 * scale + offset, black);
    for (int k = 0; k < 2; k++) {
        double x = xs[k] + offset, y = ys[k] + offset;
        ccgym_draw_rect(d, 0, lens[k], 0.1 * scale, -0.1 * scale, thetas[k], x, y, link);
        d->circle(d->canvas, x, y, 0.1 * scale, joint);
    }
}

/* The step in SIMD lanes, exact and fast (acrobot_lanes.c, the same step
 * body over two backends), per ISA. */
CCGYM_LANES_BLOCK(ccgym_acrobot)
CCGYM_FAST_KERNEL(ccgym_acrobot)

CCGYM_DEFINE_STOCK_ENV(ccgym_acrobot, ccgym_acrobot_state, ccgym_acrobot_params, int64_t, 0, 3, 6,
                 -0.1, 0.1,
                       CCGYM_LANES_BLOCK_OF(ccgym_acrobot), CCGYM_FAST_KERNEL_OF(ccgym_acrobot), .name = "Acrobot",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 500,
                 .canvas_height = 500, .render_fps = 15, .gym_class = "AcrobotEnv", .paint = ccgym_acrobot_paint,
                 .obs_low = ccgym_acrobot_obs_low, .obs_high = ccgym_acrobot_obs_high)
