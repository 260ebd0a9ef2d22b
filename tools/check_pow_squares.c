/* Checks, for every float32 value a, that libm's pow((double)a, 2.0) is
 * bit for bit (double)a * (double)a (what src/include/ccgym/npmath.h's
 * ccgym_pow2_of_f32 relies on), counts where powf(a, 2.0f) differs from
 * a * a in float32 (why ccgym_pow2f cannot simply square), and checks that
 * ccgym_pow2f's rule (the rounded exact square where it is within
 * CCGYM_POW2F_T float ulps of it) gives powf's bits wherever it applies.
 *
 *     gcc -O2 -fno-builtin -ffp-contract=off -Iinclude -Isrc/include tools/check_pow_squares.c -o /tmp/chk -lm
 *     /tmp/chk        # a minute or two; exits 1 if a check fails
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ccgym/npmath.h"

int ccgym_pow2_fast, ccgym_pow2f_fast; /* (src/exact_math.c's; unused here) */

int main(void)
{
    volatile double two = 2.0;
    volatile float twof = 2.0f;
    uint64_t pow_diff = 0, powf_diff = 0, powf_diff_normal = 0, rule_diff = 0, rule_taken = 0;
    for (uint64_t u = 0; u < (1ull << 32); u++) {
        const uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, 4);
        if (f != f)
            continue;
        const double a = (double)f, p = pow(a, two), q = a * a;
        if (memcmp(&p, &q, 8) != 0) {
            if (pow_diff++ < 5)
                printf("pow(%a, 2) = %a, a * a = %a\n", a, p, q);
        }
        const float pf = powf(f, twof), qf = f * f;
        float rf;
        if (ccgym_pow2f_try(f, CCGYM_POW2F_T * 0x1p-23, &rf)) {
            rule_taken++;
            if (memcmp(&rf, &pf, 4) != 0 && rule_diff++ < 5)
                printf("rule: powf(%a, 2) = %a, the rule's %a\n", (double)f, (double)pf, (double)rf);
        }
        if (memcmp(&pf, &qf, 4) != 0) {
            powf_diff++;
            powf_diff_normal += fabsf(qf) >= 0x1p-126f || fabsf(pf) >= 0x1p-126f;
        }
    }
    printf("pow((double)a, 2) != a * a: %llu of 2**32 float32 a\n", (unsigned long long)pow_diff);
    printf("powf(a, 2) != a * a: %llu (%llu with a normal result)\n",
           (unsigned long long)powf_diff, (unsigned long long)powf_diff_normal);
    printf("ccgym_pow2f's rule != powf: %llu of the %llu floats it takes\n",
           (unsigned long long)rule_diff, (unsigned long long)rule_taken);
    return pow_diff != 0 || rule_diff != 0;
}
