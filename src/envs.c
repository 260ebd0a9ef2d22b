/* The registry of envs (ccgym/driver.h): the stock defs that src/envs.def
 * lists, one line per env, in its order. */
#include "ccgym/driver.h"

#define CCGYM_ENV(name) extern const ccgym_stock_def ccgym_##name##_def;
#include "envs.def"
#undef CCGYM_ENV

#define CCGYM_ENV(name) &ccgym_##name##_def,
const ccgym_stock_def *const ccgym_stock_envs[] = {
#include "envs.def"
};
#undef CCGYM_ENV

#define CCGYM_ENV(name) &ccgym_##name##_def.def,
const ccgym_env_def *const ccgym_envs[] = {
#include "envs.def"
};
#undef CCGYM_ENV

const int ccgym_num_envs = (int)(sizeof ccgym_envs / sizeof ccgym_envs[0]);

const ccgym_stock_def *ccgym_stock_of(const ccgym_env_def *def)
{
    for (int k = 0; k < ccgym_num_envs; k++) {
        const ccgym_stock_def *s = ccgym_stock_envs[k];
        if (&s->def == def)
            return s;
        if (&s->fast->def == def)
            return s->fast;
    }
    return NULL;
}
