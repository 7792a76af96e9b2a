// tools/ubench_idle.cu - what a call costs from an idle GPU, by how it is submitted (issue 5).
// bench_gpu's "events" columns time one call from an idle GPU: event, the call's launches, event,
// synchronise. This times the same shape of call (a batch-1-like grid that reads 6 MB, then a small
// dependent kernel under programmatic dependent launch) submitted as separate launches, as a CUDA
// graph launched per call (with and without updating both kernels' parameters first), and with host
// time inserted before and between the launches (does the host's time before the first launch count?).
// It also times a 1 GiB device copy from idle against back to back.
// Build (here): nvcc -O2 -arch=sm_90 -o build/ubench_idle tools/ubench_idle.cu -lcuda
// Run on the device: ./build/ubench_idle
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <algorithm>

struct Prm { const float4 *in; float *part; float *out; int stride; int pad[64]; };

// the "decode": 41 x 8 blocks of 256 threads, each reads 16 KB and writes one partial
__global__ void k_load(Prm p) {
    const float4 *src = p.in + (size_t)(blockIdx.y * gridDim.x + blockIdx.x) * 1024;
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 4; i++) { float4 v = src[i * 256 + threadIdx.x]; s += v.x + v.y + v.z + v.w; }
    asm volatile("griddepcontrol.launch_dependents;");
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    __shared__ float ws[8];
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) p.part[blockIdx.y * gridDim.x + blockIdx.x] = ws[0] + ws[1] + ws[2] + ws[3] + ws[4] + ws[5] + ws[6] + ws[7];
}
// the "merge": one block per KV head sums its 41 partials after the grid dependency
__global__ void k_merge(Prm p) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    float s = threadIdx.x < 41 ? p.part[blockIdx.x * 41 + threadIdx.x] : 0.f;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(p.out + blockIdx.x, s);
}

static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return 1e6 * t.tv_sec + 1e-3 * t.tv_nsec; }
static void spin_us(double us) { double t0 = now_us(); while (now_us() - t0 < us) {} }
#define CK(x) do { CUresult r_ = (x); if (r_) { const char *s_ = 0; cuGetErrorString(r_, &s_); printf("%s: %d %s\n", #x, (int)r_, s_ ? s_ : ""); return 1; } } while (0)

static CUfunction fload, fmerge;
static CUstream st;

static CUresult launch_load(Prm *p) {
    void *args[1] = {p};
    return cuLaunchKernel(fload, 41, 8, 1, 256, 1, 1, 0, st, args, NULL);
}
static CUresult launch_merge(Prm *p) {
    void *args[1] = {p};
    CUlaunchAttribute at; memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; at.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig lc; memset(&lc, 0, sizeof lc);
    lc.gridDimX = 8; lc.gridDimY = lc.gridDimZ = 1; lc.blockDimX = 64; lc.blockDimY = lc.blockDimZ = 1;
    lc.hStream = st; lc.attrs = &at; lc.numAttrs = 1;
    return cuLaunchKernelEx(&lc, fmerge, args, NULL);
}

int main() {
    CUdevice dev; CUcontext ctx;
    CK(cuInit(0)); CK(cuDeviceGet(&dev, 0)); CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    cudaFunction_t h1, h2;
    if (cudaGetFuncBySymbol(&h1, (void *)k_load) != cudaSuccess || cudaGetFuncBySymbol(&h2, (void *)k_merge) != cudaSuccess) { printf("no function handles\n"); return 1; }
    fload = (CUfunction)h1; fmerge = (CUfunction)h2;
    CUdeviceptr in, part, out;
    const size_t nin = (size_t)41 * 8 * 1024 * 16 * 4; // 4 sets of 5.4 MB: the calls rotate through them
    CK(cuMemAlloc(&in, nin)); CK(cuMemAlloc(&part, 4096)); CK(cuMemAlloc(&out, 4096));
    CK(cuMemsetD32(in, 0x3f800000u, nin / 4));
    Prm p[4];
    for (int i = 0; i < 4; i++) { memset(&p[i], 0, sizeof p[i]); p[i].in = (const float4 *)(in + (size_t)i * nin / 4); p[i].part = (float *)part; p[i].out = (float *)out; }
    CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));

    // the graph of one call (captured from the two launches, so the PDL edge is kept)
    CUgraph g; CUgraphExec ge;
    CK(cuStreamBeginCapture(st, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    CK(launch_load(&p[0])); CK(launch_merge(&p[0]));
    CK(cuStreamEndCapture(st, &g));
    CK(cuGraphInstantiate(&ge, g, 0));
    CK(cuGraphUpload(ge, st));
    size_t nn = 0; CK(cuGraphGetNodes(g, NULL, &nn));
    CUgraphNode nodes[8]; if (nn > 8) nn = 8; CK(cuGraphGetNodes(g, nodes, &nn));
    CUDA_KERNEL_NODE_PARAMS kp[8];
    for (size_t i = 0; i < nn; i++) CK(cuGraphKernelNodeGetParams(nodes[i], &kp[i]));
    printf("graph: %zu nodes\n", nn);

    const char *names[] = {"1 launch (load)", "2 launches (load, merge PDL)", "graph, no update", "graph + 2 SetParams", "10 us host, then 2 launches",
                           "2 launches, 10 us host between", "1 launch, 20 us host after", "empty stream: events only"};
    const int NV = 8, NI = 60;
    for (int rep = 0; rep < 2; rep++)
        for (int v = 0; v < NV; v++) {
            float t[NI]; double h[NI];
            for (int i = 0; i < NI; i++) {
                Prm *pp = &p[i & 3];
                CK(cuStreamSynchronize(st));
                CK(cuEventRecord(e0, st));
                double h0 = now_us();
                switch (v) {
                case 0: CK(launch_load(pp)); break;
                case 1: CK(launch_load(pp)); CK(launch_merge(pp)); break;
                case 2: CK(cuGraphLaunch(ge, st)); break;
                case 3:
                    for (size_t k = 0; k < nn; k++) { void *a[1] = {pp}; kp[k].kernelParams = a; kp[k].extra = NULL; CK(cuGraphExecKernelNodeSetParams(ge, nodes[k], &kp[k])); }
                    CK(cuGraphLaunch(ge, st));
                    break;
                case 4: spin_us(10); CK(launch_load(pp)); CK(launch_merge(pp)); break;
                case 5: CK(launch_load(pp)); spin_us(10); CK(launch_merge(pp)); break;
                case 6: CK(launch_load(pp)); spin_us(20); break;
                case 7: break;
                }
                h[i] = now_us() - h0;
                CK(cuEventRecord(e1, st));
                CK(cuEventSynchronize(e1));
                CK(cuEventElapsedTime(&t[i], e0, e1));
            }
            std::sort(t, t + NI); std::sort(h, h + NI);
            printf("%-34s events median %6.2f us  min %6.2f   host median %6.2f us\n", names[v], 1000.0f * t[NI / 2], 1000.0f * t[0], h[NI / 2]);
        }
    // back to back, for reference
    {
        CK(cuStreamSynchronize(st));
        CK(cuEventRecord(e0, st));
        for (int i = 0; i < 200; i++) { CK(launch_load(&p[i & 3])); CK(launch_merge(&p[i & 3])); }
        CK(cuEventRecord(e1, st)); CK(cuEventSynchronize(e1));
        float ms; CK(cuEventElapsedTime(&ms, e0, e1));
        printf("%-34s %6.2f us per call\n", "2 launches back to back", 1000.0f * ms / 200);
        CK(cuEventRecord(e0, st));
        for (int i = 0; i < 200; i++) CK(cuGraphLaunch(ge, st));
        CK(cuEventRecord(e1, st)); CK(cuEventSynchronize(e1));
        CK(cuEventElapsedTime(&ms, e0, e1));
        printf("%-34s %6.2f us per call\n", "graph launches back to back", 1000.0f * ms / 200);
    }
    // a 1 GiB copy from idle against back to back (the write path's from-idle gap)
    {
        const size_t bytes = (size_t)1 << 30;
        CUdeviceptr a, b; CK(cuMemAlloc(&a, bytes)); CK(cuMemAlloc(&b, bytes));
        CK(cuMemsetD32(a, 0x3f9e3779u, bytes / 4));
        float t[12], tb[6];
        for (int i = 0; i < 3; i++) CK(cuMemcpyDtoDAsync(b, a, bytes, st));
        for (int i = 0; i < 12; i++) {
            CK(cuStreamSynchronize(st));
            CK(cuEventRecord(e0, st)); CK(cuMemcpyDtoDAsync(i & 1 ? a : b, i & 1 ? b : a, bytes, st)); CK(cuEventRecord(e1, st));
            CK(cuEventSynchronize(e1)); CK(cuEventElapsedTime(&t[i], e0, e1));
        }
        for (int i = 0; i < 6; i++) { // e0 .. e1 around the second of two queued copies
            CUevent m; CK(cuEventCreate(&m, 0));
            CK(cuStreamSynchronize(st));
            CK(cuMemcpyDtoDAsync(b, a, bytes, st)); CK(cuEventRecord(e0, st)); CK(cuMemcpyDtoDAsync(a, b, bytes, st)); CK(cuEventRecord(e1, st));
            CK(cuEventSynchronize(e1)); CK(cuEventElapsedTime(&tb[i], e0, e1)); cuEventDestroy(m);
        }
        std::sort(t, t + 12); std::sort(tb, tb + 6);
        printf("1 GiB copy: from idle median %.4f ms (min %.4f), behind another copy median %.4f ms (min %.4f)\n", t[6], t[0], tb[3], tb[0]);
    }
    return 0;
}
