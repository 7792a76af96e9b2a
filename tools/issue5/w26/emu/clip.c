/* tools/issue5/w26/emu/clip.c - a CPU copy of the codec's clip threshold (kernels/oscar_append.cu, one row at a
   time): the bisection before w26 against the w26 brackets and fixed halvings, over 2.4 M rows of six kinds
   (it cannot see warp-level faults such as a count's shuffles skipped in some lanes): gcc -O2 clip.c -lm */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <stdlib.h>
typedef uint32_t u32;
static float u2f(u32 x){float f; memcpy(&f,&x,4); return f;}
static u32 f2u(float f){u32 x; memcpy(&x,&f,4); return x;}
static uint16_t bf(float f){u32 x=f2u(f); if((x&0x7fffffffu)>0x7f800000u) return (x>>16)|0x40; x+=0x7fffu+((x>>16)&1u); return x>>16;}
static int D=128;
static uint16_t a[128];
static int cnt(int key){ /* #{|x| >= key as bf16 value}; key's value NaN -> 0 */ float kv=u2f((u32)key<<16); int c=0; for(int i=0;i<D;i++){ if (u2f((u32)a[i]<<16) >= kv) c++; } return c; }
static int old_t(int k, int M){ int lo = M>=128? M-128:0, hi=M+1; if (cnt(lo)<k) hi=lo, lo=0; while(hi-lo>1){int mid=(lo+hi)>>1; if(cnt(mid)>=k) lo=mid; else hi=mid;} return lo; }
static int new_t(int k, int M, int *far_){ int lo = M>=127? M-127:0; int below = cnt(lo)<k; int far=0; if(below) lo = lo-128>0? lo-128:0; if(below){ far = cnt(lo)<k; if(far){ int l2=0,h2=lo; while(h2-l2>1){int mid=(l2+h2)>>1; if(cnt(mid)>=k) l2=mid; else h2=mid;} lo=l2; } }
  for(int h=64;h>=1;h>>=1){ int mid=lo+h; if(cnt(mid)>=k && !far) lo=mid; } *far_=far; return lo; }
int main(){ srand(2); long diff=0, nfar=0, nbelow=0;
  for(long it=0; it<400000; it++){
    int kind = it%6; float sc = ldexpf(1.0f, rand()%30-15);
    for(int i=0;i<D;i++){ float g = (float)(sqrt(-2*log((rand()+1.0)/(RAND_MAX+2.0)))*cos(6.283*rand()/(double)RAND_MAX));
      float v = g*sc; if(kind==1 && i==3) v*=40; if(kind==2) v = (i<5)? 100*sc : g*sc*0.001f; if(kind==3) v = (rand()%4==0)? g*sc:0.0f; if(kind==4) v=(i%2?1:-1)*sc; if (kind==5 && i<20) v = 0;
      a[i] = bf(fabsf(v)) & 0x7fff; }
    int M=0; for(int i=0;i<D;i++) if(a[i]>M) M=a[i];
    for (int k=1;k<=20;k+=(k<12?5:8)) { int f; int o=old_t(k,M), n=new_t(k,M,&f); nfar+=f; if(o!=n){ if(diff<10) printf("diff kind %d k %d M %x old %x new %x\n",kind,k,M,o,n); diff++; } }
  }
  printf("diff %ld far %ld\n", diff, nfar);
}
