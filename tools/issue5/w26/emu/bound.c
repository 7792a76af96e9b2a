/* tools/issue5/w26/emu/bound.c - a CPU copy of oscar__bound (kernels/oscar_append.cu) with and without the
   w26b fast path (the estimate's key and its neighbours first), compared over up to 9 M (m, s, q);
   "slow" counts the boundaries that fell to the search. gcc -O2 bound.c -lm (-DREAL=0: also
   groups the codec never has, with negative or overflowing scales) */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>
#ifndef REAL
#define REAL 1
#endif
typedef uint32_t u32;
static float u2f(u32 x){float f; memcpy(&f,&x,4); return f;}
static u32 f2u(float f){u32 x; memcpy(&x,&f,4); return x;}
static uint16_t bf(float f){u32 x=f2u(f); if((x&0x7fffffffu)>0x7f800000u) return (x>>16)|0x40; x+=0x7fffu+((x>>16)&1u); return x>>16;}
static int code(float v, float m, float s){ if(s==0.0f) return 0; volatile float d=v-m; volatile float qq=d/s; volatile float t=qq+0.5f; float tq=floorf(t); return tq<0?0:(tq>3?3:(int)tq);}
static u32 ok16(u32 b){return (b&0x8000u)?(~b&0xffffu):(b|0x8000u);}
static u32 ik16(u32 k){return (k&0x8000u)?(k&0x7fffu):(~k&0xffffu);}
static float k16f(u32 k){return u2f(ik16(k)<<16);}
static int mx(int a,int b){return a>b?a:b;} static int mn(int a,int b){return a<b?a:b;}
static u32 bound(float m, float s, int q, int fast, int *evals) {
    if (s == 0.0f) return 0x7fc0u;
    const int kmin = 0x007f, kmax = 0xff80;
    volatile float x0 = m + ((float)q - 0.5f) * s;
    const float w = u2f(f2u(m) & 0x7f800000) * 5.9604645e-8f;
    if (fabsf(x0) < 4.0f * w) x0 = code(0.0f, m, s) >= q ? -w : w;
    int k = (int)ok16(bf(x0)), lo, hi, st = 1;
    k = mn(mx(k, kmin), kmax);
    if (fast) {
      const int c0 = code(k16f(k), m, s), cm = code(k16f(mx(k-1,kmin)), m, s), cp = code(k16f(mn(k+1,kmax)), m, s);
      if (c0 >= q && (k == kmin || cm < q)) return ik16(k);
      if (c0 < q && k < kmax && cp >= q) return ik16(k + 1);
      (*evals)++;
    }
    if (code(k16f(k), m, s) >= q) {
        hi = k, lo = k - 1;
        while (lo > kmin && code(k16f(lo), m, s) >= q) hi = lo, st *= 2, lo = mx(hi - st, kmin);
    } else {
        lo = k, hi = k + 1;
        while (hi < kmax && code(k16f(hi), m, s) < q) lo = hi, st *= 2, hi = mn(lo + st, kmax);
    }
    while (hi - lo > 1) { const int mid = (lo + hi) >> 1; if (code(k16f(mid), m, s) >= q) hi = mid; else lo = mid; }
    return ik16(hi);
}
static float h16(float f){ return (float)(_Float16)f; }
int main(){
  long n=0, diff=0, slow=0; srand(1);
  for (long it=0; it<3000000; it++){
    float a = (float)(rand()/(double)RAND_MAX*2-1), b=(float)(rand()/(double)RAND_MAX*2-1);
    float scl = ldexpf(1.0f, rand()%40-20);
    float lo_ = fminf(a,b)*scl, hi_=fmaxf(a,b)*scl;
    if (it%3==0) { lo_ = -hi_; } /* symmetric */
    if (it%7==0) { lo_ = 0.0f; }
    /* (with REAL=1 only groups the codec can have: min <= max, inside the fp16 range) */
    if (REAL) { if (it%3==0) { hi_ = fabsf(hi_) + 1e-30f; lo_ = -hi_; } if (it%7==0) { hi_ = fabsf(hi_); lo_ = 0.0f; }
                if (fabsf(lo_) > 16384.0f || fabsf(hi_) > 16384.0f) continue; }
    float sc = (hi_-lo_)/3.0f; float s=h16(sc), m=h16(lo_);
    for (int q=1;q<=3;q++){ int e=0; u32 r0=bound(m,s,q,0,&e), r1=bound(m,s,q,1,&e); n++; slow+=e; if(r0!=r1){ if(diff<10) printf("diff m=%g s=%g q=%d %x %x\n",m,s,q,r0,r1); diff++; } }
  }
  printf("n %ld diff %ld slow %ld\n", n, diff, slow);
}
