// A reduced form of the cluster-merge decode's barriers, for compute-sanitizer synccheck: every block of a
// cluster of S blocks (grid (S, H, B), cluster (S, 1, 1)) fills its shared memory, passes top-level
// __syncthreads, a cluster barrier, reads a value of every other block by distributed shared memory,
// arrives / waits at a second cluster barrier, and writes one float per thread. Checked on the host.
// Usage: csync_repro S H B THREADS PDL(0|1) [DYN_SMEM]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__device__ __forceinline__ void c_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void c_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
__device__ __forceinline__ float ld_cluster(const float *a, unsigned rank) {
    unsigned r;
    float v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"((unsigned)__cvta_generic_to_shared(a)), "r"(rank));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(r) : "memory");
    return v;
}

__global__ void k(float *out, int pdl) {
    extern __shared__ float s[];
    const int t = threadIdx.x, S = gridDim.x;
    if (pdl) asm volatile("griddepcontrol.wait;" ::: "memory");
    s[t] = 1.0f + t + 1000.0f * blockIdx.x;
    __syncthreads();
    float v = s[(t + 1) % blockDim.x];
    __syncthreads();
    s[blockDim.x + t] = v;
    __syncthreads();
    if (pdl) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    c_arrive();
    c_wait();
    float acc = 0.0f;
    for (int r = 0; r < S; r++) acc += ld_cluster(s + blockDim.x + t, (unsigned)r);
    c_arrive();
    c_wait();
    out[((size_t)(blockIdx.z * gridDim.y + blockIdx.y) * S + blockIdx.x) * blockDim.x + t] = acc;
}

int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: %s S H B THREADS PDL [DYN_SMEM]\n", argv[0]); return 2; }
    const int S = atoi(argv[1]), H = atoi(argv[2]), B = atoi(argv[3]), T = atoi(argv[4]), pdl = atoi(argv[5]);
    const int dyn = argc > 6 ? atoi(argv[6]) : 2 * T * 4;
    const size_t n = (size_t)S * H * B * T;
    float *d;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) { fprintf(stderr, "cudaMalloc failed\n"); return 1; }
    cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[2];
    cfg.gridDim = dim3(S, H, B);
    cfg.blockDim = dim3(T);
    cfg.dynamicSmemBytes = dyn;
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = S;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    at[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[1].val.programmaticStreamSerializationAllowed = pdl;
    cfg.attrs = at;
    cfg.numAttrs = 2;
    for (int it = 0; it < 3; it++) {
        cudaError_t e = cudaLaunchKernelEx(&cfg, k, d, pdl);
        if (e != cudaSuccess) { fprintf(stderr, "launch S %d: %s\n", S, cudaGetErrorString(e)); return 1; }
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "sync S %d: %s\n", S, cudaGetErrorString(e)); return 1; }
    float *h = (float *)malloc(n * sizeof(float));
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        const int t = (int)(i % T);
        const float want = S * (1.0f + (t + 1) % T) + 1000.0f * (S * (S - 1) / 2);
        if (h[i] != want) bad++;
    }
    printf("S %d H %d B %d T %d pdl %d dyn %d: %s (%ld bad of %zu)\n", S, H, B, T, pdl, dyn, bad ? "WRONG" : "ok", bad, n);
    return bad ? 1 : 0;
}
