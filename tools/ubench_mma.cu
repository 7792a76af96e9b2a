// tools/ubench_mma.cu - the rate of the legacy tensor-core instructions the decode kernel issues
// (issue 5): mma.sync m16n8k32 s8 x u8 (IMMA.16832) and m16n8k16 f16 (HMMA.16816), with 1-8
// independent accumulator chains per warp, 1-4 warps per scheduler, and with N independent
// lop3 per MMA beside them (do the integer ops issue in the MMA's shadow?).
// Build here: nvcc -O2 -arch=sm_90 -o build/ubench_mma tools/ubench_mma.cu
// Run on the device (carry build/ubench_mma): ./build/ubench_mma
// Prints cycles per MMA per scheduler (SM sub-partition) from clock64 inside the kernel.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

template <int NCH, int NALU, int HALF>
__global__ void k_mma(int *out, long long *cyc, int iters) {
    int c[NCH][4];
    float f[NCH][4];
    for (int j = 0; j < NCH; j++)
        for (int e = 0; e < 4; e++) c[j][e] = 0, f[j][e] = 0.0f;
    unsigned a0 = threadIdx.x * 0x01010101u, a1 = a0 ^ 0x13579bdfu, a2 = a0 ^ 0x2468ace0u, a3 = a0 + 77u;
    unsigned b0 = a0 ^ 0x12345678u, b1 = a0 ^ 0x0f0f0f0fu;
    unsigned x[NALU > 0 ? NALU : 1];
    for (int k = 0; k < (NALU > 0 ? NALU : 1); k++) x[k] = threadIdx.x + k;
    __syncthreads();
    const long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < NCH; j++) {
            if (HALF)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(f[j][0]), "+f"(f[j][1]), "+f"(f[j][2]), "+f"(f[j][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            else
                asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+r"(c[j][0]), "+r"(c[j][1]), "+r"(c[j][2]), "+r"(c[j][3])
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#pragma unroll
            for (int k = 0; k < NALU; k++) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x[k]) : "r"(b0), "r"(a1));
        }
    }
    const long long t1 = clock64();
    int s = 0;
    for (int j = 0; j < NCH; j++)
        for (int e = 0; e < 4; e++) s += c[j][e] + (int)f[j][e];
    for (int k = 0; k < (NALU > 0 ? NALU : 1); k++) s += (int)x[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
}

template <int NCH, int NALU, int HALF>
static int run(int sms, int warps_per_sm, int *out, long long *cyc) {
    const int iters = 4096;
    // one block of warps_per_sm warps per SM (one wave)
    k_mma<NCH, NALU, HALF><<<sms, 32 * warps_per_sm>>>(out, cyc, iters);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    k_mma<NCH, NALU, HALF><<<sms, 32 * warps_per_sm>>>(out, cyc, iters);
    CK(cudaDeviceSynchronize());
    static long long h[1024];
    CK(cudaMemcpy(h, cyc, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
    double m = 0;
    for (int b = 0; b < sms; b++) m += (double)h[b];
    m /= sms;
    const double mma_per_sched = (double)iters * NCH * warps_per_sm / 4.0;
    printf("%-5s chains %d  lop3/mma %d  warps/sched %d: %6.2f cycles per MMA per scheduler", HALF ? "HMMA" : "IMMA", NCH, NALU, warps_per_sm / 4, m / mma_per_sched);
    if (NALU) printf("  (%.2f cycles per instruction)", m / (mma_per_sched * (1 + NALU)));
    printf("\n");
    return 0;
}

int main() {
    cudaDeviceProp pr;
    CK(cudaGetDeviceProperties(&pr, 0));
    printf("device: %s, %d SMs\n", pr.name, pr.multiProcessorCount);
    const int sms = pr.multiProcessorCount;
    int *out;
    long long *cyc;
    CK(cudaMalloc(&out, sizeof(int) * sms * 1024));
    CK(cudaMalloc(&cyc, sizeof(long long) * sms));
    // chains per warp, warps per scheduler
    run<1, 0, 0>(sms, 4, out, cyc);
    run<2, 0, 0>(sms, 4, out, cyc);
    run<4, 0, 0>(sms, 4, out, cyc);
    run<8, 0, 0>(sms, 4, out, cyc);
    run<1, 0, 0>(sms, 8, out, cyc);
    run<2, 0, 0>(sms, 8, out, cyc);
    run<4, 0, 0>(sms, 8, out, cyc);
    run<1, 0, 0>(sms, 16, out, cyc);
    run<2, 0, 0>(sms, 16, out, cyc);
    run<4, 0, 0>(sms, 16, out, cyc);
    run<4, 4, 0>(sms, 16, out, cyc);
    run<4, 8, 0>(sms, 16, out, cyc);
    run<4, 16, 0>(sms, 16, out, cyc);
    run<1, 0, 1>(sms, 4, out, cyc);
    run<4, 0, 1>(sms, 4, out, cyc);
    run<4, 0, 1>(sms, 16, out, cyc);
    run<4, 8, 1>(sms, 16, out, cyc);
    return 0;
}
