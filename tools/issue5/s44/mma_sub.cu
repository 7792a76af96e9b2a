// Does mma.sync m16n8k16 (f16 x f16 + f32) treat fp16 subnormal A operands exactly? For random B (fp16 weights of
// several magnitudes, as the decode's hi / lo parts) and C, compares D = A.B + C with A = small integers (normal fp16)
// against D' = A'.B + C' with A' = A x 2^-24 (fp16 subnormals) and C' = C x 2^-24, scaled back by 2^24, and both
// against the sums in double. Prints per B class: how many of D, D' differ, and each one's worst error in units of
// the sum's magnitude (sum |a b| + |c|).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void k(const uint32_t *A, const uint32_t *B, const float *C, float *D, int n) {
    const int lane = threadIdx.x & 31, w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (w >= n) return;
    const uint32_t *a = A + (size_t)w * 128, *b = B + (size_t)w * 64;
    const float *c = C + (size_t)w * 128;
    float d[4] = {c[lane * 4], c[lane * 4 + 1], c[lane * 4 + 2], c[lane * 4 + 3]};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[lane * 4]), "r"(a[lane * 4 + 1]), "r"(a[lane * 4 + 2]), "r"(a[lane * 4 + 3]), "r"(b[lane * 2]), "r"(b[lane * 2 + 1]));
    for (int i = 0; i < 4; i++) D[(size_t)w * 128 + lane * 4 + i] = d[i];
}

static uint64_t rs = 88172645463325252ull;
static uint32_t rnd() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)rs; }
static double u01() { return (rnd() >> 8) * (1.0 / 16777216.0); }

// fragment layout of m16n8k16 (row.col): A reg r of lane (g = lane/4, t = lane%4): row g + 8 (r & 1), cols 2t + 8 (r >> 1) + {0,1}
// B reg r: col (n) g, rows (k) 2t + 8 r + {0,1}; C/D reg i: row g + 8 (i >> 1), col 2t + (i & 1)
int main() {
    const int n = 4096; // matrix products per class
    const char *cls[4] = {"B in [2^-8, 1] (hi parts)", "B in [2^-20, 2^-12] (lo parts, some fp16 subnormal)", "B in [2^-24, 2^-15] (fp16 subnormal)", "B mixed hi and lo"};
    uint32_t *hA = (uint32_t *)malloc(n * 128 * 4), *hAs = (uint32_t *)malloc(n * 128 * 4), *hB = (uint32_t *)malloc(n * 64 * 4);
    float *hC = (float *)malloc(n * 128 * 4), *hCs = (float *)malloc(n * 128 * 4), *hD = (float *)malloc(n * 128 * 4), *hDs = (float *)malloc(n * 128 * 4);
    uint32_t *dA, *dB; float *dC, *dD;
    cudaMalloc(&dA, n * 128 * 4); cudaMalloc(&dB, n * 64 * 4); cudaMalloc(&dC, n * 128 * 4); cudaMalloc(&dD, n * 128 * 4);
    for (int c = 0; c < 4; c++) {
        static double Am[16][16], Bm[16][8];
        for (int w = 0; w < n; w++) for (int lane = 0; lane < 32; lane++) {
            for (int r = 0; r < 4; r++) {
                uint32_t v = 0, vs = 0;
                for (int h = 0; h < 2; h++) {
                    const int qd = rnd() % 4, code = (rnd() % 4) << (2 * qd);
                    v |= (uint32_t)__half_as_ushort(__float2half((float)code)) << (16 * h);
                    vs |= (uint32_t)code << (16 * h); // subnormal: mantissa = code, exponent 0
                }
                hA[(size_t)w * 128 + lane * 4 + r] = v;
                hAs[(size_t)w * 128 + lane * 4 + r] = vs;
            }
            for (int r = 0; r < 2; r++) {
                uint32_t v = 0;
                for (int h = 0; h < 2; h++) {
                    double lo = c == 0 ? -8 : c == 1 ? -20 : c == 2 ? -24 : ((rnd() & 1) ? -8 : -20), hi = c == 0 ? 0 : c == 1 ? -12 : c == 2 ? -15 : (lo == -8 ? 0 : -12);
                    const double x = exp2(lo + (hi - lo) * u01()) * ((rnd() & 1) ? 1 : -1);
                    v |= (uint32_t)__half_as_ushort(__float2half((float)x)) << (16 * h);
                }
                hB[(size_t)w * 64 + lane * 2 + r] = v;
            }
            for (int i = 0; i < 4; i++) {
                const float x = (float)((u01() - 0.5) * 64.0 * (c == 0 ? 1.0 : 1.0 / 4096.0));
                hC[(size_t)w * 128 + lane * 4 + i] = x;
                hCs[(size_t)w * 128 + lane * 4 + i] = ldexpf(x, -24);
            }
        }
        cudaMemcpy(dB, hB, n * 64 * 4, cudaMemcpyHostToDevice);
        for (int s = 0; s < 2; s++) {
            cudaMemcpy(dA, s ? hAs : hA, n * 128 * 4, cudaMemcpyHostToDevice);
            cudaMemcpy(dC, s ? hCs : hC, n * 128 * 4, cudaMemcpyHostToDevice);
            k<<<n / 4, 128>>>(dA, dB, dC, dD, n);
            if (cudaDeviceSynchronize() != cudaSuccess) { printf("kernel failed\n"); return 1; }
            cudaMemcpy(s ? hDs : hD, dD, n * 128 * 4, cudaMemcpyDeviceToHost);
        }
        long diff = 0;
        double e0 = 0, e1 = 0;
        for (int w = 0; w < n; w++) {
            for (int lane = 0; lane < 32; lane++) {
                const int g = lane / 4, t = lane % 4;
                for (int r = 0; r < 4; r++) for (int h = 0; h < 2; h++) {
                    const uint32_t v = hA[(size_t)w * 128 + lane * 4 + r];
                    Am[g + 8 * (r & 1)][2 * t + 8 * (r >> 1) + h] = (double)__half2float(__ushort_as_half((unsigned short)(v >> (16 * h))));
                }
                for (int r = 0; r < 2; r++) for (int h = 0; h < 2; h++) {
                    const uint32_t v = hB[(size_t)w * 64 + lane * 2 + r];
                    Bm[2 * t + 8 * r + h][g] = (double)__half2float(__ushort_as_half((unsigned short)(v >> (16 * h))));
                }
            }
            for (int lane = 0; lane < 32; lane++) {
                const int g = lane / 4, t = lane % 4;
                for (int i = 0; i < 4; i++) {
                    const int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
                    double s = hC[(size_t)w * 128 + lane * 4 + i], m = fabs(s);
                    for (int kk = 0; kk < 16; kk++) { s += Am[row][kk] * Bm[kk][col]; m += fabs(Am[row][kk] * Bm[kk][col]); }
                    const float d0 = hD[(size_t)w * 128 + lane * 4 + i], d1 = ldexpf(hDs[(size_t)w * 128 + lane * 4 + i], 24);
                    if (d0 != d1) diff++;
                    if (m > 0) { e0 = fmax(e0, fabs(d0 - s) / m); e1 = fmax(e1, fabs(d1 - s) / m); }
                }
            }
        }
        printf("%-52s: %ld of %d outputs differ; worst error / sum|terms|: normal A %.3g, subnormal A %.3g\n", cls[c], diff, n * 128, e0, e1);
    }
    return 0;
}
