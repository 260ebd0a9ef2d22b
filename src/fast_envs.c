/* The fast mode's run-time pick (precision="fast"): the instruction set the
 * fast builds use (avx512, avx2+fma or generic: the best this CPU runs, or a
 * lower one asked for), and the fast driver of that build. An env's fast def
 * (CCGYM_DEFINE_ENV) steps its def's fast_block (its block file built with
 * the fast backend, src/block_book.h) under that driver, which keeps the
 * generic driver's semantics (time limit, autoreset modes, final
 * observations, episode statistics). Resets, and so the RNG streams, are the
 * exact kernels': autoresets go through the exact def's reset_one. An env
 * without a fast_block (MountainCar, MountainCarContinuous: no trig in their
 * step worth vectorising) steps exactly in its fast def. No env is named here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccgym/driver.h"
#include "ccgym/fastmath.h"
#include "fast_kernels.h"

typedef struct fast_kernels {
    const char *isa;
    void (*sincos_array)(const double *x, double *s, double *c, size_t n);
    int (*discrete_in_range)(const int64_t *a, size_t n, int64_t n_actions);
    void (*drive)(const ccgym_env_def *exact, ccgym_fast_block_fn block, const ccgym_batch *b,
                  const void *actions, size_t begin, size_t end);
} fast_kernels;

#define FAST_KERNELS(SUFFIX)                                                             \
    {#SUFFIX, ccgym_fast_sincos_array_##SUFFIX, ccgym_fast_discrete_in_range_##SUFFIX,    \
     ccgym_fast_drive_##SUFFIX}

static const fast_kernels kernels[] = {
    [CCGYM_FAST_GENERIC] = FAST_KERNELS(generic),
#if defined(CCGYM_FAST_X86)
    [CCGYM_FAST_AVX2] = FAST_KERNELS(avx2),
    [CCGYM_FAST_AVX512] = FAST_KERNELS(avx512),
#endif
};

/* The best fast ISA this CPU runs (ccgym/fastmath.h CCGYM_FAST_*: avx2 with
 * fma; avx512 F, DQ, VL, BW). */
static int detect_isa(void)
{
#if defined(CCGYM_FAST_X86) && defined(CCGYM_X86_DETECT)
    const unsigned isa = ccgym_cpu_isa();
    if (isa & CCGYM_ISA_AVX512)
        return CCGYM_FAST_AVX512;
    if ((isa & CCGYM_ISA_AVX2) && (isa & CCGYM_ISA_FMA))
        return CCGYM_FAST_AVX2;
#endif
    return CCGYM_FAST_GENERIC;
}

static int best_isa(void)
{
    static int best = -1; /* a racing first call stores the same value */
    if (best < 0)
        best = detect_isa();
    return best;
}

/* The ISA in use: the best, or a lower one chosen by the environment
 * variable CCGYM_FAST_ISA (generic, avx2, avx512) or ccgym_fast_use_isa.
 * The binding calls ccgym_fast_isa() at import, so both caches are set
 * before any thread steps; afterwards only ccgym_fast_use_isa writes. */
static int used = -1;

static int isa_in_use(void)
{
    if (used < 0) {
        int isa = best_isa();
        const char *want = getenv("CCGYM_FAST_ISA");
        for (int k = 0; want && k < isa; k++)
            if (strcmp(want, kernels[k].isa) == 0)
                isa = k;
        used = isa;
    }
    return used;
}

const char *ccgym_fast_isa(void) { return kernels[isa_in_use()].isa; }

int ccgym_fast_use_isa(int isa)
{
    if (isa > best_isa())
        return -1;
    used = isa < 0 ? best_isa() : isa;
    return 0;
}

int ccgym_fast_sincos_array(const double *x, double *s, double *c, size_t n, int isa)
{
    if (isa < 0)
        isa = isa_in_use();
    if (isa > best_isa())
        return -1;
    kernels[isa].sincos_array(x, s, c, n);
    return 0;
}

int ccgym_discrete_in_range(const int64_t *a, size_t n, int64_t n_actions)
{
    return kernels[isa_in_use()].discrete_in_range(a, n, n_actions);
}

int ccgym_fast_isa_index(void) { return isa_in_use(); }

/* A fast def's step (CCGYM_DEFINE_ENV): the def's fast block under the fast
 * driver of the ISA in use (the rest of the fast def, sizes, tables and the
 * exact reset, is the exact def's). */
void ccgym_fast_drive(const ccgym_env_def *def, ccgym_fast_block_fn block, const ccgym_batch *b,
                      const void *actions, size_t begin, size_t end)
{
    kernels[isa_in_use()].drive(def, block, b, actions, begin, end);
}

/* The exact lanes blocks (ccgym_stock_def.exact_lanes_block) under the block
 * driver: its own arithmetic is bookkeeping (no physics), so the generic
 * build of it serves every ISA; the block is the exact file's. */
void ccgym_exact_lanes_drive(const ccgym_env_def *def, ccgym_fast_block_fn block,
                             const ccgym_batch *b, const void *actions, size_t begin, size_t end)
{
    ccgym_fast_drive_generic(def, block, b, actions, begin, end);
}
