// ubench_wgmma.cu - checks the int8 wgmma layout oscar_append uses (sm_90a): A (64 x K) from
// registers in the mma.m16n8k32 fragment layout, B (N x K, K-major) in shared memory as 8 x 16-byte
// core matrices [s][n / 8][k half][8 rows][16 bytes] (LBO 128 B between k halves, SBO 256 B between
// 8-row groups), C = A . B^T in m64n32k32 chunks, against the CPU on random int8; then times the
// product against mma.sync for one 64 x 128 x 128 tile per block.
// nvcc -arch=sm_90a -O3 -o ubench_wgmma tools/ubench_wgmma.cu && ./ubench_wgmma
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define K 128
#define N 128
#define M 64

static __device__ __forceinline__ uint64_t desc(const void *p, int lbo, int sbo) {
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
    return (uint64_t)((a & 0x3ffff) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32);
}
static __device__ __forceinline__ void wg_n32(int (&c)[16], const uint32_t (&a)[4], uint64_t bd, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p;\n}"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3]), "+r"(c[4]), "+r"(c[5]), "+r"(c[6]), "+r"(c[7]), "+r"(c[8]), "+r"(c[9]), "+r"(c[10]),
                   "+r"(c[11]), "+r"(c[12]), "+r"(c[13]), "+r"(c[14]), "+r"(c[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(acc));
}
static __device__ __forceinline__ void imma(int (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// A [M][K], Bimg: the shared-memory image (N * K bytes), C [M][N]; reps: products per launch (timing)
__global__ void __launch_bounds__(128) k_wgmma(const int8_t *A, const int4 *Bimg, int *C, int reps) {
    __shared__ __align__(128) int8_t sb[N * K];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    for (int i = tid; i < N * K / 16; i += 128) ((int4 *)sb)[i] = Bimg[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    uint32_t a[K / 32][4];
    for (int s = 0; s < K / 32; s++)
        for (int i = 0; i < 4; i++) {
            const int row = 16 * warp + g + 8 * (i & 1), k = 32 * s + 16 * (i >> 1) + 4 * t;
            a[s][i] = *(const uint32_t *)(A + row * K + k);
        }
    int sum = 0;
    for (int rep = 0; rep < reps; rep++)
        for (int c0 = 0; c0 < N / 32; c0++) {
            int c[16];
            asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
            for (int s = 0; s < K / 32; s++) wg_n32(c, a[s], desc(sb + (s * (N / 8) + 4 * c0) * 256, 128, 256), s > 0);
            asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (rep == 0) {
                for (int j = 0; j < 4; j++)
                    for (int q = 0; q < 4; q++) {
                        const int row = 16 * warp + g + 8 * (q >> 1), col = 32 * c0 + 8 * j + 2 * t + (q & 1);
                        C[row * N + col] = c[4 * j + q];
                    }
            } else {
                for (int q = 0; q < 16; q++) sum += c[q];
            }
        }
    if (sum == 0x7fffffff) C[0] = sum;
}
// the same product by mma.sync (B fragments read from global memory as oscar_append does)
__global__ void __launch_bounds__(128) k_mma(const int8_t *A, const int8_t *B, int *C, int reps) {
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    uint32_t a[K / 32][4];
    for (int s = 0; s < K / 32; s++)
        for (int i = 0; i < 4; i++) {
            const int row = 16 * warp + g + 8 * (i & 1), k = 32 * s + 16 * (i >> 1) + 4 * t;
            a[s][i] = *(const uint32_t *)(A + row * K + k);
        }
    int sum = 0;
    for (int rep = 0; rep < reps; rep++)
        for (int c0 = 0; c0 < N / 32; c0++) {
            int c[4][4] = {};
#pragma unroll
            for (int s = 0; s < K / 32; s++)
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const int col = 32 * c0 + 8 * j + g;
                    const uint32_t b0 = __ldg((const uint32_t *)(B + col * K + 32 * s + 4 * t));
                    const uint32_t b1 = __ldg((const uint32_t *)(B + col * K + 32 * s + 16 + 4 * t));
                    imma(c[j], a[s], b0, b1);
                }
            if (rep == 0) {
                for (int j = 0; j < 4; j++)
                    for (int q = 0; q < 4; q++) {
                        const int row = 16 * warp + g + 8 * (q >> 1), col = 32 * c0 + 8 * j + 2 * t + (q & 1);
                        C[row * N + col] = c[j][q];
                    }
            } else {
                for (int j = 0; j < 4; j++)
                    for (int q = 0; q < 4; q++) sum += c[j][q];
            }
        }
    if (sum == 0x7fffffff) C[0] = sum;
}

int main() {
    static int8_t A[M * K], B[N * K], img[N * K];
    static int ref[M * N], out[M * N];
    srand(12345);
    for (int i = 0; i < M * K; i++) A[i] = (int8_t)(rand() % 256 - 128);
    for (int i = 0; i < N * K; i++) B[i] = (int8_t)(rand() % 256 - 128);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int s = 0;
            for (int k = 0; k < K; k++) s += A[m * K + k] * B[n * K + k];
            ref[m * N + n] = s;
        }
    // image: [s][n / 8][k half][8 rows][16 bytes]
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++) {
            const int s = k / 32, kh = (k / 16) & 1, kb = k % 16;
            img[(((s * (N / 8) + n / 8) * 2 + kh) * 8 + n % 8) * 16 + kb] = B[n * K + k];
        }
    int8_t *dA, *dB, *dI;
    int *dC;
    cudaMalloc(&dA, sizeof A), cudaMalloc(&dB, sizeof B), cudaMalloc(&dI, sizeof img), cudaMalloc(&dC, sizeof out);
    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice), cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice), cudaMemcpy(dI, img, sizeof img, cudaMemcpyHostToDevice);
    int bad = 0;
    for (int which = 0; which < 2; which++) {
        cudaMemset(dC, 0, sizeof out);
        if (which == 0) k_wgmma<<<1, 128>>>(dA, (const int4 *)dI, dC, 1);
        else k_mma<<<1, 128>>>(dA, dB, dC, 1);
        cudaError_t e = cudaDeviceSynchronize();
        if (e) return printf("%s: %s\n", which ? "mma" : "wgmma", cudaGetErrorString(e)), 1;
        cudaMemcpy(out, dC, sizeof out, cudaMemcpyDeviceToHost);
        int nb = 0;
        for (int i = 0; i < M * N; i++) nb += out[i] != ref[i];
        printf("%s: %d of %d wrong%s\n", which ? "mma.sync" : "wgmma", nb, M * N, nb ? " FAIL" : " ok");
        if (nb) {
            for (int i = 0, shown = 0; i < M * N && shown < 4; i++)
                if (out[i] != ref[i]) printf("  [%d][%d] %d want %d\n", i / N, i % N, out[i], ref[i]), shown++;
        }
        bad += nb;
    }
    // timing: 132 x 8 blocks, 64 products of 64 x 128 x 128 each
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    for (int which = 0; which < 2; which++)
        for (int it = 0; it < 3; it++) {
            const int reps = 65;
            cudaEventRecord(e0);
            if (which == 0) k_wgmma<<<132 * 8, 128>>>(dA, (const int4 *)dI, dC, reps);
            else k_mma<<<132 * 8, 128>>>(dA, dB, dC, reps);
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            const double ops = 2.0 * 132 * 8 * (reps - 1) * (double)M * N * K;
            printf("%s: %.3f ms, %.0f TOPS int8\n", which ? "mma.sync" : "wgmma", ms, ops / ms / 1e9);
        }
    return bad != 0;
}
