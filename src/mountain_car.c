#include <math.h>

#include "ccgym/driver.h"
#include "ccgym/mountain_car.h"
#include "ccgym/npmath.h"

/* Gymnasium's MountainCarEnv: layouts, defaults, params_init's inputs. */
static const ccgym_field ccgym_mountain_car_state_fields[] = {
    CCGYM_FIELD(ccgym_mountain_car_state, position, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD(ccgym_mountain_car_state, velocity, CCGYM_FIELD_F64, 1, 0, 0),
};

#define PHYS (CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS)
#define FLAG (CCGYM_PARAM_INPUT | CCGYM_PARAM_BOOL)
#define DERIVED CCGYM_PARAM_DERIVED
static const ccgym_field ccgym_mountain_car_param_fields[] = {
    CCGYM_FIELD(ccgym_mountain_car_params, min_position, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, max_position, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, max_speed, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, goal_position, CCGYM_FIELD_F64, 1, DERIVED, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, goal_velocity, CCGYM_FIELD_F64, 1, CCGYM_PARAM_INPUT, 0),
    CCGYM_FIELD(ccgym_mountain_car_params, force, CCGYM_FIELD_F64, 1, PHYS, 0.001),
    CCGYM_FIELD(ccgym_mountain_car_params, gravity, CCGYM_FIELD_F64, 1, PHYS, 0.0025),
};
#undef PHYS
#undef FLAG
#undef DERIVED

static void ccgym_mountain_car_params_init_values(void *p, const double *v)
{
    ccgym_mountain_car_params_init((ccgym_mountain_car_params *)p, v[0], v[1], v[2]);
}

void ccgym_mountain_car_params_init(ccgym_mountain_car_params *p, double goal_velocity,
                                    double force, double gravity)
{
    p->min_position = -1.2;
    p->max_position = 0.6;
    p->max_speed = 0.07;
    p->goal_position = 0.5;
    p->goal_velocity = goal_velocity;
    p->force = force;
    p->gravity = gravity;
}

CCGYM_INLINE void ccgym_mountain_car_step(const ccgym_mountain_car_params *p,
                                          ccgym_mountain_car_state *s, ccgym_pcg64 *rng,
                                          const int64_t *action, float *obs, double *reward,
                                          uint8_t *terminated)
{
    (void)rng;
    double position = s->position, velocity = s->velocity;
    velocity += (double)(*action - 1) * p->force + cos(3 * position) * (-p->gravity);
    velocity = ccgym_npy_clip(velocity, -p->max_speed, p->max_speed);
    position += velocity;
    position = ccgym_npy_clip(position, p->min_position, p->max_position);
    if (position == p->min_position && velocity < 0)
        velocity = 0;
    *terminated = (uint8_t)(position >= p->goal_position && velocity >= p->goal_velocity);
    *reward = -1.0;
    s->position = position;
    s->velocity = velocity;
    obs[0] = (float)position;
    obs[1] = (float)velocity;
}

static inline void ccgym_mountain_car_reset(const ccgym_mountain_car_params *p,
                                            ccgym_mountain_car_state *s, ccgym_pcg64 *rng,
                                            double low, double high, float *obs)
{
    (void)p;
    s->position = ccgym_pcg64_uniform(rng, low, high - low);
    s->velocity = 0.0;
    obs[0] = (float)s->position;
    obs[1] = 0.0f;
}

/* What the step and the reset write (the reset's velocity is 0.0). */
static inline void ccgym_mountain_car_observe(const ccgym_mountain_car_params *p,
                                              const ccgym_mountain_car_state *s, int just_reset,
                                              float *obs)
{
    (void)p;
    (void)just_reset;
    obs[0] = (float)s->position;
    obs[1] = (float)s->velocity;
}

/* One cos and branchy clipping: nothing for a fast kernel to gain. */
CCGYM_DEFINE_ENV(ccgym_mountain_car, ccgym_mountain_car_state, ccgym_mountain_car_params, int64_t,
                 0, 3, 2, -0.6, -0.4, ccgym_mountain_car_step_range, .name = "MountainCar",
                 .reset_option_a = "low", .reset_option_b = "high", .canvas_width = 600,
                 .canvas_height = 400)
