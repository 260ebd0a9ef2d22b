/* The registry of envs (ccgym/env.h): the defs that src/envs.def lists,
 * one line per env, in its order. */
#include "ccgym/env.h"

#define CCGYM_ENV(name) extern const ccgym_env_def ccgym_##name##_def;
#include "envs.def"
#undef CCGYM_ENV

#define CCGYM_ENV(name) &ccgym_##name##_def,
const ccgym_env_def *const ccgym_envs[] = {
#include "envs.def"
};
#undef CCGYM_ENV

const int ccgym_num_envs = (int)(sizeof ccgym_envs / sizeof ccgym_envs[0]);
