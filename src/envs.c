/* The registry of envs (ccgym/env.h): one line per env, in the order of
 * ccgym._core.ENV_KINDS. Adding an env: its header and source (README,
 * "Develop") and one line here. */
#include "ccgym/acrobot.h"
#include "ccgym/cartpole.h"
#include "ccgym/continuous_mountain_car.h"
#include "ccgym/env.h"
#include "ccgym/mountain_car.h"
#include "ccgym/pendulum.h"

const ccgym_env_def *const ccgym_envs[] = {
    &ccgym_cartpole_def,
    &ccgym_mountain_car_def,
    &ccgym_continuous_mountain_car_def,
    &ccgym_pendulum_def,
    &ccgym_acrobot_def,
};

const int ccgym_num_envs = (int)(sizeof ccgym_envs / sizeof ccgym_envs[0]);
