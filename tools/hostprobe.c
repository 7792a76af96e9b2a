/* tools/hostprobe.c - where the host's time of an oscar_cuda call goes, without touching the library: a shim for
   libcuda that oscar_cuda.h loads in its place (OSCAR_LIBCUDA=build/hostprobe.so). The shim is linked against the
   real libcuda.so.1, so every entry point it does not define resolves there (dlsym on the shim's handle searches its
   dependencies); the few it defines (context push / pop, the async upload, the launches, event records) forward to
   the real ones and record their start and end (CLOCK_MONOTONIC, ns). At exit the records go to $HOSTPROBE_OUT (one
   line each: name, start ns, end ns), and tools/hostprobe.py splits them into calls between event records.
   build (device machine): cc -O2 -shared -fPIC -o build/hostprobe.so tools/hostprobe.c -ldl -Wl,--no-as-needed -l:libcuda.so.1
   Timing only: not part of the library or its tests. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef void *hp_ptr;
enum { HP_CAP = 1 << 20 };
static struct hp_rec {
    const char *name;
    long long t0, t1;
} hp_recs[HP_CAP];
static int hp_n;
static void *hp_lib;

static long long hp_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}
static void *hp_real(const char *name) {
    if (!hp_lib) hp_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    return hp_lib ? dlsym(hp_lib, name) : NULL;
}
static void hp_put(const char *name, long long t0) {
    if (hp_n < HP_CAP) {
        hp_recs[hp_n].name = name;
        hp_recs[hp_n].t0 = t0;
        hp_recs[hp_n].t1 = hp_now();
        hp_n++;
    }
}
__attribute__((destructor)) static void hp_dump(void) {
    const char *path = getenv("HOSTPROBE_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    int i;
    if (!f) return;
    for (i = 0; i < hp_n; i++) fprintf(f, "%s %lld %lld\n", hp_recs[i].name, hp_recs[i].t0, hp_recs[i].t1);
    fclose(f);
}

#define HP_FWD(ret_name, proto, args)                                  \
    CUresult ret_name proto {                                          \
        static CUresult(*real) proto;                                  \
        long long t0 = hp_now();                                       \
        CUresult r;                                                    \
        if (!real) *(void **)&real = hp_real(#ret_name);               \
        r = real ? real args : 999;                                    \
        hp_put(#ret_name, t0);                                         \
        return r;                                                      \
    }

HP_FWD(cuCtxPushCurrent_v2, (hp_ptr c), (c))
HP_FWD(cuCtxPopCurrent_v2, (hp_ptr *c), (c))
HP_FWD(cuMemcpyHtoDAsync_v2, (unsigned long long d, const void *s, size_t n, hp_ptr st), (d, s, n, st))
HP_FWD(cuLaunchKernelEx, (const void *cfg, hp_ptr f, void **p, void **x), (cfg, f, p, x))
HP_FWD(cuLaunchKernel, (hp_ptr f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e, unsigned g, unsigned sm, hp_ptr st, void **p, void **x),
       (f, a, b, c, d, e, g, sm, st, p, x))
HP_FWD(cuEventRecord, (hp_ptr e, hp_ptr st), (e, st))
HP_FWD(cuEventSynchronize, (hp_ptr e), (e))
