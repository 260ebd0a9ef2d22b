/* The block kernels' shared contract and the fast mode's per-ISA pieces:
 * src/fast_kernels.c (the block driver, the fast sin/cos of an array, the
 * discrete action check) is compiled once per instruction set (generic, and
 * on x86-64 avx2+fma and avx512) with CCGYM_FAST_SUFFIX naming its copies;
 * src/fast_envs.c picks one at run time. The envs' blocks are their own
 * files (src/<env>_lanes.c, src/block_book.h). */
#ifndef CCGYM_FAST_KERNELS_H_
#define CCGYM_FAST_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "ccgym/driver.h"

/* Largest number of instances a block function is given at once. */
#define CCGYM_FAST_BLOCK 256

/* A block function steps instances [lo, hi) (hi - lo <= CCGYM_FAST_BLOCK):
 * it writes their new state, obs, reward and terminated, does the driver's
 * bookkeeping of an ordinary step (truncated, episode_return) and
 * sets special[i - lo] where instance i ended an episode or awaits a
 * NEXT_STEP reset, 0 elsewhere. Instances awaiting a NEXT_STEP reset are
 * stepped too (the driver resets them right after, which overwrites all of
 * that) but draw nothing from their RNG. */
typedef void (*ccgym_fast_block_fn)(const ccgym_batch *b, const void *actions, size_t lo,
                                    size_t hi, uint8_t *special);

#define CCGYM_FAST_DECLARE(SUFFIX)                                                          \
    void ccgym_fast_drive_##SUFFIX(const ccgym_env_def *exact, ccgym_fast_block_fn block,   \
                                   const ccgym_batch *b, const void *actions, size_t begin, \
                                   size_t end);                                             \
    void ccgym_fast_sincos_array_##SUFFIX(const double *x, double *s, double *c, size_t n); \
    int ccgym_fast_discrete_in_range_##SUFFIX(const int64_t *a, size_t n,                   \
                                              int64_t n_actions);

CCGYM_FAST_DECLARE(generic)
#if defined(CCGYM_FAST_X86)
CCGYM_FAST_DECLARE(avx2)
CCGYM_FAST_DECLARE(avx512)
#endif

#endif /* CCGYM_FAST_KERNELS_H_ */
