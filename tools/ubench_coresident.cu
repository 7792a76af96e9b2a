// tools/ubench_coresident.cu - how many blocks of a decode-like kernel B an SM takes beside a block
// of a rotate_q-like kernel A (issue 5, kernels/NOTES.md v42: at batch 1, 32 SMs that hold an
// oscar_rotate_q block take one oscar_decode_w block instead of two). A: 32 blocks x 512 threads,
// static shared memory SA, spinning ~25 us after letting its dependent start; B: launched after A
// with programmatic dependent launch, NB blocks x 128 threads, dynamic shared memory SB, each spinning
// ~20 us. Per variant (A's carveout, B's carveout, SA, SB): how many B blocks started within 5 us on
// the SMs that hold an A block and on the others (histogram "blocks:SMs").
// Build: nvcc -O2 -arch=sm_90 -o build/ubench_coresident tools/ubench_coresident.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <map>

static __device__ __forceinline__ unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
static __device__ __forceinline__ unsigned smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
// KV values kept live in registers through the spin (so the kernel's register count is about KV + 10)
template <int KV>
static __device__ __forceinline__ float hold(unsigned long long t0, int spin_ns, float *sm, int sn) {
    float v[KV];
#pragma unroll
    for (int i = 0; i < KV; i++) v[i] = threadIdx.x * (i + 1);
    while (gtime() - t0 < (unsigned long long)spin_ns) {
#pragma unroll
        for (int i = 0; i < KV; i++) asm volatile("fma.rn.f32 %0, %0, 0f3F800347, 0f3F800000;" : "+f"(v[i]));
        if (sn > 0) sm[threadIdx.x % sn] = v[0];
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < KV; i++) s += v[i];
    return s;
}
template <int SA, int KA, int NT = 512>
__global__ void __launch_bounds__(NT) kA(unsigned long long *rec, int spin_ns) {
    __shared__ float buf[SA / 4 > 0 ? SA / 4 : 1];
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    const unsigned long long t0 = gtime();
    if (threadIdx.x == 0) { rec[2 * blockIdx.x] = smid(); rec[2 * blockIdx.x + 1] = t0; }
    if (hold<KA>(t0, spin_ns, buf, SA / 4) == 12345.0f) rec[0] = 0;
}
template <int KB>
__global__ void __launch_bounds__(128) kB(unsigned long long *rec, int spin_ns) {
    extern __shared__ float dyn[];
    const unsigned long long t0 = gtime();
    if (threadIdx.x == 0) { rec[2 * blockIdx.x] = smid(); rec[2 * blockIdx.x + 1] = t0; }
    if (hold<KB>(t0, spin_ns, dyn, 128) == 12345.0f) rec[0] = 0;
}

#define CK(x) do { cudaError_t r_ = (x); if (r_) { printf("%s: %s\n", #x, cudaGetErrorString(r_)); return 1; } } while (0)

template <int SA, int KA, int KB, int NT = 512>
static int run(int ca, int cb, int sb, int nb, unsigned long long *dA, unsigned long long *dB, cudaStream_t st) {
    CK(cudaFuncSetAttribute(kA<SA, KA, NT>, cudaFuncAttributePreferredSharedMemoryCarveout, ca));
    CK(cudaFuncSetAttribute(kB<KB>, cudaFuncAttributePreferredSharedMemoryCarveout, cb));
    CK(cudaFuncSetAttribute(kB<KB>, cudaFuncAttributeMaxDynamicSharedMemorySize, sb));
    int occA = 0, occB = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occA, kA<SA, KA, NT>, 512, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occB, kB<KB>, 128, sb);
    cudaFuncAttributes fa, fb;
    cudaFuncGetAttributes(&fa, kA<SA, KA, NT>);
    cudaFuncGetAttributes(&fb, kB<KB>);
    std::map<int, int> hA, hO;
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaStreamSynchronize(st));
        kA<SA, KA, NT><<<32 * 512 / NT, NT, 0, st>>>(dA, 25000);
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t lc;
        memset(&lc, 0, sizeof lc);
        lc.gridDim = dim3(nb);
        lc.blockDim = dim3(128);
        lc.dynamicSmemBytes = sb;
        lc.stream = st;
        lc.attrs = at;
        lc.numAttrs = 1;
        CK(cudaLaunchKernelEx(&lc, kB<KB>, dB, 20000));
        CK(cudaStreamSynchronize(st));
        unsigned long long a[512], b[4096];
        CK(cudaMemcpy(a, dA, sizeof(unsigned long long) * 2 * 32 * 512 / NT, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(b, dB, sizeof(unsigned long long) * 2 * nb, cudaMemcpyDeviceToHost));
        int hasA[256] = {0}, cnt[256] = {0};
        unsigned long long b0 = ~0ull;
        for (int i = 0; i < 32 * 512 / NT; i++) hasA[a[2 * i] & 255] = 1;
        for (int i = 0; i < nb; i++) b0 = b[2 * i + 1] < b0 ? b[2 * i + 1] : b0;
        for (int i = 0; i < nb; i++)
            if (b[2 * i + 1] - b0 < 5000) cnt[b[2 * i] & 255]++;
        int nsm = 0;
        cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
        if (rep == 2)
            for (int s = 0; s < nsm; s++) (hasA[s] ? hA : hO)[cnt[s]]++;
    }
    printf("A %d x %d thr smem %5d carveout %4d (regs %d, occ %d) | B smem %6d carveout %4d (regs %d, occ %d), %d blocks | B blocks started in 5 us, blocks:SMs on A's SMs:",
           32 * 512 / NT, NT, SA, ca, fa.numRegs, occA, sb, cb, fb.numRegs, occB, nb);
    for (auto &kv : hA) printf(" %d:%d", kv.first, kv.second);
    printf("  others:");
    for (auto &kv : hO) printf(" %d:%d", kv.first, kv.second);
    printf("\n");
    return 0;
}

int main() {
    unsigned long long *dA, *dB;
    cudaStream_t st;
    CK(cudaMalloc(&dA, 512 * sizeof(unsigned long long)));
    CK(cudaMalloc(&dB, 8192 * sizeof(unsigned long long)));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    run<10240, 54, 116>(100, -1, 51296, 264, dA, dB, st);   // oscar_rotate_q beside oscar_decode_w (1 per SM last run)
    run<10240, 6, 116>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 14, 116>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 22, 116>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 54, 116, 256>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 54, 116, 128>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 22, 116, 256>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 22, 116, 128>(100, -1, 51296, 264, dA, dB, st);
    run<10240, 54, 116>(100, -1, 51296, 396, dA, dB, st);
    return 0;
}
