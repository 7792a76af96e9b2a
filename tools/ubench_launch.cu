// tools/ubench_launch.cu - what one kernel launch costs the host (issue 5: batch 1 from an idle GPU
// waits for the host to submit all three launches of a call; bench_gpu's host_us is 8-11 us).
// Build: nvcc -O2 -arch=sm_90 -o build/ubench_launch tools/ubench_launch.cu -lcuda
// Run on the device: ./build/ubench_launch. Per variant: host microseconds per launch (median of
// 9 rounds of 200 launches each, no synchronisation inside a round) and the same with a context
// push / pop around each launch (as oscar_cuda_kv_attend does once per call).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <algorithm>

struct P16 { unsigned long long a, b; };
struct P640 { unsigned long long a[9]; int i[12]; int inl[128]; };
__global__ void k16(P16 p) { if (threadIdx.x == 999) ((int *)p.a)[0] = 1; }
__global__ void k640(P640 p) { if (threadIdx.x == 999) ((int *)p.a[0])[0] = p.inl[5]; }

static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return 1e6 * t.tv_sec + 1e-3 * t.tv_nsec; }
#define CK(x) do { CUresult r_ = (x); if (r_) { printf("%s: %d\n", #x, (int)r_); return 1; } } while (0)

int main() {
    CUdevice dev; CUcontext ctx; CUfunction f16, f640; CUstream st;
    CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    // the runtime registered the kernels; take their driver handles
    cudaFunction_t h16, h640;
    void *p16 = (void *)k16, *p640 = (void *)k640;
    if (cudaGetFuncBySymbol(&h16, p16) != cudaSuccess || cudaGetFuncBySymbol(&h640, p640) != cudaSuccess) { printf("no function handles\n"); return 1; }
    f16 = (CUfunction)h16; f640 = (CUfunction)h640;
    CUdeviceptr buf; CK(cuMemAlloc(&buf, 4096));
    P16 a16; a16.a = buf; a16.b = 0;
    P640 a640; memset(&a640, 0, sizeof a640); a640.a[0] = buf;
    const char *names[] = {"cuLaunchKernel 16 B", "cuLaunchKernel 640 B", "cuLaunchKernelEx+PDL 16 B", "cuLaunchKernelEx+PDL 640 B"};
    for (int pp = 0; pp < 2; pp++)
        for (int v = 0; v < 4; v++) {
            double r[9];
            for (int round = 0; round < 10; round++) {
                CK(cuStreamSynchronize(st));
                double t0 = now_us();
                for (int i = 0; i < 200; i++) {
                    if (pp) { CK(cuCtxPushCurrent(ctx)); }
                    CUfunction f = (v & 1) ? f640 : f16;
                    void *args[1] = {(v & 1) ? (void *)&a640 : (void *)&a16};
                    if (v < 2) CK(cuLaunchKernel(f, 384, 1, 1, 128, 1, 1, 0, st, args, NULL));
                    else {
                        CUlaunchAttribute at; memset(&at, 0, sizeof at);
                        at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; at.value.programmaticStreamSerializationAllowed = 1;
                        CUlaunchConfig lc; memset(&lc, 0, sizeof lc);
                        lc.gridDimX = 384; lc.gridDimY = lc.gridDimZ = 1; lc.blockDimX = 128; lc.blockDimY = lc.blockDimZ = 1;
                        lc.hStream = st; lc.attrs = &at; lc.numAttrs = 1;
                        CK(cuLaunchKernelEx(&lc, f, args, NULL));
                    }
                    if (pp) { CUcontext o; CK(cuCtxPopCurrent(&o)); }
                }
                double t1 = now_us();
                if (round) r[round - 1] = (t1 - t0) / 200;
            }
            std::sort(r, r + 9);
            printf("%-28s %s: %.2f us per launch (min %.2f)\n", names[v], pp ? "with push/pop" : "             ", r[4], r[0]);
        }
    CK(cuStreamSynchronize(st));
    return 0;
}
