/* How far each constant must be off before the self-check notices: for each,
 * the self-check's mismatch count with the constant moved by 2^e ulps,
 * e = 0, 4, 8, ... up to the first e it catches (or 40). Not a test (a
 * report: tools and docs quote it); build like exact_math_check. */
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <math.h>
#include "ccgym/exactmath.h"
static uint64_t u(double d){uint64_t x;memcpy(&x,&d,8);return x;}
static double d_(uint64_t x){double d;memcpy(&d,&x,8);return d;}
int main(void){
  int v=ccgym_exact_math_init(); const ccgym_xm_consts *K=ccgym_exact_math_consts();
  const char *names[]={"sn3","sn5","cs4","cs6","s1","s2","s3","s4","s5","hpinv","hp1","mp2","pp3","pp4"};
  size_t offs[]={offsetof(ccgym_xm_consts,sn3),offsetof(ccgym_xm_consts,sn5),offsetof(ccgym_xm_consts,cs4),offsetof(ccgym_xm_consts,cs6),offsetof(ccgym_xm_consts,s1),offsetof(ccgym_xm_consts,s2),offsetof(ccgym_xm_consts,s3),offsetof(ccgym_xm_consts,s4),offsetof(ccgym_xm_consts,s5),offsetof(ccgym_xm_consts,hpinv),offsetof(ccgym_xm_consts,hp1),offsetof(ccgym_xm_consts,mp2),offsetof(ccgym_xm_consts,pp3),offsetof(ccgym_xm_consts,pp4)};
  for(int c=0;c<14;c++){
    printf("%-6s", names[c]);
    for(int e=0;e<=40;e+=4){ ccgym_xm_consts P=*K; double *pp=(double*)((char*)&P+offs[c]); *pp=d_(u(*pp)+(1ULL<<e)); long n; long bad=ccgym_xm_selfcheck(&P,v,0,&n); printf(" 2^%d:%ld", e, bad); if(bad>0) break;}
    printf("\n");
  }
}
