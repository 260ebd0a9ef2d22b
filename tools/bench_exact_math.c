/* Raw speed of exact math's sin+cos (the lanes in use) against libm's, in ns
 * per value, on 4096 values uniform in [lo, hi] (default [-3.5, 3.5]).
 *
 *   F="-O2 -ffp-contract=off -fno-fast-math -fno-math-errno -Iinclude -Isrc/include"
 *   gcc $F -mavx2 -mfma -DCCGYM_XM_LANES=avx2 -c src/exact_math_lanes.c -o /tmp/xm_avx2.o
 *   gcc $F -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma -DCCGYM_XM_LANES=avx512 \
 *       -c src/exact_math_lanes.c -o /tmp/xm_avx512.o
 *   gcc $F tools/bench_exact_math.c src/exact_math.c /tmp/xm_avx2.o /tmp/xm_avx512.o -lm -o /tmp/b
 *   /tmp/b [lo hi]          # CCGYM_EXACT_MATH=avx2 / scalar: other lanes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "ccgym/exactmath.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){
  double lo=argc>1?atof(argv[1]):-3.5, hi=argc>2?atof(argv[2]):3.5;
  ccgym_exact_math_init(); printf("lanes %s, x uniform in [%g, %g]\n", ccgym_exact_math_lanes(), lo, hi);
  enum{N=4096}; static double x[N],s[N],c[N]; unsigned long long st=1;
  for(int i=0;i<N;i++){st=st*6364136223846793005ULL+1;x[i]=lo+(hi-lo)*((st>>11)*(1.0/9007199254740992.0));}
  int R=2000; double best=1e9;
  for(int t=0;t<5;t++){double t0=now(); for(int r=0;r<R;r++){ccgym_xm_sincos_array(x,s,c,N); __asm__ volatile(""::"r"(s):"memory");} double dt=(now()-t0)/(R*(double)N)*1e9; if(dt<best)best=dt;}
  printf("exact lanes sin+cos: %.2f ns/value\n",best);
  best=1e9; volatile double sink=0;
  for(int t=0;t<5;t++){double t0=now(); for(int r=0;r<R/4;r++){for(int i=0;i<N;i++){s[i]=sin(x[i]);c[i]=cos(x[i]);} __asm__ volatile(""::"r"(s):"memory");} double dt=(now()-t0)/(R/4*(double)N)*1e9; if(dt<best)best=dt;}
  sink+=s[5];
  printf("libm sin+cos:        %.2f ns/value\n",best);
}
