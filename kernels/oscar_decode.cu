// oscar_decode.cu - split-K decode attention over the paged cache (INT2 or BF16 history), the
// query rotation and the log-sum-exp merge with the V un-rotation.
//
// Compile-time: OSCAR_D (64, 128, 256), OSCAR_G (query heads per KV head), OSCAR_GS (group size),
// OSCAR_INT2 (1: INT2 history pages, 0: BF16 pages), OSCAR_TH (history rows per tile; divides the
// page size), OSCAR_TB (BF16 rows per tile for the sink and the window).
//
// oscar_decode: grid (splits, Hkv, B), 128 threads. A block walks a contiguous run of tiles of one
// sequence and one KV head (sink tiles, history tiles, window tiles, in token order); each tile is
// staged in shared memory with 16-byte cp.async copies (double buffered), scored for all G query
// heads at once (one pass over the KV data serves the whole GQA group), folded into a running
// softmax, and accumulated into registers. The block writes its unnormalised output with its max
// and sum; oscar_merge combines the splits.
#include "oscar_common.cuh"

// thread block clusters (sm_90+; the cluster-merge decode kernels are built there only). oscar_cluster_sync:
// every thread of every block of the cluster arrives, then waits (release / acquire: the shared-memory writes
// before it are visible to the whole cluster after it). oscar_ld_cluster: the float of block `rank`'s shared
// memory at the address `a` has in this block's
// oscar_cluster_arrive / oscar_cluster_wait: its two halves, for a thread that has work between its arrival and its wait
static __device__ __forceinline__ void oscar_cluster_arrive(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void oscar_cluster_wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void oscar_cluster_sync(void) {
    oscar_cluster_arrive();
    oscar_cluster_wait();
}
static __device__ __forceinline__ float oscar_ld_cluster(const float *a, unsigned rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned r;
    float v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"((unsigned)__cvta_generic_to_shared(a)), "r"(rank));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(r) : "memory");
    return v;
#else
    (void)rank;
    return *a;
#endif
}

// -DOSCAR_WPROF (diagnostics only, see oscar_decode_w): oscar_rotate_q and the merges record each
// block's start, the end of its wait for the previous grid and its end (globaltimer ns)
#ifdef OSCAR_WPROF
extern "C" {
__device__ unsigned long long oscar_rprof[1024 * 3], oscar_mprof[4096 * 3];
// phases in cycles from the block's start (clock64): decode blocks [0] the query in shared memory, [1] its
// transform done, [2] its normalisers done, [3] the split's weights done (epilogue), [4] thread 0's BF16 fragments
// done, [5] its INT2 fragments done, [6] the barrier after them; merge blocks [0] the wait done, [1] the partials
// summed, [2] the slices summed, [3] the end, [4] thread 0's partial loads arrived, [5] its split weights done
__device__ unsigned long long oscar_wph[OSCAR_WPROF * 8], oscar_mph[4096 * 8];
}
static __device__ __forceinline__ unsigned long long oscar_gtime(void) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define OSCAR_TSTAMP(arr, cap, k)                                                          \
    do {                                                                                   \
        const unsigned bi_ = blockIdx.x + gridDim.x * blockIdx.y;                          \
        if (threadIdx.x == 0 && bi_ < (cap)) arr[3 * bi_ + (k)] = oscar_gtime();           \
    } while (0)
#define OSCAR_PHASE(arr, cap, k, c0)                                                       \
    do {                                                                                   \
        const unsigned bi_ = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); \
        if (threadIdx.x == 0 && bi_ < (cap)) arr[8 * bi_ + (k)] = (unsigned long long)(clock64() - (c0)); \
    } while (0)
#else
#define OSCAR_TSTAMP(arr, cap, k)
#define OSCAR_PHASE(arr, cap, k, c0)
#endif

#ifndef OSCAR_D
#error "OSCAR_D must be defined"
#endif
#ifndef OSCAR_G
#define OSCAR_G 1
#endif
#ifndef OSCAR_HSPLIT // query-head groups of G heads per KV head: blockIdx.y of the decode = KV head * OSCAR_HSPLIT + group
#define OSCAR_HSPLIT 1
#endif
#ifndef OSCAR_INT2
#define OSCAR_INT2 1
#endif
#ifndef OSCAR_GS
#define OSCAR_GS OSCAR_D
#endif
#ifndef OSCAR_TB
#define OSCAR_TB (4096 / OSCAR_D < 64 ? 4096 / OSCAR_D : 64)
#endif
#ifndef OSCAR_TH
#define OSCAR_TH (OSCAR_INT2 ? 64 : OSCAR_TB)
#endif

#ifndef OSCAR_MIN_BLOCKS // resident blocks per SM the register allocation must allow (0: no hint)
#define OSCAR_MIN_BLOCKS 0
#endif

#define D OSCAR_D
#define G OSCAR_G
#define GS OSCAR_GS
#define TB OSCAR_TB
#define TH OSCAR_TH
#ifdef OSCAR_P
#define PP OSCAR_P // the page size the module was compiled for (the host launches it for caches of that page size only)
#else
#define PP p.P
#endif
#define NT 128
#define NGR (D / GS)

#if (D % 64) != 0 || (D % GS) != 0 || GS < 16 || TH < 4 || TB < 4 || TH > 64 || TB > 64
#error "unsupported decode configuration"
#endif

// head sets for the value accumulation: HPT heads per thread, HS sets
#if G % 4 == 0
#define HPT 4
#elif G % 3 == 0
#define HPT 3
#elif G % 2 == 0
#define HPT 2
#else
#define HPT 1
#endif
#define HS (G / HPT)

// OSCAR_MMA (default 1 on sm_80+): INT2 history tiles on tensor cores (mma.sync m16n8k16, f16 in,
// fp32 accumulate). Codes 0..3 are exact in fp16; queries and softmax weights are split into
// hi + lo fp16 halves after a power-of-two scaling, so products keep fp32-level accuracy.
#ifndef OSCAR_MMA
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define OSCAR_MMA 1
#else
#define OSCAR_MMA 0
#endif
#endif
#if OSCAR_MMA && OSCAR_INT2 && (OSCAR_TH % 16) == 0 && OSCAR_GS >= OSCAR_D / 4
#define I2MMA 1
#else
#define I2MMA 0
#endif
#define NH8 ((G + 7) / 8)     // head tiles of 8 (score MMA: N = heads)
#define MT16 ((G + 15) / 16)  // head tiles of 16 (value MMA: M = heads)
#define NTQ (D / 32)          // value MMA n-tiles per quarter of the channels
#define WPR (D / 16)               // threads across a row: each owns 4 channels per quarter
#define NTG (NT / (WPR * HS))      // token groups
#if NTG < 1
#error "GQA group too large for this head dim"
#endif

// shared-memory layout of one stage
#define RSB (D * 2 + 16)                                   // BF16 row stride (padded)
#define CSB (((D / 4) % 32) == 0 ? D / 4 + 16 : D / 4)    // INT2 code row stride (padded)
#define BF_STAGE (2 * TB * RSB)
#if OSCAR_INT2
#define HCAP TH                                            // history tile rows
#define I2_KC 0
#define I2_KS (TH * CSB)
#define I2_VC (I2_KS + TH * NGR * 4)
#define I2_VS (I2_VC + TH * CSB)
#define I2_STAGE (I2_VS + TH * NGR * 4)
#define STAGE0 (I2_STAGE > BF_STAGE ? I2_STAGE : BF_STAGE)
#else
#define HCAP TB
#define STAGE0 BF_STAGE
#endif
#define STAGE ((STAGE0 + 15) / 16 * 16)
#define SCAP (HCAP > TB ? HCAP : TB)
#define RED_BYTES (NTG * G * D * 4)
#if RED_BYTES > 2 * STAGE
#error "reduction buffer does not fit"
#endif

// tile kinds
#define TK_SINK 0
#define TK_HIST 1
#define TK_WIN 2

struct oscar_tile {
    int kind, n, tok0; // tok0: first token inside its segment
};

// dynamic shared memory the host must pass to oscar_decode (read with cuModuleGetGlobal)
#if I2MMA
// + qfrag [NH8][D/16][32] uint4, qmul/qinv [G], whi/wlo [NGR][G][TH] halves, winv [NGR][G], accmn [G][NGR]
#define WST (TH + 8)
#define SMEM_FLOATS (G * D + G * SCAP + 3 * G + G * NGR + 4 + NH8 * (D / 16) * 32 * 4 + 2 * G + NGR * G * WST + 2 * NGR * G)
#elif OSCAR_INT2
#define SMEM_FLOATS (G * D + G * SCAP + 3 * G + G * NGR)
#else
#define SMEM_FLOATS (G * D + G * SCAP + 3 * G)
#endif
extern "C" __device__ int oscar_decode_smem_bytes = 2 * STAGE + SMEM_FLOATS * 4;

#if I2MMA
// codes (bytes 0..3 of x, values 0..3) sel 0x4140: bytes 0,1 -> half2; 0x4342: bytes 2,3
static __device__ __forceinline__ oscar_u32 oscar_h2_codes(oscar_u32 x, oscar_u32 sel) {
    const oscar_u32 r = __byte_perm(x, 0x64646464u, sel); // halves 1024 + code
    oscar_u32 o;
    asm("sub.f16x2 %0, %1, %2;" : "=r"(o) : "r"(r), "r"(0x64006400u));
    return o;
}
static __device__ __forceinline__ void oscar_mma16816(float c[4], oscar_u32 a0, oscar_u32 a1, oscar_u32 a2, oscar_u32 a3, oscar_u32 b0, oscar_u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
// a power of two m such that |x| * m lies in [2^14, 2^15) (x > 0 finite normal); *inv = 1 / m
static __device__ __forceinline__ float oscar_pow2_norm(float x, float *inv) {
    int e = (int)((__float_as_uint(x) >> 23) & 0xffu);
    int k = 268 - e;
    k = k < 1 ? 1 : (k > 253 ? 253 : k);
    *inv = __uint_as_float((oscar_u32)(254 - k) << 23);
    return __uint_as_float((oscar_u32)k << 23);
}
static __device__ __forceinline__ oscar_u32 oscar_f16_split(float v, oscar_u16 *lo) {
    const oscar_u16 h = oscar_f32_to_f16(v);
    *lo = oscar_f32_to_f16(v - oscar_f16_to_f32(h));
    return h;
}
#endif

#if OSCAR_MIN_BLOCKS > 0
#define OSCAR_DECODE_BOUNDS __launch_bounds__(NT, OSCAR_MIN_BLOCKS)
#else
#define OSCAR_DECODE_BOUNDS __launch_bounds__(NT)
#endif
extern "C" __global__ void OSCAR_DECODE_BOUNDS oscar_decode(const oscar_attn_params p) {
    extern __shared__ __align__(16) oscar_u8 smem[];
    float *qs = (float *)(smem + 2 * STAGE);  // [G][D]
    float *sc = qs + G * D;                   // [G][SCAP] scores, then probabilities
    float *mrun = sc + G * SCAP;              // [G]
    float *lrun = mrun + G;                   // [G]
    float *corr = lrun + G;                   // [G]
#if OSCAR_INT2
    float *qsum = corr + G;                   // [G][NGR] sum of q over each group
#endif
#if I2MMA
    uint4 *qfrag = (uint4 *)(smem + 2 * STAGE + ((G * D + G * SCAP + 3 * G + G * NGR) * 4 + 15) / 16 * 16); // [NH8][D/16][32]
    float *qmul = (float *)(qfrag + NH8 * (D / 16) * 32); // [G]
    float *qinv = qmul + G;                               // [G]
    oscar_u16 *whi = (oscar_u16 *)(qinv + G);             // [NGR][G][WST] (rows padded: no bank conflicts)
    oscar_u16 *wlo = whi + NGR * G * WST;                 // [NGR][G][WST]
    float *winv = (float *)(wlo + NGR * G * WST);         // [NGR][G]
    float *accmn = winv + NGR * G;                        // [G][NGR] running sum of p * min
#endif
    const int tid = threadIdx.x;
#if I2MMA
    const int warp = tid >> 5, lane = tid & 31, lg = lane >> 2, lt = lane & 3;
#endif
    const int split = blockIdx.x, j = blockIdx.y, b = blockIdx.z, jk = j / OSCAR_HSPLIT; // j: query-head group, jk: its KV head
    const int Hq = p.Hkv * OSCAR_HSPLIT * G;
    const int slot = p.seqinfo ? ((const int *)p.seqinfo)[2 * b] : p.inline_info[2 * b];
    const int n = p.seqinfo ? ((const int *)p.seqinfo)[2 * b + 1] : p.inline_info[2 * b + 1];
    const int ns = n < p.S0 ? n : p.S0;
    const int H = n >= p.S0 + p.W ? p.P * ((n - p.S0 - p.W) / p.P) : 0;
    const int nw = n - ns - H;
    const int ts = (ns + TB - 1) / TB, th = H / TH, tw = (nw + TB - 1) / TB;
    const int T = ts + th + tw;
    const int per = (T + p.n_splits - 1) / p.n_splits;
    const int t0 = split * per, t1 = (t0 + per < T) ? t0 + per : T;

    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + jk;
    const oscar_u8 *sinkK = (const oscar_u8 *)p.sink + slab * 2 * p.S0 * (D * 2);
    const oscar_u8 *sinkV = sinkK + (size_t)p.S0 * (D * 2);
    const oscar_u8 *winK = (const oscar_u8 *)p.win + slab * 2 * p.ring * (D * 2);
    const oscar_u8 *winV = winK + (size_t)p.ring * (D * 2);
    const int *bt = (const int *)p.bt + (size_t)slot * p.max_blocks;

    // queries of the group, running softmax state
    const float *qg = (const float *)p.q + ((size_t)b * Hq + (size_t)j * G) * D;
    for (int i = tid; i < G * D; i += NT) qs[i] = qg[i];
    if (tid < G) {
        mrun[tid] = OSCAR_NEG_INF;
        lrun[tid] = 0.0f;
    }
    __syncthreads();
#if OSCAR_INT2
    for (int i = tid; i < G * NGR; i += NT) {
        const float *qq = qs + (i / NGR) * D + (i % NGR) * GS;
        float s = 0.0f;
        for (int c = 0; c < GS; c++) s += qq[c];
        qsum[i] = s;
    }
#endif
#if I2MMA
    for (int h = warp; h < G; h += NT / 32) {
        float m = 0.0f;
        for (int c = lane; c < D; c += 32) m = fmaxf(m, fabsf(qs[h * D + c]));
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        if (lane == 0) {
            float inv;
            qmul[h] = oscar_pow2_norm(m, &inv);
            qinv[h] = inv;
        }
    }
    for (int i = tid; i < G * NGR; i += NT) accmn[i] = 0.0f;
    __syncthreads();
    for (int i = tid; i < NH8 * (D / 16) * 32; i += NT) {
        const int ln = i % 32, ks = (i / 32) % (D / 16), nt = i / (32 * (D / 16));
        const int h = nt * 8 + (ln >> 2), qd = ks / (D / 64), ch = ks % (D / 64);
        const int c = qd * (D / 4) + 16 * ch + 4 * (ln & 3);
        oscar_u32 hi[4] = {0, 0, 0, 0}, lo[4] = {0, 0, 0, 0};
        if (h < G) {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                oscar_u16 l;
                hi[e] = oscar_f16_split(qs[h * D + c + e] * qmul[h], &l);
                lo[e] = l;
            }
        }
        qfrag[i] = make_uint4(hi[0] | hi[1] << 16, hi[2] | hi[3] << 16, lo[0] | lo[1] << 16, lo[2] | lo[3] << 16);
    }
    float macc[MT16][NTQ][4];
#pragma unroll
    for (int mt = 0; mt < MT16; mt++)
#pragma unroll
        for (int jn = 0; jn < NTQ; jn++)
#pragma unroll
            for (int e = 0; e < 4; e++) macc[mt][jn][e] = 0.0f;
#endif

    // value accumulator ownership: channels qd*D/4 + 4*w + e (qd, e in 0..3)
    const int vw = tid % WPR, vr = tid / WPR, vhs = vr % HS, vtg = vr / HS;
    const bool vact = vtg < NTG;
    float acc[HPT][16];
#pragma unroll
    for (int s = 0; s < HPT; s++)
#pragma unroll
        for (int i = 0; i < 16; i++) acc[s][i] = 0.0f;

    // ---- tile addressing and staging ----
    auto tile_of = [&](int t) {
        oscar_tile tl;
        if (t < ts) {
            tl.kind = TK_SINK;
            tl.tok0 = t * TB;
            tl.n = ns - tl.tok0 < TB ? ns - tl.tok0 : TB;
        } else if (t < ts + th) {
            tl.kind = TK_HIST;
            tl.tok0 = (t - ts) * TH;
            tl.n = TH;
        } else {
            tl.kind = TK_WIN;
            tl.tok0 = (t - ts - th) * TB;
            tl.n = nw - tl.tok0 < TB ? nw - tl.tok0 : TB;
        }
        return tl;
    };
    auto load_tile = [&](oscar_u8 *st, const oscar_tile &tl) {
        if (tl.kind == TK_HIST) {
            const int pi = tl.tok0 / p.P, r0 = tl.tok0 % p.P;
            const int page = bt[pi];
            const oscar_u8 *base = (const oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + jk) * (size_t)p.head_page_bytes;
#if OSCAR_INT2
            const size_t vofs = (size_t)p.P * (D / 4 + NGR * 4);
            const int CPR = D / 64; // 16-byte chunks per code row
            for (int c = tid; c < 2 * TH * CPR; c += NT) {
                const int kv = c / (TH * CPR), cc = c % (TH * CPR), r = cc / CPR, ch = cc % CPR;
                oscar_cp_async16(st + (kv ? I2_VC : I2_KC) + r * CSB + ch * 16, base + kv * vofs + (size_t)(r0 + r) * (D / 4) + ch * 16);
            }
            const int SCH = TH * NGR / 4; // 16-byte chunks of scale/min per tile
            for (int c = tid; c < 2 * SCH; c += NT) {
                const int kv = c / SCH, i = c % SCH;
                oscar_cp_async16(st + (kv ? I2_VS : I2_KS) + i * 16, base + kv * vofs + (size_t)p.P * (D / 4) + (size_t)r0 * NGR * 4 + i * 16);
            }
#else
            const int CPR = D / 8;
            for (int c = tid; c < 2 * TH * CPR; c += NT) {
                const int kv = c / (TH * CPR), cc = c % (TH * CPR), r = cc / CPR, ch = cc % CPR;
                oscar_cp_async16(st + kv * TB * RSB + r * RSB + ch * 16, base + ((size_t)kv * p.P + r0 + r) * (D * 2) + ch * 16);
            }
#endif
        } else {
            const int CPR = D / 8;
            for (int c = tid; c < 2 * tl.n * CPR; c += NT) {
                const int kv = c / (tl.n * CPR), cc = c % (tl.n * CPR), r = cc / CPR, ch = cc % CPR;
                const oscar_u8 *src;
                if (tl.kind == TK_SINK) src = (kv ? sinkV : sinkK) + (size_t)(tl.tok0 + r) * (D * 2);
                else src = (kv ? winV : winK) + (size_t)((H + tl.tok0 + r) % p.ring) * (D * 2);
                oscar_cp_async16(st + kv * TB * RSB + r * RSB + ch * 16, src + ch * 16);
            }
        }
    };

    if (t0 < t1) {
        load_tile(smem, tile_of(t0));
        oscar_cp_commit();
    }
    for (int t = t0; t < t1; t++) {
        const int cur = (t - t0) & 1;
        if (t + 1 < t1) {
            load_tile(smem + (cur ^ 1) * STAGE, tile_of(t + 1));
            oscar_cp_commit();
            oscar_cp_wait1();
        } else {
            oscar_cp_wait0();
        }
        __syncthreads();
        const oscar_u8 *st = smem + cur * STAGE;
        const oscar_tile tl = tile_of(t);
        const int nv = tl.n;
#if OSCAR_INT2
        const bool i2 = tl.kind == TK_HIST;
#else
        const bool i2 = false;
#endif

        // ---- scores: thread (token, head set) ----
#if I2MMA
        if (i2) {
            // warp: 16 tokens x 8 heads per MMA; A = codes [token][channel], B = query [channel][head].
            // k-step ks covers quarter qd = ks / (D/64), bytes 16 ch .. 16 ch + 15 (ch = ks % (D/64)) of
            // the code row; lane (lg, lt) holds byte word lt: its bytes e = 0..3 are k = 2lt, 2lt+1,
            // 2lt+8, 2lt+9 (the query fragments use the same order)
            for (int m0 = warp * 16; m0 < TH; m0 += NT / 2) {
                const oscar_u8 *r0p = st + I2_KC + (m0 + lg) * CSB + 4 * lt, *r1p = r0p + 8 * CSB;
                const oscar_u32 *ks0 = (const oscar_u32 *)(st + I2_KS) + (m0 + lg) * NGR, *ks1 = ks0 + 8 * NGR;
#pragma unroll
                for (int nt = 0; nt < NH8; nt++) {
                    float dd[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                    const int h0 = nt * 8 + 2 * lt, h1 = h0 + 1;
#pragma unroll
                    for (int gi = 0; gi < NGR; gi++) {
                        float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
                        for (int kk = 0; kk < GS / 16; kk++) {
                            const int ks = gi * (GS / 16) + kk, qd = ks / (D / 64), ch = ks % (D / 64);
                            const oscar_u32 x0 = (*(const oscar_u32 *)(r0p + ch * 16) >> (2 * qd)) & 0x03030303u;
                            const oscar_u32 x1 = (*(const oscar_u32 *)(r1p + ch * 16) >> (2 * qd)) & 0x03030303u;
                            const uint4 qq = qfrag[(nt * (D / 16) + ks) * 32 + lane];
                            const oscar_u32 a0 = oscar_h2_codes(x0, 0x4140u), a2 = oscar_h2_codes(x0, 0x4342u);
                            const oscar_u32 a1 = oscar_h2_codes(x1, 0x4140u), a3 = oscar_h2_codes(x1, 0x4342u);
                            oscar_mma16816(c, a0, a1, a2, a3, qq.x, qq.y);
                            oscar_mma16816(c, a0, a1, a2, a3, qq.z, qq.w);
                        }
                        const float s0 = oscar_f16_to_f32((oscar_u16)(ks0[gi] & 0xffffu)), n0 = oscar_f16_to_f32((oscar_u16)(ks0[gi] >> 16));
                        const float s1 = oscar_f16_to_f32((oscar_u16)(ks1[gi] & 0xffffu)), n1 = oscar_f16_to_f32((oscar_u16)(ks1[gi] >> 16));
                        const float qi0 = h0 < G ? qinv[h0] : 0.0f, qi1 = h1 < G ? qinv[h1] : 0.0f;
                        const float qs0 = h0 < G ? qsum[h0 * NGR + gi] : 0.0f, qs1 = h1 < G ? qsum[h1 * NGR + gi] : 0.0f;
                        dd[0] += s0 * (c[0] * qi0) + n0 * qs0;
                        dd[1] += s0 * (c[1] * qi1) + n0 * qs1;
                        dd[2] += s1 * (c[2] * qi0) + n1 * qs0;
                        dd[3] += s1 * (c[3] * qi1) + n1 * qs1;
                    }
                    if (h0 < G) {
                        sc[h0 * SCAP + m0 + lg] = dd[0] * p.scale_log2;
                        sc[h0 * SCAP + m0 + lg + 8] = dd[2] * p.scale_log2;
                    }
                    if (h1 < G) {
                        sc[h1 * SCAP + m0 + lg] = dd[1] * p.scale_log2;
                        sc[h1 * SCAP + m0 + lg + 8] = dd[3] * p.scale_log2;
                    }
                }
            }
        } else
#elif OSCAR_INT2
        if (i2) {
            // TPT adjacent threads per token split the (chunk, quarter) pairs of its code row and
            // score all G heads, so each code is unpacked once; partial dots meet by shuffles
            const int TPT = NT / HCAP, NPAIR = (D / 64) * 4;
            const int tt = tid / TPT, sub = tid % TPT;
            float dot[G];
#pragma unroll
            for (int s = 0; s < G; s++) dot[s] = 0.0f;
            if (tt < nv) {
                const oscar_u8 *kc = st + I2_KC + tt * CSB;
                const oscar_u32 *ks = (const oscar_u32 *)(st + I2_KS) + tt * NGR;
#pragma unroll
                for (int k = 0; k < (NPAIR + TPT - 1) / TPT; k++) {
                    const int pi = sub + k * TPT;
                    if (pi < NPAIR) {
                        const int ch = pi % (D / 64), qd = pi / (D / 64);
                        const uint4 w = *(const uint4 *)(kc + ch * 16);
                        const oscar_u32 wv[4] = {w.x, w.y, w.z, w.w};
                        const int c0 = qd * (D / 4) + ch * 16;
                        const float scl = oscar_f16_to_f32((oscar_u16)(ks[c0 / GS] & 0xffffu));
                        float part[G];
#pragma unroll
                        for (int s = 0; s < G; s++) part[s] = 0.0f;
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            const oscar_u32 m = (wv[e] >> (2 * qd)) & 0x03030303u;
                            const float f0 = oscar_byte_f(m, 0), f1 = oscar_byte_f(m, 1), f2 = oscar_byte_f(m, 2), f3 = oscar_byte_f(m, 3);
#pragma unroll
                            for (int s = 0; s < G; s++) {
                                const float4 q4 = *(const float4 *)(qs + s * D + c0 + 4 * e);
                                part[s] += f0 * q4.x + f1 * q4.y + f2 * q4.z + f3 * q4.w;
                            }
                        }
#pragma unroll
                        for (int s = 0; s < G; s++) dot[s] += scl * part[s];
                    }
                }
            }
#pragma unroll
            for (int o = 1; o < TPT; o <<= 1)
#pragma unroll
                for (int s = 0; s < G; s++) dot[s] += __shfl_xor_sync(0xffffffffu, dot[s], o);
            if (tt < nv && sub == 0) {
                const oscar_u32 *ks = (const oscar_u32 *)(st + I2_KS) + tt * NGR;
#pragma unroll
                for (int s = 0; s < G; s++) {
                    float d0 = dot[s];
#pragma unroll
                    for (int k = 0; k < NGR; k++) d0 += oscar_f16_to_f32((oscar_u16)(ks[k] >> 16)) * qsum[s * NGR + k];
                    sc[s * SCAP + tt] = d0 * p.scale_log2;
                }
            }
        } else
#endif
        {
            const int NHG = NT / TB, SH = (G + NHG - 1) / NHG;
            const int tt = tid % TB, hg = tid / TB;
            if (tt < nv && hg < G) {
                float dot[(G + (NT / TB) - 1) / (NT / TB)];
#pragma unroll
                for (int s = 0; s < SH; s++) dot[s] = 0.0f;
                const oscar_u8 *kr = st + tt * RSB;
#pragma unroll 4
                for (int ch = 0; ch < D / 8; ch++) {
                    const uint4 w = *(const uint4 *)(kr + ch * 16);
                    const float k0 = __uint_as_float(w.x << 16), k1 = __uint_as_float(w.x & 0xffff0000u);
                    const float k2 = __uint_as_float(w.y << 16), k3 = __uint_as_float(w.y & 0xffff0000u);
                    const float k4 = __uint_as_float(w.z << 16), k5 = __uint_as_float(w.z & 0xffff0000u);
                    const float k6 = __uint_as_float(w.w << 16), k7 = __uint_as_float(w.w & 0xffff0000u);
#pragma unroll
                    for (int s = 0; s < SH; s++) {
                        const int h = hg + s * NHG;
                        if (h < G) {
                            const float4 qa = *(const float4 *)(qs + h * D + ch * 8);
                            const float4 qb = *(const float4 *)(qs + h * D + ch * 8 + 4);
                            dot[s] += k0 * qa.x + k1 * qa.y + k2 * qa.z + k3 * qa.w + k4 * qb.x + k5 * qb.y + k6 * qb.z + k7 * qb.w;
                        }
                    }
                }
#pragma unroll
                for (int s = 0; s < SH; s++) {
                    const int h = hg + s * NHG;
                    if (h < G) sc[h * SCAP + tt] = dot[s] * p.scale_log2;
                }
            }
        }
        __syncthreads();

        // ---- online softmax: one warp per head ----
        {
            const int warp = tid >> 5, lane = tid & 31;
            for (int h = warp; h < G; h += NT / 32) {
                float m = OSCAR_NEG_INF;
                for (int tt = lane; tt < nv; tt += 32) m = fmaxf(m, sc[h * SCAP + tt]);
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
                const float mold = mrun[h];
                const float mnew = fmaxf(mold, m);
                float l = 0.0f;
                for (int tt = lane; tt < nv; tt += 32) {
                    const float e = exp2f(sc[h * SCAP + tt] - mnew);
                    sc[h * SCAP + tt] = e;
                    l += e;
                }
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) l += __shfl_xor_sync(0xffffffffu, l, o);
                __syncwarp();
                const float cr = exp2f(mold - mnew);
#if I2MMA
                if (i2) {
                    // weights p * scale of V (hi + lo fp16 after a power-of-two scaling) and sum p * min
                    const oscar_u32 *vsm = (const oscar_u32 *)(st + I2_VS);
#pragma unroll
                    for (int gi = 0; gi < NGR; gi++) {
                        float wm = 0.0f, pm = 0.0f;
                        for (int tt = lane; tt < nv; tt += 32) {
                            const oscar_u32 smv = vsm[tt * NGR + gi];
                            const float e = sc[h * SCAP + tt];
                            wm = fmaxf(wm, e * oscar_f16_to_f32((oscar_u16)(smv & 0xffffu)));
                            pm += e * oscar_f16_to_f32((oscar_u16)(smv >> 16));
                        }
#pragma unroll
                        for (int o = 16; o > 0; o >>= 1) {
                            wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, o));
                            pm += __shfl_xor_sync(0xffffffffu, pm, o);
                        }
                        float inv;
                        const float mul = oscar_pow2_norm(wm, &inv);
                        for (int tt = lane; tt < nv; tt += 32) {
                            const float w = sc[h * SCAP + tt] * oscar_f16_to_f32((oscar_u16)(vsm[tt * NGR + gi] & 0xffffu)) * mul;
                            oscar_u16 lo;
                            whi[(gi * G + h) * WST + tt] = (oscar_u16)oscar_f16_split(w, &lo);
                            wlo[(gi * G + h) * WST + tt] = lo;
                        }
                        if (lane == 0) {
                            winv[gi * G + h] = inv;
                            accmn[h * NGR + gi] = accmn[h * NGR + gi] * cr + pm;
                        }
                    }
                } else if (lane == 0) {
#pragma unroll
                    for (int gi = 0; gi < NGR; gi++) accmn[h * NGR + gi] *= cr;
                }
#endif
                if (lane == 0) {
                    corr[h] = cr;
                    lrun[h] = lrun[h] * cr + l;
                    mrun[h] = mnew;
                }
            }
        }
        __syncthreads();

        // ---- values: thread (4-channel column in each quarter, head set, token group) ----
#if I2MMA
        {
            // warp = quarter qd of the channels; MMA A = weights [head][token], B = codes [token][channel];
            // n-tile jn, column n is byte NTQ * n + jn of the quarter
#pragma unroll
            for (int mt = 0; mt < MT16; mt++) {
                const int ha = mt * 16 + lg, hb = ha + 8;
                const float ca = ha < G ? corr[ha] : 0.0f, cb = hb < G ? corr[hb] : 0.0f;
#pragma unroll
                for (int jn = 0; jn < NTQ; jn++) {
                    macc[mt][jn][0] *= ca;
                    macc[mt][jn][1] *= ca;
                    macc[mt][jn][2] *= cb;
                    macc[mt][jn][3] *= cb;
                }
            }
            if (i2) {
                const int qd = warp, gq = (qd * (D / 4)) / GS;
#pragma unroll
                for (int mt = 0; mt < MT16; mt++) {
                    const int ha = mt * 16 + lg, hb = ha + 8;
                    float ct[NTQ][4];
#pragma unroll
                    for (int jn = 0; jn < NTQ; jn++) ct[jn][0] = ct[jn][1] = ct[jn][2] = ct[jn][3] = 0.0f;
                    for (int k0 = 0; k0 < TH; k0 += 16) {
                        const int ra = k0 + 2 * lt;
                        oscar_u32 ah[4] = {0, 0, 0, 0}, al[4] = {0, 0, 0, 0};
                        if (ha < G) {
                            ah[0] = *(const oscar_u32 *)(whi + (gq * G + ha) * WST + ra);
                            ah[2] = *(const oscar_u32 *)(whi + (gq * G + ha) * WST + ra + 8);
                            al[0] = *(const oscar_u32 *)(wlo + (gq * G + ha) * WST + ra);
                            al[2] = *(const oscar_u32 *)(wlo + (gq * G + ha) * WST + ra + 8);
                        }
                        if (hb < G) {
                            ah[1] = *(const oscar_u32 *)(whi + (gq * G + hb) * WST + ra);
                            ah[3] = *(const oscar_u32 *)(whi + (gq * G + hb) * WST + ra + 8);
                            al[1] = *(const oscar_u32 *)(wlo + (gq * G + hb) * WST + ra);
                            al[3] = *(const oscar_u32 *)(wlo + (gq * G + hb) * WST + ra + 8);
                        }
                        const oscar_u8 *cb0 = st + I2_VC + NTQ * lg;
#pragma unroll
                        for (int wq = 0; wq < (NTQ + 3) / 4; wq++) {
                            oscar_u32 w[4];
#pragma unroll
                            for (int r = 0; r < 4; r++) {
                                const oscar_u8 *src = cb0 + (ra + (r & 1) + (r >> 1) * 8) * CSB + 4 * wq;
                                w[r] = NTQ >= 4 ? *(const oscar_u32 *)src : (oscar_u32)*(const oscar_u16 *)src;
                            }
                            // (row a, row b) pairs: tokens 2lt, 2lt+1 -> b0; 2lt+8, 2lt+9 -> b1
                            const oscar_u32 p0 = (__byte_perm(w[0], w[1], 0x5140u) >> (2 * qd)) & 0x03030303u;
                            const oscar_u32 p1 = (__byte_perm(w[2], w[3], 0x5140u) >> (2 * qd)) & 0x03030303u;
                            const oscar_u32 p2 = (__byte_perm(w[0], w[1], 0x7362u) >> (2 * qd)) & 0x03030303u;
                            const oscar_u32 p3 = (__byte_perm(w[2], w[3], 0x7362u) >> (2 * qd)) & 0x03030303u;
                            const oscar_u32 bq[4][2] = {{oscar_h2_codes(p0, 0x4140u), oscar_h2_codes(p1, 0x4140u)},
                                                        {oscar_h2_codes(p0, 0x4342u), oscar_h2_codes(p1, 0x4342u)},
                                                        {oscar_h2_codes(p2, 0x4140u), oscar_h2_codes(p3, 0x4140u)},
                                                        {oscar_h2_codes(p2, 0x4342u), oscar_h2_codes(p3, 0x4342u)}};
#pragma unroll
                            for (int u = 0; u < 4; u++) {
                                const int jn = wq * 4 + u;
                                if (jn < NTQ) {
                                    oscar_mma16816(ct[jn], ah[0], ah[1], ah[2], ah[3], bq[u][0], bq[u][1]);
                                    oscar_mma16816(ct[jn], al[0], al[1], al[2], al[3], bq[u][0], bq[u][1]);
                                }
                            }
                        }
                    }
                    const float ia = ha < G ? winv[gq * G + ha] : 0.0f, ib = hb < G ? winv[gq * G + hb] : 0.0f;
#pragma unroll
                    for (int jn = 0; jn < NTQ; jn++) {
                        macc[mt][jn][0] += ct[jn][0] * ia;
                        macc[mt][jn][1] += ct[jn][1] * ia;
                        macc[mt][jn][2] += ct[jn][2] * ib;
                        macc[mt][jn][3] += ct[jn][3] * ib;
                    }
                }
            }
        }
#endif
        if (vact) {
#pragma unroll
            for (int s = 0; s < HPT; s++) {
                const float cr = corr[vhs * HPT + s];
#pragma unroll
                for (int i = 0; i < 16; i++) acc[s][i] *= cr;
            }
#if OSCAR_INT2 && !I2MMA
            if (i2) {
                for (int tt = vtg; tt < nv; tt += NTG) {
                    const oscar_u32 word = *(const oscar_u32 *)(st + I2_VC + tt * CSB + 4 * vw);
                    const oscar_u32 *vs = (const oscar_u32 *)(st + I2_VS) + tt * NGR;
                    float dv[16]; // dequantised once, shared by the HPT heads: min + code * scale
#pragma unroll
                    for (int qd = 0; qd < 4; qd++) {
                        const oscar_u32 smv = vs[(qd * (D / 4) + 4 * vw) / GS];
                        const float vsc = oscar_f16_to_f32((oscar_u16)(smv & 0xffffu)), vmn = oscar_f16_to_f32((oscar_u16)(smv >> 16));
                        const oscar_u32 m = (word >> (2 * qd)) & 0x03030303u;
#pragma unroll
                        for (int e = 0; e < 4; e++) dv[qd * 4 + e] = fmaf(oscar_byte_f(m, e), vsc, vmn);
                    }
#pragma unroll
                    for (int s = 0; s < HPT; s++) {
                        const float pf = sc[(vhs * HPT + s) * SCAP + tt];
#pragma unroll
                        for (int i = 0; i < 16; i++) acc[s][i] += pf * dv[i];
                    }
                }
            } else
#endif
#if I2MMA
            if (!i2)
#endif
            {
                const oscar_u8 *vb = st + TB * RSB;
                for (int tt = vtg; tt < nv; tt += NTG) {
                    float vf[16];
#pragma unroll
                    for (int qd = 0; qd < 4; qd++) {
                        const uint2 w = *(const uint2 *)(vb + tt * RSB + (qd * (D / 4) + 4 * vw) * 2);
                        vf[qd * 4 + 0] = __uint_as_float(w.x << 16);
                        vf[qd * 4 + 1] = __uint_as_float(w.x & 0xffff0000u);
                        vf[qd * 4 + 2] = __uint_as_float(w.y << 16);
                        vf[qd * 4 + 3] = __uint_as_float(w.y & 0xffff0000u);
                    }
#pragma unroll
                    for (int s = 0; s < HPT; s++) {
                        const float pf = sc[(vhs * HPT + s) * SCAP + tt];
#pragma unroll
                        for (int i = 0; i < 16; i++) acc[s][i] += pf * vf[i];
                    }
                }
            }
        }
        __syncthreads();
    }

    // ---- reduce the token groups, write this split's partial result ----
    float *red = (float *)smem; // [NTG][G][D]
    if (vact) {
#pragma unroll
        for (int s = 0; s < HPT; s++) {
            float *r = red + ((size_t)vtg * G + vhs * HPT + s) * D;
#pragma unroll
            for (int qd = 0; qd < 4; qd++)
                *(float4 *)(r + qd * (D / 4) + 4 * vw) = make_float4(acc[s][qd * 4], acc[s][qd * 4 + 1], acc[s][qd * 4 + 2], acc[s][qd * 4 + 3]);
        }
    }
    __syncthreads();
#if I2MMA
    {
        const int qd = warp;
#pragma unroll
        for (int mt = 0; mt < MT16; mt++)
#pragma unroll
            for (int jn = 0; jn < NTQ; jn++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int h = mt * 16 + lg + (e >> 1) * 8, c = qd * (D / 4) + NTQ * (2 * lt + (e & 1)) + jn;
                    if (h < G) red[h * D + c] += macc[mt][jn][e];
                }
    }
    __syncthreads();
#endif
    for (int i = tid; i < G * D; i += NT) {
        float s = 0.0f;
#if I2MMA
        s = accmn[(i / D) * NGR + (i % D) / GS];
#endif
#pragma unroll 4
        for (int g2 = 0; g2 < NTG; g2++) s += red[(size_t)g2 * G * D + i];
        const int h = j * G + i / D;
        ((float *)p.part_o)[(((size_t)b * Hq + h) * p.n_splits + split) * D + (i % D)] = s;
    }
    if (tid < G) {
        float *ml = (float *)p.part_ml + (((size_t)b * Hq + j * G + tid) * p.n_splits + split) * 2;
        ml[0] = mrun[tid];
        ml[1] = lrun[tid];
    }
}

// the split weights of one head in a warp, up to 64 splits: lane s holds the (m, l) of splits s and s + 32 (zeros
// where there is none). M = the max of m over the splits that saw tokens (l > 0); each split's weight exp2(m - M)
// (0 for the others) into w0, w1; returns the sum L of weight x l (every lane: shuffles). The batch-1 merge and the
// cluster merge take it, so the two give the same bits
static __device__ __forceinline__ float oscar_split_weights(float m0, float l0, float m1, float l1, float &w0, float &w1) {
    float M = OSCAR_NEG_INF;
    if (l0 > 0.0f) M = fmaxf(M, m0);
    if (l1 > 0.0f) M = fmaxf(M, m1);
#pragma unroll
    for (int x = 16; x > 0; x >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, x));
    w0 = l0 > 0.0f ? exp2f(m0 - M) : 0.0f;
    w1 = l1 > 0.0f ? exp2f(m1 - M) : 0.0f;
    float L = 0.0f;
    L += w0 * l0;
    L += w1 * l1;
#pragma unroll
    for (int x = 16; x > 0; x >>= 1) L += __shfl_xor_sync(0xffffffffu, L, x);
    return L;
}

// ---------------------------------------------------------------------------------------------
// oscar_decode_w (issue 5): warp-owned units, no block barrier inside the loop. grid (splits, Hkv,
// B), OSCAR_WNW warps. The units of one (sequence, KV head) are 8-row BF16 tiles (sink, window,
// BF16 history) and TH-row INT2 history tiles; the warps of all splits take contiguous runs of
// units of about equal bytes. Each warp stages its own units with 16-byte cp.async (OSCAR_WNS
// buffers), keeps the online softmax in registers (max over the 4 lanes of a head: 2 shuffles per
// unit) and P.V in registers; the warps of a block merge once at the end (one barrier); output
// format as oscar_decode (the merge kernel combines the splits).
// Scores: tiles of 4 heads (mh), MMA rows = head 4 mh + (r & 7) / 2, so every head appears on two
// lane rows and lane (lg, lt) ends up with the scores of head 4 mh + lg / 2 for tokens 2 lt, 2 lt + 1
// of each 8-token column. INT2 units: s8 x u8 m16n8k32, the query as 4 base-256 digits (rows hold
// digit (r & 1) + 2 (r >> 3); one shuffle joins lanes 2h, 2h + 1), codes x 4^qd masked in place and
// the query digits carry 4^-qd. BF16 units: bf16 m16n8k16 with the query split hi (rows 0-7) + lo
// (rows 8-15).
// P.V runs transposed (O^T = V^T P^T: M = 16 channels, N = 8 columns = 4 heads x hi/lo, K = 16
// tokens): a lane's scores times the V scales are exactly its B operand (hi for even lg, lo for odd),
// with no shuffles, and O takes 32 registers at G <= 4. INT2 V codes enter as fp16 1024 + code *
// 4^qd (the byte masked to quarter qd, or-ed into 0x6400, minus 1024: exact); outputs are scaled by
// 4^-qd at the end.
#ifndef OSCAR_WARP // 2: this kernel for INT2 and BF16 caches, 1: INT2 only, 0: never (oscar_decode)
#define OSCAR_WARP 2
#endif
// D 256: G <= 4 only, INT2 with the u8 P.V (whole 32-token k-steps)
#if defined(OSCAR_WPV)
#define W_D256_PV OSCAR_WPV
#else
#define W_D256_PV 1
#endif
#if OSCAR_WARP && OSCAR_MMA && (D == 64 || D == 128 || (D == 256 && G <= 4 && (!OSCAR_INT2 || ((TH % 32) == 0 && W_D256_PV)))) && G <= 8 && \
    ((OSCAR_INT2 && I2MMA && (D >= 128 || GS >= 32)) || (!OSCAR_INT2 && OSCAR_WARP > 1))
#define WARPK 1
#else
#define WARPK 0
#endif
#ifndef OSCAR_WNW
#define OSCAR_WNW 4
#endif
#ifndef OSCAR_WNS
#define OSCAR_WNS 2
#endif
#ifndef OSCAR_WQFS // 1: score MMAs read the query digit fragments from shared memory (16 registers fewer at G <= 4)
#define OSCAR_WQFS (G <= 4)
#endif
#ifndef OSCAR_WNG // score n-tiles in flight per warp (independent MMA chains)
#define OSCAR_WNG 4
#endif
#ifndef OSCAR_WDC // 1: a lane's two rows of an INT2 score tile hold adjacent query digits (d, d + 1), summed as one int
#define OSCAR_WDC 1 //  c_d + 256 c_(d+1) (|.| < 2^31) before one conversion and one product (kernels/NOTES.md v69)
#endif
#if WARPK
#define WNW OSCAR_WNW
#define WNS OSCAR_WNS
#define WRB (D / 4)      // INT2 code row bytes
#define WBPL (D / 32)    // V code bytes per lane and token (P.V B operand)
#define WNB (D / 64)     // K code words per lane and token (score B operand)
#define W_KSQ (D >= 128 ? D / 128 : 1) // s8 MMA k-steps per quarter (D 256: byte columns 0-31, 32-63)
#define W_MH ((G + 3) / 4) // head tiles (4 heads each, hi/lo columns)
// OSCAR_WHL (INT2, G 5-8, default on): one head per lane row. Score tiles hold all 8 heads (INT2: tile t =
// digits 2t (rows 0-7) and 2t + 1 (rows 8-15) of heads 0-7; BF16: hi rows 0-7, lo rows 8-15), so
// lane (lg, lt) ends up with head lg's scores for tokens 2 lt, 2 lt + 1 with no shuffle; the P.V's
// columns are the 8 heads (hi and lo weights in two MMAs into one accumulator), so O takes 32
// registers and each head's softmax runs once, not on two lanes.
#ifndef OSCAR_WHL
#define OSCAR_WHL (G > 4)
#endif
#define WHL (OSCAR_WHL && G > 4 && OSCAR_INT2) // BF16 caches keep the 4-head tiles (v39: level at G 8, 24% slower at G 16 batch 8)
#define W_MO (WHL ? 1 : W_MH) // O / softmax sets per lane
#define W_NMT (WBPL / 2)   // P.V channel tiles per quarter: row lg -> byte column WBPL lg + mt, row lg + 8 -> WBPL lg + W_NMT + mt
#define W_NO (4 * W_NMT)   // channel tiles: jo = qd * W_NMT + mt
#define WUB 8            // rows of a BF16 unit
#define WHB (TH < 8 ? TH : 8)
#define WBK (2 * D + 32) // BF16 K row stride in shared memory (bank-conflict free for the score loads)
#define WBV (2 * D + 16) // BF16 V row stride
#define W_BF_STAGE (WUB * WBK + WUB * WBV)
#if OSCAR_INT2
#define W_QPG (GS / (D / 4)) // quarters per scale group
#define W_QPK (D >= 128 ? 1 : 2)  // quarters per s8 MMA k-step (32 byte columns; D 256: half a quarter)
#define W_NKS (4 * W_KSQ / W_QPK) // k-steps per row
#define W_NTT (TH / 8)
#define W_WNG (OSCAR_WNG < W_NTT ? OSCAR_WNG : W_NTT)
#define W_I2_V (TH * WRB)
#define W_I2_KS (W_I2_V + (TH + TH / 4) * WRB) // V rows padded: row t at (t + t/4) * WRB
#define W_I2_VS (W_I2_KS + TH * NGR * 4)
#define W_I2_STAGE (W_I2_VS + TH * NGR * 4)
#define W_STG0 (W_I2_STAGE > W_BF_STAGE ? W_I2_STAGE : W_BF_STAGE)
#define W_HU TH
#define W_WI (TH * 2 * (WRB + 4 * NGR) / 256 > 0 ? TH * 2 * (WRB + 4 * NGR) / 256 : 1)
#else
#define W_STG0 W_BF_STAGE
#define W_HU WHB
#define W_WI (WHB * D / 64 > 0 ? WHB * D / 64 : 1)
#endif
#define W_WB (WUB * D / 64) // cost of a BF16 unit, bytes / 256
#ifdef OSCAR_WWB // diagnostics: another throughput cost of a BF16 unit
#define W_WBT OSCAR_WWB
#else
#define W_WBT ((W_WI * 9 + 3) / 7) // ~1.29 INT2 units (23 at d 128, 13 at d 64)
#endif
#define W_STG ((W_STG0 + 127) / 128 * 128)
#define W_QS_OFF (WNW * WNS * W_STG)
#define W_QFI_OFF (W_QS_OFF + G * D * 4)
#define W_QFB_OFF (W_QFI_OFF + W_MH * (D / 16) * 32 * 16)
#define W_QM_OFF (W_QFB_OFF + W_MH * (D / 16) * 32 * 16)
#define W_SMEM (W_QM_OFF + 4 * (8 + 8 + 8 * NGR))
#else
#define W_SMEM 0
#endif
extern "C" __device__ int oscar_decode_w_on = WARPK;
extern "C" __device__ int oscar_decode_w_smem_bytes = W_SMEM;
extern "C" __device__ int oscar_decode_w_threads = 32 * OSCAR_WNW;
#ifndef OSCAR_WIL // 1: a block's warps take its units in turn, 0: each warp a contiguous run of them (v51:
#define OSCAR_WIL (!OSCAR_INT2) // BF16 1-2% faster from 128K or batch 8 up; INT2 0.5-2% faster at batch 8-32 but
#endif                          // 3% slower at 1 x 128K, so off there: kernels/NOTES.md, twenty-fourth session)
#ifndef OSCAR_WIG // warps per group that take a region's units in turn (OSCAR_WIL: all of the block's)
#define OSCAR_WIG (OSCAR_WIL ? OSCAR_WNW : 1)
#endif
#if OSCAR_WIG < 1 || OSCAR_WIG > OSCAR_WNW || OSCAR_WNW % OSCAR_WIG != 0
#error "OSCAR_WIG must divide OSCAR_WNW (warps per block)"
#endif
#define W_WIG OSCAR_WIG
#ifndef OSCAR_MPOLL // 1: oscar_decode_w counts the splits done and the merges poll the counts (no grid wait)
#define OSCAR_MPOLL 1
#endif
extern "C" __device__ int oscar_merge_polls = OSCAR_MPOLL;

#if WARPK
#if WNW * G * D * 4 + WNW * G * 12 > WNW * WNS * W_STG
#error "warp merge buffer does not fit"
#endif
static __device__ __forceinline__ void oscar_mma_bf16(float c[4], oscar_u32 a0, oscar_u32 a1, oscar_u32 a2, oscar_u32 a3, oscar_u32 b0, oscar_u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
static __device__ __forceinline__ void oscar_b2_split(float x0, float x1, oscar_u32 *hi, oscar_u32 *lo) {
    oscar_u32 h, l;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(x1), "f"(x0));
    const float f0 = __uint_as_float(h << 16), f1 = __uint_as_float(h & 0xffff0000u);
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(l) : "f"(x1 - f1), "f"(x0 - f0));
    *hi = h;
    *lo = l;
}
static __device__ __forceinline__ void oscar_imma(int c[4], uint4 a, oscar_u32 b0, oscar_u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}
// the hi (lo == 0) or lo half pair of (x0, x1), fp16 / bf16
static __device__ __forceinline__ oscar_u32 oscar_h2_part(float x0, float x1, int lo) {
    oscar_u32 h, l;
    oscar_h2_split(x0, x1, &h, &l);
    return lo ? l : h;
}
static __device__ __forceinline__ oscar_u32 oscar_b2_part(float x0, float x1, int lo) {
    oscar_u32 h, l;
    oscar_b2_split(x0, x1, &h, &l);
    return lo ? l : h;
}
static __device__ __forceinline__ void oscar_cp_async16_zero(void *smem, const void *gmem) {
    oscar_u32 s = (oscar_u32)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 0;\n" ::"r"(s), "l"(gmem));
}
// fp16 codes of quarter qd from a byte-pair word (bytes 0 and 2 hold the codes of the two halves)
static __device__ __forceinline__ oscar_u32 oscar_w_codes(oscar_u32 x, int qd) {
    oscar_u32 o, r;
    // (x & mask) | 0x6400 halves in one lop3 (ptxas emitted an and and an or for the C form)
    asm("lop3.b32 %0, %1, %2, %3, 0xea;" : "=r"(r) : "r"(x), "r"(0x00030003u << (2 * qd)), "r"(0x64006400u));
    asm("sub.f16x2 %0, %1, %2;" : "=r"(o) : "r"(r), "r"(0x64006400u));
    return o;
}

// 2^x by the MUFU alone (exp2f adds a denormal-range fix-up around it: 4 more instructions per
// call); weights below 2^-126 of the running max flush to 0
static __device__ __forceinline__ float oscar_ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// INT2 P.V on u8 x u8 tensor cores (where a unit holds whole 32-token k-steps):
// the V codes masked in place (code x 4^qd, one lop3 per 4 codes) against the weights p * scale
// as three base-256 digits of 23-bit fixed point, scaled per head and unit so that the unit's
// largest weight is just below 2^23 (each weight within 2^-24 of that largest one; 16 bits were
// not enough: the min term sum p z cancels most of the code term), summed exactly in int32 over
// the unit (digits 0-1 in one n-tile, digit 2 in a second) and added to the fp32 O once per
// channel tile: 18% fewer instructions per unit. The default since the warps split their units by
// time (v29): 1-2% faster at batch 8-32, level at batch 1 on the H100 (kernels/NOTES.md, v25, v29).
// -DOSCAR_WPV=0: fp16 MMAs on converted codes with hi / lo weights (two ops per 2 codes)
#ifndef OSCAR_WQFIRST // 1: the query's loads before the first units' copies (kernels/NOTES.md v30)
#define OSCAR_WQFIRST 1
#endif
#ifndef OSCAR_WBEQ // 1: where warps walk few units, a BF16 unit costs as much as an INT2 unit
#define OSCAR_WBEQ 1
#endif
#ifndef OSCAR_WPV
#define OSCAR_WPV (G <= 4) // measured at G 4 (d 64 G 3 and d 128 G 8: kernels/NOTES.md v29)
#endif
#define WPVK (OSCAR_WPV && OSCAR_INT2 && (TH % 32) == 0 && !WHL) // INT2 units of whole 32-token k-steps only
#if WPVK
static __device__ __forceinline__ void oscar_imma_u8(int c[4], oscar_u32 a0, oscar_u32 a1, oscar_u32 a2, oscar_u32 a3, oscar_u32 b0, oscar_u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
#endif

#ifndef OSCAR_WMINB // resident blocks per SM the register allocation must allow
#define OSCAR_WMINB (WHL && D <= 128 ? 12 / WNW : G > 4 || D > 128 ? 8 / WNW : 16 / WNW) // WHL G 8: 3 blocks of 4 warps, no spill (v39)
#endif
// -DOSCAR_WPROF=N (diagnostics only): the first N blocks of each oscar_decode_w launch record their
// SM, start / end times (globaltimer ns, clock64 cycles), each warp's end and its units (all, BF16)
// in oscar_wprof[16 N]; `bench --gpu` with OSCAR_WPROF_OUT=FILE reads them after a call
#ifdef OSCAR_WPROF
extern "C" {
__device__ unsigned long long oscar_wprof[OSCAR_WPROF * 16];
}
#endif
// the block's weights for head h from the warps' (m, l) in wml[warp][G][2]: M = the max over the warps that saw tokens
// (l > 0), f[w] = exp2(m_w - M) (0 for a warp without tokens), also stored to fo[w] where FO; returns L = sum f[w] l_w,
// summed in warp order
template <int NW, int NG, bool FO>
static __device__ __forceinline__ float oscar_warp_weights(const float *wml, int h, float &M, float (&f)[NW], float *fo) {
    float L = 0.0f;
    M = OSCAR_NEG_INF;
#pragma unroll
    for (int w = 0; w < NW; w++)
        if (wml[(w * NG + h) * 2 + 1] > 0.0f) M = fmaxf(M, wml[(w * NG + h) * 2]);
#pragma unroll
    for (int w = 0; w < NW; w++) {
        const float l = wml[(w * NG + h) * 2 + 1];
        f[w] = l > 0.0f ? exp2f(wml[(w * NG + h) * 2] - M) : 0.0f;
        L += f[w] * l;
        if (FO) fo[w] = f[w];
    }
    return L;
}
// the kernel's body; WIG: warps per group taking a region's units in turn (W_WIG for oscar_decode_w, WNW for
// oscar_decode_w_il); CM 1: the splits of a (sequence, query-head group) are one thread block cluster, which
// merges their partials through distributed shared memory and writes the outputs (no merge launch; v55)
template <int WIG, int CM>
static __device__ __forceinline__ void oscar_decode_w_body(const oscar_attn_params &p) {
    extern __shared__ __align__(16) oscar_u8 smem[];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, lg = lane >> 2, lt = lane & 3;
    const int split = blockIdx.x, j = blockIdx.y, b = blockIdx.z, jk = j / OSCAR_HSPLIT; // j: query-head group, jk: its KV head
    const int Hq = p.Hkv * OSCAR_HSPLIT * G;
#define W_PH(k) OSCAR_PHASE(oscar_wph, OSCAR_WPROF, k, wpc0) // a phase of the block (-DOSCAR_WPROF)
#ifdef OSCAR_WPROF
    const unsigned wpb = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned long long *wpr = wpb < OSCAR_WPROF && WNW <= 4 ? oscar_wprof + 16 * (size_t)wpb : 0;
    const long long wpc0 = clock64();
    if (wpr && tid == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        wpr[0] = sm;
        wpr[1] = oscar_gtime();
    }
#endif
    // oscar_merge may be placed now: it waits for this grid (or its KV head's count) before reading. The cluster-merge
    // kernels, whose next kernel is the next call's decode, let it in only at their end (placed early, its blocks
    // would take the free slots of the SMs unevenly)
    if (!CM) oscar_pdl_launch();
    const int slot = p.seqinfo ? ((const int *)p.seqinfo)[2 * b] : p.inline_info[2 * b];
    const int n = p.seqinfo ? ((const int *)p.seqinfo)[2 * b + 1] : p.inline_info[2 * b + 1];
    const int ns = n < p.S0 ? n : p.S0;
    const int H = n >= p.S0 + p.W ? p.P * ((n - p.S0 - p.W) / p.P) : 0;
    const int nw = n - ns - H;
    const int tsu = (ns + WUB - 1) / WUB, thu = H / W_HU, twu = (nw + WUB - 1) / WUB;
    const int U = tsu + thu + twu;
    const int TW = p.n_splits * WNW, gw = split * WNW + warp;
    // The warps split the units by cost. A BF16 unit costs as much as an INT2 unit where warps walk
    // few units (their time is the units' latency, about equal for both kinds), and W_WBT where they
    // walk many (SM-throughput bound: an 8-row BF16 unit takes ~1.2-1.26x the time of a 64-row INT2
    // unit there; measured per warp by -DOSCAR_WPROF, kernels/NOTES.md v29, v30).
    const bool wmany = (long long)(tsu + twu) * W_WB + (long long)thu * W_WI >= 8LL * W_WI * TW;
    const long long wb = !OSCAR_INT2 ? W_WB : wmany ? W_WBT : OSCAR_WBEQ ? W_WI : W_WB;
    const long long C = (long long)(tsu + twu) * wb + (long long)thu * W_WI;
    auto first_unit = [&](long long c) -> int {
        if (c <= 0) return 0;
        const long long a = (long long)tsu * wb;
        if (c <= a) return (int)((c + wb - 1) / wb);
        c -= a;
        const long long bb = (long long)thu * W_WI;
        if (c <= bb) return tsu + (int)((c + W_WI - 1) / W_WI);
        c -= bb;
        const int u = tsu + thu + (int)((c + wb - 1) / wb);
        return u < U ? u : U;
    };
    // WIG > 1: groups of WIG warps take their group's units in turn (unit ua, ua + WIG, ...): WNW / WIG
    // regions read by the block at a time instead of WNW (kernels/NOTES.md v51)
    const int gsub = split * (WNW / WIG) + warp / WIG, TG = p.n_splits * (WNW / WIG);
    const int ua = WIG == 1 ? first_unit(C * gw / TW) : WIG == WNW ? first_unit(C * split / p.n_splits) + warp : first_unit(C * gsub / TG) + warp % WIG;
    const int ub = WIG == 1 ? first_unit(C * (gw + 1) / TW) : WIG == WNW ? first_unit(C * (split + 1) / p.n_splits) : first_unit(C * (gsub + 1) / TG);
#define W_US WIG

    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + jk;
    const oscar_u8 *sinkK = (const oscar_u8 *)p.sink + slab * 2 * p.S0 * (D * 2);
    const oscar_u8 *sinkV = sinkK + (size_t)p.S0 * (D * 2);
    const oscar_u8 *winK = (const oscar_u8 *)p.win + slab * 2 * p.ring * (D * 2);
    const oscar_u8 *winV = winK + (size_t)p.ring * (D * 2);
    const int *bt = (const int *)p.bt + (size_t)slot * p.max_blocks;
    oscar_u8 *wst = smem + warp * WNS * W_STG;

    // ---- staging of one unit by this warp ----
    // this (layer, KV head)'s page p of the pool is at hpool + p * hpage (history units of either kind)
    const oscar_u8 *hpool = (const oscar_u8 *)p.pool + ((size_t)p.layer * p.max_pages * p.Hkv + jk) * (size_t)p.head_page_bytes;
    const size_t hpage = (size_t)p.Hkv * (size_t)p.head_page_bytes;
#if OSCAR_INT2
    // An INT2 unit's copies: every per-lane offset is fixed for the warp (the unit's page base
    // changes, and with it only one 64-bit add per kind of chunk; the page size is a compile-time
    // constant, so no division either): K codes, V codes (rows padded in shared memory: row t at
    // (t + t / 4) * WRB), then the K and V scales
    // (the lane number from %laneid, which the compiler cannot bound: with tid & 31 it turns
    // lane * 16 + 512 k into an or, and then cannot fold the 512 k into the copies' addresses)
    // (WIG > 1: the lane number and the V rows' offset are recomputed in each issue, which keeps the
    // INT2 unit loop within 128 registers without a spill)
    int w_lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(w_lane));
    // the lane's V-code destination: + 32 / (WRB / 16) rows per step
#define W_VDST_OF(l) (W_I2_V + ((oscar_u32)(l) / (WRB / 16) + (((oscar_u32)(l) / (WRB / 16)) >> 2)) * WRB + ((oscar_u32)(l) % (WRB / 16)) * 16)
    const oscar_u32 w_vdst0 = WIG == 1 ? W_VDST_OF(w_lane) : 0u;
#define W_NCK (TH * WRB / 16) // 16-byte chunks of a unit's K (or V) codes
#define W_NSC (TH * NGR / 4) // 16-byte chunks of a unit's K (or V) scales
#endif
    auto issue = [&](int u, oscar_u8 *st) {
#if OSCAR_INT2
        if (u >= tsu && u < tsu + thu) {
            const int tok0 = (u - tsu) * TH, r0 = tok0 % PP;
            const oscar_u8 *base = hpool + (size_t)bt[tok0 / PP] * hpage;
            if (WIG > 1) asm volatile("mov.u32 %0, %%laneid;" : "=r"(w_lane));
            const oscar_u32 w_vdst = WIG == 1 ? w_vdst0 : W_VDST_OF(w_lane);
            const oscar_u8 *kb = base + r0 * WRB + w_lane * 16, *vb = kb + PP * (WRB + NGR * 4);
#pragma unroll
            for (int k = 0; k < (W_NCK + 31) / 32; k++)
                if (W_NCK % 32 == 0 || w_lane + 32 * k < W_NCK) oscar_cp_async16(st + w_lane * 16 + k * 512, kb + k * 512);
#pragma unroll
            for (int k = 0; k < (W_NCK + 31) / 32; k++)
                if (W_NCK % 32 == 0 || w_lane + 32 * k < W_NCK) oscar_cp_async16(st + w_vdst + k * (32 / (WRB / 16)) * 5 / 4 * WRB, vb + k * 512);
            const oscar_u8 *sb = base + PP * WRB + r0 * NGR * 4;
#pragma unroll
            for (int k = 0; k < (2 * W_NSC + 31) / 32; k++) {
                const int c = w_lane + 32 * k, kv = c / W_NSC, i = c % W_NSC;
                if ((2 * W_NSC) % 32 == 0 || c < 2 * W_NSC)
                    oscar_cp_async16(st + W_I2_KS + kv * (W_I2_VS - W_I2_KS) + i * 16, sb + kv * (PP * (WRB + NGR * 4)) + i * 16);
            }
            return;
        }
#endif
        // a BF16 unit: rows row0 + r (r < nr) of a K and a V row array (the sink, a history page, or
        // the window ring, whose index wraps at wrap: row0 < wrap and nr <= wrap, so once at most),
        // chosen once per unit; rows past nr are zero-filled
        int nr, row0, wrap = 0x40000000;
        const oscar_u8 *bk, *bv;
        if (u < tsu) {
            row0 = u * WUB;
            nr = ns - row0 < WUB ? ns - row0 : WUB;
            bk = sinkK, bv = sinkV;
        } else if (u >= tsu + thu) {
            const int t0 = (u - tsu - thu) * WUB;
            nr = nw - t0 < WUB ? nw - t0 : WUB;
            row0 = (H + t0) % p.ring, wrap = p.ring;
            bk = winK, bv = winV;
        } else {
            const int t0 = (u - tsu) * W_HU;
            nr = W_HU;
            bk = hpool + (size_t)bt[t0 / PP] * hpage;
            bv = bk + (size_t)PP * (D * 2);
            row0 = t0 % PP;
        }
#pragma unroll
        for (int c = lane; c < 2 * WUB * (D / 8); c += 32) {
            const int kv = c / (WUB * (D / 8)), r = (c / (D / 8)) % WUB, ch = c % (D / 8);
            oscar_u8 *dst = st + (kv ? WUB * WBK + r * WBV : r * WBK) + ch * 16;
            if (r < nr) {
                int row = row0 + r;
                if (row >= wrap) row -= wrap;
                oscar_cp_async16(dst, (kv ? bv : bk) + (size_t)row * (D * 2) + ch * 16);
            } else {
                oscar_cp_async16_zero(dst, sinkK);
            }
        }
    };

    // first units in flight before the query preparation (OSCAR_WQFIRST 0), or only the first
    // unit's block-table entry fetched and the copies issued after the query's loads (1)
#if !OSCAR_WQFIRST
#pragma unroll
    for (int s = 0; s < WNS - 1; s++) {
        if (ua + s * W_US < ub) issue(ua + s * W_US, wst + s * W_STG);
        oscar_cp_commit();
    }
#else
    if (ua < ub && ua >= tsu && ua < tsu + thu) asm volatile("prefetch.global.L1 [%0];" ::"l"(bt + (ua - tsu) * W_HU / p.P));
#if OSCAR_INT2 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // p.l2pf > 0 (the host's choice, kernels/NOTES.md v57): the warp's first l2pf INT2 units prefetched into L2 by
    // bulk prefetches (one per run: K codes, K scales, V codes, V scales) while the block waits for the previous
    // kernel, whose end leaves the memory system idle. A prefetch moves no data into the SM and reads nothing the
    // previous kernel writes (the block tables come by host copies); the page index is bounded, so a stale entry
    // can only name a line of the pool
    if (lane < 4 * p.l2pf) {
        const int u = ua + (lane >> 2) * W_US, r = lane & 3;
        if (u < ub && u >= tsu && u < tsu + thu) {
            const int tok0 = (u - tsu) * TH, r0 = tok0 % PP;
            int pg = bt[tok0 / PP];
            pg = pg < 0 ? 0 : pg >= p.max_pages ? p.max_pages - 1 : pg;
            const oscar_u8 *base = hpool + (size_t)pg * hpage + (r >> 1) * PP * (WRB + NGR * 4);
            const oscar_u8 *a = (r & 1) ? base + PP * WRB + r0 * NGR * 4 : base + r0 * WRB;
            const unsigned nb = (r & 1) ? TH * NGR * 4 : TH * WRB;
            asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"(nb) : "memory");
        }
    }
#endif
#endif

    // ---- queries: s8 digit fragments (INT2, power-of-two normalised per head, x 4^-qd) and
    // bf16 hi/lo fragments (BF16 rows); per head: 1 / normaliser and the sum over each group, both
    // times the softmax scale (log2 domain) ----
    float *qs = (float *)(smem + W_QS_OFF);
    uint4 *qfi = (uint4 *)(smem + W_QFI_OFF);
    uint4 *qfb = (uint4 *)(smem + W_QFB_OFF);
    float *qmul = (float *)(smem + W_QM_OFF), *qiv = qmul + 8, *qsm = qiv + 8; // [8], [8], [8][NGR]
    {
        const float *qg = (const float *)p.q + ((size_t)b * Hq + (size_t)j * G) * D;
        oscar_pdl_wait(); // the query rotation has finished (nothing before this point reads it)
#ifdef OSCAR_WPROF
        if (wpr && tid == 0) {
            wpr[13] = (unsigned long long)(clock64() - wpc0);
            wpr[2] = oscar_gtime();
        }
#endif
#if OSCAR_WQFIRST
        float qv[(G * D + 32 * WNW - 1) / (32 * WNW)];
#pragma unroll
        for (int k = 0; k < (G * D + 32 * WNW - 1) / (32 * WNW); k++) qv[k] = tid + k * 32 * WNW < G * D ? qg[tid + k * 32 * WNW] : 0.0f;
#pragma unroll
        for (int s = 0; s < WNS - 1; s++) {
            if (ua + s * W_US < ub) issue(ua + s * W_US, wst + s * W_STG);
            oscar_cp_commit();
        }
#pragma unroll
        for (int k = 0; k < (G * D + 32 * WNW - 1) / (32 * WNW); k++)
            if (tid + k * 32 * WNW < G * D) qs[tid + k * 32 * WNW] = qv[k];
#else
        for (int i = tid; i < G * D; i += 32 * WNW) qs[i] = qg[i];
#endif
        __syncthreads();
        W_PH(0);
    }
    if (p.qwht) {
        // the queries arrive unrotated and every rotation is H: q . H here, a warp per head, by the
        // write path's transform (oscar_wht_row: the CPU's oscar_wht, bit for bit). No oscar_rotate_q
        // launch, so no grid-to-grid wait on the call's chain (kernels/NOTES.md v45)
        for (int hd = warp; hd < G; hd += WNW) {
            float v[D / 32];
#pragma unroll
            for (int t = 0; t < D / 32; t++) v[t] = qs[hd * D + lane + 32 * t];
            oscar_wht_row<D>(v, lane);
#pragma unroll
            for (int t = 0; t < D / 32; t++) qs[hd * D + lane + 32 * t] = v[t];
        }
        __syncthreads();
        W_PH(1);
    }
#if OSCAR_INT2
    for (int h = warp; h < 4 * W_MH; h += WNW) { // the heads of the score tiles; those >= G get zeros
        if (h >= G) { // warp-uniform
            if (lane == 0) qmul[h] = qiv[h] = 0.0f;
            if (lane < NGR) qsm[h * NGR + lane] = 0.0f;
            continue;
        }
        float m = 0.0f, s[NGR];
#pragma unroll
        for (int c = lane; c < D; c += 32) m = fmaxf(m, fabsf(qs[h * D + c]));
#pragma unroll
        for (int g = 0; g < NGR; g++) { // group sums by the warp
            s[g] = 0.0f;
#pragma unroll
            for (int c = lane; c < GS; c += 32) s[g] += qs[h * D + g * GS + c];
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
#pragma unroll
            for (int g = 0; g < NGR; g++) s[g] += __shfl_xor_sync(0xffffffffu, s[g], o);
        }
        if (lane == 0) {
            float inv;
            qmul[h] = oscar_pow2_norm(m > 0.0f ? m : 1.0f, &inv);
            qiv[h] = inv * p.scale_log2;
#pragma unroll
            for (int g = 0; g < NGR; g++) qsm[h * NGR + g] = s[g] * p.scale_log2;
        }
    }
    __syncthreads();
    W_PH(2);
#endif
    for (int i = tid; i < W_MO * (D / 16) * 32; i += 32 * WNW) { // [mh][ks][lane]; row r of tile mh: head 4 mh + (r & 7) / 2 (WHL: head r & 7)
#if WHL
        const int ln = i % 32, ks = (i / 32) % (D / 16), h = ln >> 2, t = ln & 3;
#else
        const int ln = i % 32, ks = (i / 32) % (D / 16), h = 4 * (i / (32 * (D / 16))) + (ln >> 3), t = ln & 3;
#endif
        uint4 fb = make_uint4(0, 0, 0, 0);
        if (h < G) {
            const int cb = 16 * ks + 4 * t;
            oscar_b2_split(qs[h * D + cb], qs[h * D + cb + 1], &fb.x, &fb.y);
            oscar_b2_split(qs[h * D + cb + 2], qs[h * D + cb + 3], &fb.z, &fb.w);
        }
        qfb[i] = fb;
    }
    W_PH(4);
#if OSCAR_INT2
    // INT2 scores: the query as 4 signed base-256 digits per element, v = rint(q * qmul * 2^15 * 4^-qd)
    // (|v| < 2^30; every bit of the fp32 query kept down to 2^-30 of the head's max), for
    // m16n8k32 s8 x u8 MMAs: A row r of tile mh = head 4 mh + (r & 7) / 2, digit (r & 1) + 2 (r >> 3)
    // (OSCAR_WDC: digit 2 (r & 1) + (r >> 3), so that a lane's rows r and r + 8 hold digits d, d + 1);
    // D 128: k-step = quarter, k = 4 lt + b <-> byte column 8 lt + b, k = 16 + 4 lt + b <-> 8 lt + 4 + b;
    // D 64: k-step ks = quarters 2 ks (k < 16) and 2 ks + 1, k = 4 lt + b (+16) <-> byte column 4 lt + b
    for (int i = tid; i < W_MH * W_NKS * 32; i += 32 * WNW) {
#if WHL
        // WHL: tile t = i / (32 W_NKS), row lq: head lq, digit 2 t (regs 0 / 2), row lq + 8: digit 2 t + 1 (regs 1 / 3)
        const int ln = i % 32, ks = (i / 32) % W_NKS, lq = ln >> 2, tq = ln & 3, h = lq, dlo = 2 * (i / (32 * W_NKS));
#else
        const int ln = i % 32, ks = (i / 32) % W_NKS, lq = ln >> 2, tq = ln & 3, h = 4 * (i / (32 * W_NKS)) + (lq >> 1);
#endif
        oscar_u32 r[4] = {0u, 0u, 0u, 0u};
        if (h < G) {
            // regs 0 / 2 hold digit k = lq & 1 of columns khi = 0 / 1, regs 1 / 3 digit 2 + k. The
            // signed digits in closed form: u = v + 0x808080 has bytes e0, e1, e2 (digit + 128) and
            // the top digit as its signed top byte, so digit byte k < 3 is byte k of u ^ 0x80 and
            // digit 3 is byte 3 (|v| < 2^30: the top digit lies in [-64, 64])
#if WHL
            const int k = dlo, k2 = dlo + 1; // digits of regs 0 / 2 and 1 / 3
#elif OSCAR_WDC
            const int k = 2 * (lq & 1), k2 = k + 1;
#else
            const int k = lq & 1, k2 = k + 2;
#endif
            const oscar_u32 slo = (oscar_u32)(k | (k + 4) << 4), shi = (oscar_u32)(k2 | (k2 + 4) << 4);
#pragma unroll
            for (int khi = 0; khi < 2; khi++) {
                oscar_u32 u[4];
#pragma unroll
                for (int b = 0; b < 4; b++) {
#if D >= 128
                    const int qd = ks / W_KSQ, col = 32 * (ks % W_KSQ) + 8 * tq + 4 * khi + b;
#else
                    const int qd = 2 * ks + khi, col = 4 * tq + b;
#endif
                    const float f = qmul[h] * 32768.0f * (qd == 0 ? 1.0f : qd == 1 ? 0.25f : qd == 2 ? 0.0625f : 0.015625f);
                    u[b] = (oscar_u32)__float2int_rn(qs[h * D + qd * (D / 4) + col] * f) + 0x808080u;
                }
                r[2 * khi] = __byte_perm(__byte_perm(u[0], u[1], slo), __byte_perm(u[2], u[3], slo), 0x5410) ^ 0x80808080u;
                r[2 * khi + 1] = __byte_perm(__byte_perm(u[0], u[1], shi), __byte_perm(u[2], u[3], shi), 0x5410) ^ (k2 == 3 ? 0u : 0x80808080u);
            }
        }
        qfi[i] = make_uint4(r[0], r[1], r[2], r[3]);
    }
    W_PH(5);
#endif
    __syncthreads();
    W_PH(6);
    const int hl = lg >> 1, part = lg & 1; // this lane's head in each tile (4 mh + hl), its B half (hi / lo)
#if OSCAR_INT2
    // the P.V loads of V codes: tokens 8 m + 2 lt + e (e < 2) sit at padded rows 10 m + e + 2 lt + lt / 2
    const int w_vl = W_I2_V + (2 * lt + (lt >> 1)) * WRB + WBPL * lg;
#if OSCAR_WQFS
#define W_QF(mh, ks) qfi[((mh) * W_NKS + (ks)) * 32 + lane]
#else
    uint4 qf[W_MH][W_NKS];
#define W_QF(mh, ks) qf[mh][ks]
#endif
    float qwl[W_MH], qwh[W_MH], qsmh[W_MO][NGR], pm[W_MO][NGR];
#pragma unroll
    for (int mh = 0; mh < W_MH; mh++) {
#if !OSCAR_WQFS
#pragma unroll
        for (int ks = 0; ks < W_NKS; ks++) qf[mh][ks] = qfi[(mh * W_NKS + ks) * 32 + lane];
#endif
#if WHL
        // tile mh holds digits 2 mh (c[0], c[1]) and 2 mh + 1 (c[2], c[3]) of head lg: weights 2^(8 digit - 15)
        qwl[mh] = qiv[lg] * (mh ? 2.0f : 3.0517578125e-05f);
        qwh[mh] = qiv[lg] * (mh ? 512.0f : 0.0078125f);
#elif OSCAR_WDC
        // digits 2 part and 2 part + 1 of the query (c[0] + 256 c[2]): the weight of the first, 2^(8 digit - 15), times 1 /
        // normaliser (qwh unused)
        qwl[mh] = qiv[4 * mh + hl] * (part ? 2.0f : 3.0517578125e-05f);
        qwh[mh] = 0.0f;
#else
        // digits (lg & 1) and 2 + (lg & 1) of the query: weights 2^(8 digit - 15), times 1 / normaliser
        qwl[mh] = qiv[4 * mh + hl] * (part ? 0.0078125f : 3.0517578125e-05f);
        qwh[mh] = qiv[4 * mh + hl] * (part ? 512.0f : 2.0f);
#endif
    }
#pragma unroll
    for (int mh = 0; mh < W_MO; mh++)
#pragma unroll
        for (int g = 0; g < NGR; g++) {
            qsmh[mh][g] = qsm[(WHL ? lg : 4 * mh + hl) * NGR + g];
            pm[mh][g] = 0.0f;
        }
#endif

    float O[W_MO][W_NO][4]; // O^T fragments: rows = channels, columns 2 lt / 2 lt + 1 = head 4 mh + lt hi / lo (WHL: heads 2 lt, 2 lt + 1)
#pragma unroll
    for (int mh = 0; mh < W_MO; mh++)
#pragma unroll
        for (int jo = 0; jo < W_NO; jo++) O[mh][jo][0] = O[mh][jo][1] = O[mh][jo][2] = O[mh][jo][3] = 0.0f;
    float mrun[W_MO], lrun[W_MO];
#pragma unroll
    for (int mh = 0; mh < W_MO; mh++) {
        mrun[mh] = OSCAR_NEG_INF;
        lrun[mh] = 0.0f;
    }

    // online softmax over a unit's scores s[nt][2] (tokens nt*8 + 2lt, +1 of head 4 mh + hl); the
    // O rows of this lane belong to head 4 mh + lt, whose correction lane 8 lt holds
#define W_SOFTMAX(NTTX, s, mh)                                                                  \
    {                                                                                           \
        float mx = OSCAR_NEG_INF;                                                               \
        _Pragma("unroll") for (int nt = 0; nt < NTTX; nt++) mx = fmaxf(mx, fmaxf(s[nt][0], s[nt][1])); \
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));                                    \
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));                                    \
        const float mnew = fmaxf(mrun[mh], mx);                                                 \
        const float corr = oscar_ex2(mrun[mh] - mnew);                                          \
        if (__any_sync(0xffffffffu, mnew != mrun[mh])) {                                        \
            const float co = __shfl_sync(0xffffffffu, corr, 8 * lt);                            \
            const float co1 = WHL ? __shfl_sync(0xffffffffu, corr, 8 * lt + 4) : co; /* WHL: head 2 lt + 1 */ \
            _Pragma("unroll") for (int jo = 0; jo < W_NO; jo++) {                               \
                O[mh][jo][0] *= co;                                                             \
                O[mh][jo][1] *= co1;                                                            \
                O[mh][jo][2] *= co;                                                             \
                O[mh][jo][3] *= co1;                                                            \
            }                                                                                   \
            W_PM_SCALE(mh, corr)                                                                \
            lrun[mh] *= corr;                                                                   \
        }                                                                                       \
        mrun[mh] = mnew;                                                                        \
        _Pragma("unroll") for (int nt = 0; nt < NTTX; nt++) {                                   \
            s[nt][0] = oscar_ex2(s[nt][0] - mnew);                                              \
            s[nt][1] = oscar_ex2(s[nt][1] - mnew);                                              \
            lrun[mh] += s[nt][0] + s[nt][1];                                                    \
        }                                                                                       \
    }
#if OSCAR_INT2
#define W_PM_SCALE(mh, corr) _Pragma("unroll") for (int g = 0; g < NGR; g++) pm[mh][g] *= corr;
#else
#define W_PM_SCALE(mh, corr)
#endif

    // ---- the warp's units ----
#ifdef OSCAR_WPROF
    if (wpr && tid == 0) wpr[14] = (unsigned long long)(clock64() - wpc0);
#endif
#pragma unroll 1
    for (int u = ua, i = 0; u < ub; u += W_US, i++) {
        if (u + (WNS - 1) * W_US < ub) issue(u + (WNS - 1) * W_US, wst + ((i + WNS - 1) % WNS) * W_STG);
        oscar_cp_commit();
        asm volatile("cp.async.wait_group %0;\n" ::"n"(WNS - 1));
        __syncwarp();
        const oscar_u8 *st = wst + (i % WNS) * W_STG;
#if OSCAR_INT2
        if (u >= tsu && u < tsu + thu) {
            float s[W_MO][W_NTT][2];
            const oscar_u32 *ksc = (const oscar_u32 *)(st + W_I2_KS);
#pragma unroll
            for (int ng = 0; ng < W_NTT; ng += W_WNG) {
                oscar_u32 wv[W_WNG][WNB]; // token (ng + i) * 8 + lg: byte columns 8 lt .. 8 lt + 7 (D 64: 4 lt .. 4 lt + 3)
#pragma unroll
                for (int i = 0; i < W_WNG; i++) {
#if WNB >= 2
#pragma unroll
                    for (int hh = 0; hh < WNB / 2; hh++) { // D 256: byte columns 32 hh + 8 lt .. + 7
                        const uint2 w2 = *(const uint2 *)(st + ((ng + i) * 8 + lg) * WRB + 32 * hh + 8 * lt);
                        wv[i][2 * hh] = w2.x;
                        wv[i][2 * hh + 1] = w2.y;
                    }
#else
                    wv[i][0] = *(const oscar_u32 *)(st + ((ng + i) * 8 + lg) * WRB + 4 * lt);
#endif
                }
#pragma unroll
                for (int g = 0; g < NGR; g++) {
                    int c[W_MH][W_WNG][4];
#pragma unroll
                    for (int mh = 0; mh < W_MH; mh++)
#pragma unroll
                        for (int i = 0; i < W_WNG; i++) c[mh][i][0] = c[mh][i][1] = c[mh][i][2] = c[mh][i][3] = 0;
#pragma unroll
                    for (int kq = 0; kq < W_QPG * W_KSQ / W_QPK; kq++) {
                        const int ks = (g * W_QPG * W_KSQ) / W_QPK + kq;
                        uint4 a[W_MH];
#pragma unroll
                        for (int mh = 0; mh < W_MH; mh++) a[mh] = W_QF(mh, ks);
#pragma unroll
                        for (int i = 0; i < W_WNG; i++) {
                            // u8 codes x 4^qd in place (the query digits carry 4^-qd)
#if D >= 128
                            const oscar_u32 m = 0x03030303u << (2 * (ks / W_KSQ)), b0 = wv[i][2 * (ks % W_KSQ)] & m, b1 = wv[i][2 * (ks % W_KSQ) + 1] & m;
#else
                            const oscar_u32 b0 = wv[i][0] & (0x03030303u << (4 * ks)), b1 = wv[i][0] & (0x0c0c0c0cu << (4 * ks));
#endif
#pragma unroll
                            for (int mh = 0; mh < W_MH; mh++) oscar_imma(c[mh][i], a[mh], b0, b1);
                        }
                    }
#pragma unroll
                    for (int i = 0; i < W_WNG; i++) {
                        const int t0 = (ng + i) * 8 + 2 * lt;
                        const oscar_u32 k0 = ksc[t0 * NGR + g], k1 = ksc[(t0 + 1) * NGR + g];
                        const float k0s = oscar_f16_to_f32((oscar_u16)(k0 & 0xffffu)), k0z = oscar_f16_to_f32((oscar_u16)(k0 >> 16));
                        const float k1s = oscar_f16_to_f32((oscar_u16)(k1 & 0xffffu)), k1z = oscar_f16_to_f32((oscar_u16)(k1 >> 16));
#if WHL
                        { // head lg: digits 0, 1 in tile 0, digits 2, 3 in tile 1, all in this lane
#if OSCAR_WDC
                            // each tile's two digits as one int: |c| <= GS x 128 x 192 <= 2^22.6, so |c_d + 256 c_(d+1)|
                            // < 2^31 (kernels/NOTES.md v69)
                            float d0 = fmaf((float)(c[1][i][0] + c[1][i][2] * 256), qwl[1], (float)(c[0][i][0] + c[0][i][2] * 256) * qwl[0]);
                            float d1 = fmaf((float)(c[1][i][1] + c[1][i][3] * 256), qwl[1], (float)(c[0][i][1] + c[0][i][3] * 256) * qwl[0]);
#else
                            float d0 = fmaf((float)c[0][i][2], qwh[0], (float)c[0][i][0] * qwl[0]);
                            float d1 = fmaf((float)c[0][i][3], qwh[0], (float)c[0][i][1] * qwl[0]);
                            d0 += fmaf((float)c[1][i][2], qwh[1], (float)c[1][i][0] * qwl[1]);
                            d1 += fmaf((float)c[1][i][3], qwh[1], (float)c[1][i][1] * qwl[1]);
#endif
                            const float v0 = k0s * d0 + k0z * qsmh[0][g];
                            const float v1 = k1s * d1 + k1z * qsmh[0][g];
                            s[0][ng + i][0] = g ? s[0][ng + i][0] + v0 : v0;
                            s[0][ng + i][1] = g ? s[0][ng + i][1] + v1 : v1;
                        }
#else
#pragma unroll
                        for (int mh = 0; mh < W_MH; mh++) {
#if OSCAR_WDC
                            // digits 2 part and 2 part + 1 here as one int, the other two in lane ^ 4
                            float d0 = (float)(c[mh][i][0] + c[mh][i][2] * 256) * qwl[mh];
                            float d1 = (float)(c[mh][i][1] + c[mh][i][3] * 256) * qwl[mh];
#else
                            // digits (lg & 1) and 2 + (lg & 1) here, the other two in lane ^ 4: weights 2^(8 digit - 15)
                            float d0 = fmaf((float)c[mh][i][2], qwh[mh], (float)c[mh][i][0] * qwl[mh]);
                            float d1 = fmaf((float)c[mh][i][3], qwh[mh], (float)c[mh][i][1] * qwl[mh]);
#endif
                            d0 += __shfl_xor_sync(0xffffffffu, d0, 4);
                            d1 += __shfl_xor_sync(0xffffffffu, d1, 4);
                            const float v0 = k0s * d0 + k0z * qsmh[mh][g];
                            const float v1 = k1s * d1 + k1z * qsmh[mh][g];
                            s[mh][ng + i][0] = g ? s[mh][ng + i][0] + v0 : v0; // no 0 + x adds (signed zeros keep them)
                            s[mh][ng + i][1] = g ? s[mh][ng + i][1] + v1 : v1;
                        }
#endif
                    }
                }
            }
            const oscar_u32 *vsc = (const oscar_u32 *)(st + W_I2_VS);
#pragma unroll
            for (int mh = 0; mh < W_MO; mh++) W_SOFTMAX(W_NTT, s[mh], mh)
#if WPVK
            // B: the weights p * scale of head 4 mh + hl as 23-bit fixed point: n-tile 0 column lg = digit
            // part (0, 1), n-tile 1 column lg = digit 2 (part 0; part 1 columns are zero);
            // k = 4 lt + b <-> token (4 ks + (b >> 1)) * 8 + 2 lt + (b & 1) (b0; A a0 / a1), k = 16 + 4 lt + b
            // <-> token (4 ks + 2 + (b >> 1)) * 8 + 2 lt + (b & 1) (b1; a2 / a3): the lane's own scores
            oscar_u32 Bd[W_MH][NGR][TH / 16], Bh[W_MH][NGR][TH / 16];
            float winv[W_MH][NGR]; // 1 / fixed-point scale of head 4 mh + lt (this lane's O columns)
            const oscar_u32 dsel = (oscar_u32)part | ((4u + (oscar_u32)part) << 4); // this lane's digit of two weights
#pragma unroll
            for (int g = 0; g < NGR; g++) {
                float sv[W_NTT][2];
#pragma unroll
                for (int nt = 0; nt < W_NTT; nt++)
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        const oscar_u32 v = vsc[(nt * 8 + 2 * lt + e) * NGR + g];
                        const float z = oscar_f16_to_f32((oscar_u16)(v >> 16));
                        sv[nt][e] = oscar_f16_to_f32((oscar_u16)(v & 0xffffu));
#pragma unroll
                        for (int mh = 0; mh < W_MH; mh++) pm[mh][g] += s[mh][nt][e] * z;
                    }
#pragma unroll
                for (int mh = 0; mh < W_MH; mh++) {
                    float wm = 0.0f;
#pragma unroll
                    for (int nt = 0; nt < W_NTT; nt++) wm = fmaxf(wm, fmaxf(s[mh][nt][0] * sv[nt][0], s[mh][nt][1] * sv[nt][1]));
                    wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, 1));
                    wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, 2));
                    // wm < 2^(eb - 126): weights x (2^23 - 1) * 2^(126 - eb) round to at most 2^23 - 1
                    const int eb = max(__float_as_int(wm) >> 23, 30);
                    const float sc = 8388607.0f * __int_as_float((253 - eb) << 23);
                    winv[mh][g] = __shfl_sync(0xffffffffu, __int_as_float((eb + 1) << 23) * (1.0f / 8388607.0f), 8 * lt);
                    oscar_u32 uw[W_NTT][2];
#pragma unroll
                    for (int nt = 0; nt < W_NTT; nt++)
#pragma unroll
                        for (int e = 0; e < 2; e++) uw[nt][e] = __float_as_uint(fmaf(s[mh][nt][e] * sv[nt][e], sc, 8388608.0f)); // integer in the 23 mantissa bits
#pragma unroll
                    for (int r = 0; r < TH / 16; r++) {
                        Bd[mh][g][r] = __byte_perm(__byte_perm(uw[2 * r][0], uw[2 * r][1], dsel), __byte_perm(uw[2 * r + 1][0], uw[2 * r + 1][1], dsel), 0x5410u);
                        const oscar_u32 b2 = __byte_perm(__byte_perm(uw[2 * r][0], uw[2 * r][1], 0x62u), __byte_perm(uw[2 * r + 1][0], uw[2 * r + 1][1], 0x62u), 0x5410u);
                        Bh[mh][g][r] = part ? 0u : b2;
                    }
                }
            }
            // A = V codes: T[ks][e][h] = byte column WBPL lg + e of the four tokens of half h of k-step ks
            oscar_u32 T[TH / 32][WBPL][2];
#pragma unroll
            for (int ks = 0; ks < TH / 32; ks++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    oscar_u32 w[4];
#if WBPL == 8
                    oscar_u32 wh[4]; // bytes 4-7 of the lane's columns
#endif
#pragma unroll
                    for (int b = 0; b < 4; b++) {
                        // token t = 8 m + 2 lt + (b & 1), m = 4 ks + 2 h + (b >> 1), padded row t + t / 4 =
                        // 10 m + (b & 1) + 2 lt + lt / 2: a lane base plus a constant (no address arithmetic per load)
                        const oscar_u8 *src = st + w_vl + ((b & 1) + 10 * (4 * ks + 2 * h + (b >> 1))) * WRB;
#if WBPL == 8
                        const uint2 x = *(const uint2 *)src;
                        w[b] = x.x;
                        wh[b] = x.y;
#else
                        w[b] = WBPL == 4 ? *(const oscar_u32 *)src : (oscar_u32)*(const oscar_u16 *)src;
#endif
                    }
#if WBPL == 8
#pragma unroll
                    for (int q = 0; q < 2; q++) {
                        const oscar_u32 *y = q ? wh : w;
                        const oscar_u32 x01l = __byte_perm(y[0], y[1], 0x5140u), x01h = __byte_perm(y[0], y[1], 0x7362u);
                        const oscar_u32 x23l = __byte_perm(y[2], y[3], 0x5140u), x23h = __byte_perm(y[2], y[3], 0x7362u);
                        T[ks][4 * q][h] = __byte_perm(x01l, x23l, 0x5410u);
                        T[ks][4 * q + 1][h] = __byte_perm(x01l, x23l, 0x7632u);
                        T[ks][4 * q + 2][h] = __byte_perm(x01h, x23h, 0x5410u);
                        T[ks][4 * q + 3][h] = __byte_perm(x01h, x23h, 0x7632u);
                    }
#elif WBPL == 4
                    const oscar_u32 x01l = __byte_perm(w[0], w[1], 0x5140u), x01h = __byte_perm(w[0], w[1], 0x7362u);
                    const oscar_u32 x23l = __byte_perm(w[2], w[3], 0x5140u), x23h = __byte_perm(w[2], w[3], 0x7362u);
                    T[ks][0][h] = __byte_perm(x01l, x23l, 0x5410u);
                    T[ks][1][h] = __byte_perm(x01l, x23l, 0x7632u);
                    T[ks][2][h] = __byte_perm(x01h, x23h, 0x5410u);
                    T[ks][3][h] = __byte_perm(x01h, x23h, 0x7632u);
#else
                    const oscar_u32 x01 = __byte_perm(w[0], w[1], 0x5410u), x23 = __byte_perm(w[2], w[3], 0x5410u);
                    T[ks][0][h] = __byte_perm(x01, x23, 0x6420u);
                    T[ks][1][h] = __byte_perm(x01, x23, 0x7531u);
#endif
                }
            // per channel tile: the unit's k-steps summed in int32 (digits 0 + 256 x digit 1 < 2^31: 255 x 257
            // x 192 x 64), then into O with the head's scale
#pragma unroll
            for (int qd = 0; qd < 4; qd++) {
                const oscar_u32 m = 0x03030303u << (2 * qd); // code x 4^qd in place
#pragma unroll
                for (int mt = 0; mt < W_NMT; mt++) {
                    int c[W_MH][4], ch[W_MH][4];
#pragma unroll
                    for (int mh = 0; mh < W_MH; mh++) c[mh][0] = c[mh][1] = c[mh][2] = c[mh][3] = ch[mh][0] = ch[mh][1] = ch[mh][2] = ch[mh][3] = 0;
#pragma unroll
                    for (int ks = 0; ks < TH / 32; ks++) {
                        const oscar_u32 a0 = T[ks][mt][0] & m, a1 = T[ks][W_NMT + mt][0] & m, a2 = T[ks][mt][1] & m, a3 = T[ks][W_NMT + mt][1] & m;
#pragma unroll
                        for (int mh = 0; mh < W_MH; mh++) {
                            oscar_imma_u8(c[mh], a0, a1, a2, a3, Bd[mh][qd / W_QPG][2 * ks], Bd[mh][qd / W_QPG][2 * ks + 1]);
                            oscar_imma_u8(ch[mh], a0, a1, a2, a3, Bh[mh][qd / W_QPG][2 * ks], Bh[mh][qd / W_QPG][2 * ks + 1]);
                        }
                    }
#pragma unroll
                    for (int mh = 0; mh < W_MH; mh++) {
                        const float iv = winv[mh][qd / W_QPG];
                        const float r0 = fmaf((float)ch[mh][0], 65536.0f, (float)(c[mh][0] + (c[mh][1] << 8)));
                        const float r8 = fmaf((float)ch[mh][2], 65536.0f, (float)(c[mh][2] + (c[mh][3] << 8)));
                        O[mh][qd * W_NMT + mt][0] = fmaf(r0, iv, O[mh][qd * W_NMT + mt][0]);
                        O[mh][qd * W_NMT + mt][2] = fmaf(r8, iv, O[mh][qd * W_NMT + mt][2]);
                    }
                }
            }
#else
#pragma unroll
            for (int kk = 0; kk < TH / 16; kk++) {
                const int t0 = 16 * kk + 2 * lt;
                oscar_u32 W[4];
#pragma unroll
                for (int r = 0; r < 4; r++) {
                    const oscar_u8 *src = st + w_vl + ((r & 1) + 10 * (2 * kk + (r >> 1))) * WRB; // token t0 + (r & 1) + 8 (r >> 1)
                    W[r] = WBPL == 4 ? *(const oscar_u32 *)src : (oscar_u32)*(const oscar_u16 *)src;
                }
                // byte column WBPL lg + e of tokens t0, t0 + 1 (xa) and t0 + 8, t0 + 9 (xb), one per half
                oscar_u32 xa[WBPL], xb[WBPL];
#pragma unroll
                for (int e = 0; e < WBPL; e++) {
                    const oscar_u32 sel = 0x4400u + 0x1111u * (oscar_u32)e;
                    xa[e] = __byte_perm(W[0], W[1], sel);
                    xb[e] = __byte_perm(W[2], W[3], sel);
                }
                // B: weights p * scale of head 4 mh + hl, this lane's half (hi / lo); WHL: of head lg,
                // hi in B0 / B1 and lo in L0 / L1 (two MMAs into one accumulator)
                oscar_u32 B0[W_MO][NGR], B1[W_MO][NGR];
#if WHL
                oscar_u32 L0[NGR], L1[NGR];
#endif
#pragma unroll
                for (int g = 0; g < NGR; g++) {
                    const oscar_u32 v0 = vsc[t0 * NGR + g], v1 = vsc[(t0 + 1) * NGR + g], v8 = vsc[(t0 + 8) * NGR + g], v9 = vsc[(t0 + 9) * NGR + g];
                    const float s0 = oscar_f16_to_f32((oscar_u16)(v0 & 0xffffu)), s1 = oscar_f16_to_f32((oscar_u16)(v1 & 0xffffu));
                    const float s8 = oscar_f16_to_f32((oscar_u16)(v8 & 0xffffu)), s9 = oscar_f16_to_f32((oscar_u16)(v9 & 0xffffu));
                    const float z0 = oscar_f16_to_f32((oscar_u16)(v0 >> 16)), z1 = oscar_f16_to_f32((oscar_u16)(v1 >> 16));
                    const float z8 = oscar_f16_to_f32((oscar_u16)(v8 >> 16)), z9 = oscar_f16_to_f32((oscar_u16)(v9 >> 16));
#if WHL
                    {
                        const float p0 = s[0][2 * kk][0], p1 = s[0][2 * kk][1], p8 = s[0][2 * kk + 1][0], p9 = s[0][2 * kk + 1][1];
                        pm[0][g] += p0 * z0 + p1 * z1 + p8 * z8 + p9 * z9;
                        oscar_h2_split(p0 * s0, p1 * s1, &B0[0][g], &L0[g]);
                        oscar_h2_split(p8 * s8, p9 * s9, &B1[0][g], &L1[g]);
                    }
#else
#pragma unroll
                    for (int mh = 0; mh < W_MH; mh++) {
                        const float p0 = s[mh][2 * kk][0], p1 = s[mh][2 * kk][1], p8 = s[mh][2 * kk + 1][0], p9 = s[mh][2 * kk + 1][1];
                        pm[mh][g] += p0 * z0 + p1 * z1 + p8 * z8 + p9 * z9;
                        B0[mh][g] = oscar_h2_part(p0 * s0, p1 * s1, part);
                        B1[mh][g] = oscar_h2_part(p8 * s8, p9 * s9, part);
                    }
#endif
                }
#pragma unroll
                for (int qd = 0; qd < 4; qd++)
#pragma unroll
                    for (int mt = 0; mt < W_NMT; mt++) {
                        uint4 A;
                        A.x = oscar_w_codes(xa[mt], qd);
                        A.y = oscar_w_codes(xa[W_NMT + mt], qd);
                        A.z = oscar_w_codes(xb[mt], qd);
                        A.w = oscar_w_codes(xb[W_NMT + mt], qd);
#if WHL
                        oscar_mma_f16(O[0][qd * W_NMT + mt], A, B0[0][qd / W_QPG], B1[0][qd / W_QPG]);
                        oscar_mma_f16(O[0][qd * W_NMT + mt], A, L0[qd / W_QPG], L1[qd / W_QPG]);
#else
#pragma unroll
                        for (int mh = 0; mh < W_MH; mh++) oscar_mma_f16(O[mh][qd * W_NMT + mt], A, B0[mh][qd / W_QPG], B1[mh][qd / W_QPG]);
#endif
                    }
            }
#endif
        } else
#endif
        {
            // BF16 unit: 8 rows (zero rows past the end)
            int nr;
            if (u < tsu) nr = ns - u * WUB;
            else if (u >= tsu + thu) nr = nw - (u - tsu - thu) * WUB;
            else nr = W_HU;
            float c[W_MO][4];
#pragma unroll
            for (int mh = 0; mh < W_MO; mh++) c[mh][0] = c[mh][1] = c[mh][2] = c[mh][3] = 0.0f;
#pragma unroll
            for (int ks = 0; ks < D / 16; ks++) {
                const uint2 kw = *(const uint2 *)(st + lg * WBK + (16 * ks + 4 * lt) * 2);
#pragma unroll
                for (int mh = 0; mh < W_MO; mh++) {
                    const uint4 a = qfb[(mh * (D / 16) + ks) * 32 + lane];
                    oscar_mma_bf16(c[mh], a.x, a.y, a.z, a.w, kw.x, kw.y);
                }
            }
            oscar_u32 bp[W_MO];
#if WHL
            oscar_u32 bpl; // the lo half of head lg's weights (bp: hi)
#endif
#pragma unroll
            for (int mh = 0; mh < W_MO; mh++) {
                float s[1][2];
                s[0][0] = 2 * lt < nr ? (c[mh][0] + c[mh][2]) * p.scale_log2 : OSCAR_NEG_INF;
                s[0][1] = 2 * lt + 1 < nr ? (c[mh][1] + c[mh][3]) * p.scale_log2 : OSCAR_NEG_INF;
                W_SOFTMAX(1, s, mh)
#if WHL
                oscar_b2_split(s[0][0], s[0][1], &bp[mh], &bpl);
#else
                bp[mh] = oscar_b2_part(s[0][0], s[0][1], part);
#endif
            }
            // A = V^T: rows = channels (as the INT2 O layout), k = tokens 2 lt, 2 lt + 1 (rows 8-15 empty)
            const oscar_u8 *vb = st + WUB * WBK;
#pragma unroll
            for (int qd = 0; qd < 4; qd++) {
                oscar_u32 w0[WBPL / 2 > 2 ? WBPL / 2 : 2], w1[WBPL / 2 > 2 ? WBPL / 2 : 2];
#if WBPL == 8
                {
                    const uint4 x0 = *(const uint4 *)(vb + (2 * lt) * WBV + (qd * (D / 4) + 8 * lg) * 2);
                    const uint4 x1 = *(const uint4 *)(vb + (2 * lt + 1) * WBV + (qd * (D / 4) + 8 * lg) * 2);
                    w0[0] = x0.x;
                    w0[1] = x0.y;
                    w0[2] = x0.z;
                    w0[3] = x0.w;
                    w1[0] = x1.x;
                    w1[1] = x1.y;
                    w1[2] = x1.z;
                    w1[3] = x1.w;
                }
#elif WBPL == 4
                {
                    const uint2 x0 = *(const uint2 *)(vb + (2 * lt) * WBV + (qd * (D / 4) + 4 * lg) * 2);
                    const uint2 x1 = *(const uint2 *)(vb + (2 * lt + 1) * WBV + (qd * (D / 4) + 4 * lg) * 2);
                    w0[0] = x0.x;
                    w0[1] = x0.y;
                    w1[0] = x1.x;
                    w1[1] = x1.y;
                }
#else
                w0[0] = *(const oscar_u32 *)(vb + (2 * lt) * WBV + (qd * (D / 4) + 2 * lg) * 2);
                w1[0] = *(const oscar_u32 *)(vb + (2 * lt + 1) * WBV + (qd * (D / 4) + 2 * lg) * 2);
                w0[1] = w1[1] = 0;
#endif
                const float f = qd == 0 ? 1.0f : qd == 1 ? 4.0f : qd == 2 ? 16.0f : 64.0f;
#pragma unroll
                for (int mt = 0; mt < W_NMT; mt++) {
                    const int e0 = mt, e1 = W_NMT + mt;
                    const oscar_u32 a0 = __byte_perm(w0[e0 >> 1], w1[e0 >> 1], (e0 & 1) ? 0x7632u : 0x5410u);
                    const oscar_u32 a1 = __byte_perm(w0[e1 >> 1], w1[e1 >> 1], (e1 & 1) ? 0x7632u : 0x5410u);
#pragma unroll
                    for (int mh = 0; mh < W_MO; mh++) {
                        float ct[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                        oscar_mma_bf16(ct, a0, a1, 0u, 0u, bp[mh], 0u);
#if WHL
                        oscar_mma_bf16(ct, a0, a1, 0u, 0u, bpl, 0u);
#endif
                        O[mh][qd * W_NMT + mt][0] += ct[0] * f;
                        O[mh][qd * W_NMT + mt][1] += ct[1] * f;
                        O[mh][qd * W_NMT + mt][2] += ct[2] * f;
                        O[mh][qd * W_NMT + mt][3] += ct[3] * f;
                    }
                }
            }
        }
        __syncwarp();
    }
    oscar_cp_wait0();
#ifdef OSCAR_WPROF
    if (wpr && lane == 0) {
        const int e = ub < tsu ? ub : tsu, f = ua > tsu + thu ? ua : tsu + thu;
        const int nbf = (e > ua ? e - ua : 0) + (ub > f ? ub - f : 0);
        wpr[4 + warp] = (unsigned long long)(clock64() - wpc0);
        wpr[8 + warp] = (unsigned long long)(ub - ua) | (unsigned long long)nbf << 16;
    }
#endif

    // ---- merge the warps of the block, write this split's partial result ----
#pragma unroll
    for (int mh = 0; mh < W_MO; mh++) {
        lrun[mh] += __shfl_xor_sync(0xffffffffu, lrun[mh], 1);
        lrun[mh] += __shfl_xor_sync(0xffffffffu, lrun[mh], 2);
#if OSCAR_INT2
#pragma unroll
        for (int g = 0; g < NGR; g++) {
            pm[mh][g] += __shfl_xor_sync(0xffffffffu, pm[mh][g], 1);
            pm[mh][g] += __shfl_xor_sync(0xffffffffu, pm[mh][g], 2);
        }
#endif
    }
    __syncthreads(); // every warp is done with its stages: the merge buffer overlays them
    float *wo = (float *)smem;                  // [WNW][G][D]
    float *wml = wo + WNW * G * D;              // [WNW][G][2]
    // channel tile jo of head ho (two values: columns ch and ch + W_NMT) into wo, scaled by its
    // quarter's digit weight, plus the head's INT2 group term of that quarter
    auto put_o = [&](int ho, int jo, float v0, float v1, const float *add) {
        const int qd = jo / W_NMT, mt = jo % W_NMT, ch = qd * (D / 4) + WBPL * lg + mt;
        const float f = qd == 0 ? 1.0f : qd == 1 ? 0.25f : qd == 2 ? 0.0625f : 0.015625f;
#if OSCAR_INT2
        const float a = add[qd / W_QPG];
#else
        const float a = 0.0f;
        (void)add;
#endif
        wo[(warp * G + ho) * D + ch] = v0 * f + a;
        wo[(warp * G + ho) * D + ch + W_NMT] = v1 * f + a;
    };
    float add[OSCAR_INT2 ? NGR : 1] = {0.0f};
#if WHL
    { // O columns 2 lt + e: head 2 lt + e, whose sums lane 4 (2 lt + e) holds
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int ho = 2 * lt + e;
#if OSCAR_INT2
#pragma unroll
            for (int g = 0; g < NGR; g++) add[g] = __shfl_sync(0xffffffffu, pm[0][g], 4 * ho);
#endif
            if (ho < G)
#pragma unroll
                for (int jo = 0; jo < W_NO; jo++) put_o(ho, jo, O[0][jo][e], O[0][jo][2 + e], add);
        }
        if (lg < G && lt == 0) {
            wml[(warp * G + lg) * 2] = mrun[0];
            wml[(warp * G + lg) * 2 + 1] = lrun[0];
        }
    }
#else
#pragma unroll
    for (int mh = 0; mh < W_MH; mh++) {
        const int ho = 4 * mh + lt; // head of this lane's O columns
#if OSCAR_INT2
#pragma unroll
        for (int g = 0; g < NGR; g++) add[g] = __shfl_sync(0xffffffffu, pm[mh][g], 8 * lt);
#endif
        if (ho < G)
#pragma unroll
            for (int jo = 0; jo < W_NO; jo++) put_o(ho, jo, O[mh][jo][0] + O[mh][jo][1], O[mh][jo][2] + O[mh][jo][3], add);
        if (4 * mh + hl < G && lt == 0 && part == 0) {
            wml[(warp * G + 4 * mh + hl) * 2] = mrun[mh];
            wml[(warp * G + 4 * mh + hl) * 2 + 1] = lrun[mh];
        }
    }
#endif
    __syncthreads();
#ifdef OSCAR_WPROF
    if (wpr && tid == 0) wpr[15] = (unsigned long long)(clock64() - wpc0);
#endif
    float *wf = wml + WNW * G * 2; // [G][WNW] (WIG > 1)
    float *cml = wf + G * WNW;     // CM: [G][2] this split's (M, L)
    float *co = cml + 2 * G;       // CM: [G][D] this split's o
    static_assert(!CM || (WNW * G * D + WNW * G * 2 + G * WNW + 2 * G + G * D) * 4 <= W_SMEM, "the cluster merge's buffers exceed the decode's shared memory");
    if (WIG > 1) {
        // per head (one thread each): the max over the warps that saw tokens, each warp's weight (0 for a warp without
        // tokens) and the block's sum; a barrier; then every thread combines its outputs. (The WIG > 1 kernels keep this
        // form: with v63's, oscar_decode_w_il spilled 12 bytes and reloaded them in its unit loop, against 8 reloaded
        // after it)
        if (tid < G) {
            const int h = tid;
            float M, f[WNW];
            const float L = oscar_warp_weights<WNW, G, true>(wml, h, M, f, wf + h * WNW);
            if (CM) {
                cml[2 * h] = M;
                cml[2 * h + 1] = L;
            } else {
                const size_t row = ((size_t)b * Hq + j * G + h) * p.n_splits + split;
                ((float *)p.part_ml)[row * 2] = M;
                ((float *)p.part_ml)[row * 2 + 1] = L;
            }
        }
        __syncthreads();
        W_PH(3);
        for (int i = tid; i < G * D; i += 32 * WNW) {
            const int h = i / D;
            float o = 0.0f;
#pragma unroll
            for (int w = 0; w < WNW; w++) {
                const float f = wf[h * WNW + w];
                if (f != 0.0f) o += f * wo[(w * G + h) * D + (i % D)];
            }
            if (CM) co[i] = o;
            else ((float *)p.part_o)[(((size_t)b * Hq + j * G + h) * p.n_splits + split) * D + (i % D)] = o;
        }
    } else {
        // a head per warp (WPH warps per head where G < WNW, at most d / 32): every lane takes the max over the warps
        // that saw tokens, each warp's weight (0 for a warp without tokens) and the block's sum itself from wml (the
        // same operations in the same order as one thread per head, so the same values, and no barrier after them); then
        // the head's elements lane + 32 (warp % WPH + WPH r). The thread and block indices are read again here: taken
        // from the prologue's registers, they cost oscar_decode_w a spill in its unit loop (kernels/NOTES.md v63)
        constexpr int WPH = G >= WNW ? 1 : WNW / G < D / 32 ? WNW / G : D / 32;
        unsigned et;
        asm volatile("mov.u32 %0, %%tid.x;" : "=r"(et));
        const int ew = (int)(et >> 5), el = (int)(et & 31);
        for (int h = ew / WPH; h < G && ew < WPH * G; h += WNW / WPH) {
            float M, f[WNW];
            const float L = oscar_warp_weights<WNW, G, false>(wml, h, M, f, 0);
            unsigned ex, ey, ez;
            asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(ex));
            asm volatile("mov.u32 %0, %%ctaid.y;" : "=r"(ey));
            asm volatile("mov.u32 %0, %%ctaid.z;" : "=r"(ez));
            const size_t row = ((size_t)ez * Hq + ey * G + h) * p.n_splits + ex;
            float *po = CM ? co + h * D : (float *)p.part_o + row * D;
#pragma unroll
            for (int r = 0; r < D / (32 * WPH); r++) {
                const int e = el + 32 * (ew % WPH + WPH * r);
                float o = 0.0f;
#pragma unroll
                for (int w = 0; w < WNW; w++)
                    if (f[w] != 0.0f) o += f[w] * wo[(w * G + h) * D + e];
                po[e] = o;
            }
            if (el == 0 && ew % WPH == 0) {
                float *pml = CM ? cml + 2 * h : (float *)p.part_ml + row * 2;
                pml[0] = M;
                pml[1] = L;
            }
        }
        W_PH(3);
    }
    if (CM) {
        // the cluster's blocks are this (sequence, group)'s splits, block rank = split (cluster (S, 1, 1)): warp w of
        // block r merges heads r + S (w + WNW k) as oscar_merge does (weights exp2(m - M) of the splits that saw tokens,
        // 0 for the others; o / L; o . H where every rotation is H; the V mean added back), each lane the elements
        // lane + 32 t, reading the other blocks' (M, L) and o from their shared memory. A thread arrives at the second
        // cluster barrier once its reads are done and waits for it before the block exits, so that every block's
        // shared memory stays in place until the last read of it; no block barrier after the first cluster barrier
        oscar_pdl_launch();
        oscar_cluster_sync();
        const int S = p.n_splits;
        const float *vmo = p.vmo ? (const float *)p.vmo + ((size_t)p.layer * p.Hkv + jk) * D : (const float *)0;
        bool arrived = false; // warp-uniform
        for (int h = split + S * warp; h < G; h += S * WNW) {
            float *yo = (float *)p.y + ((size_t)b * Hq + j * G + h) * D;
            const float m = lane < S ? oscar_ld_cluster(cml + 2 * h, lane) : 0.0f, l = lane < S ? oscar_ld_cluster(cml + 2 * h + 1, lane) : 0.0f;
            float w, w1;
            const float L = oscar_split_weights(m, l, 0.0f, 0.0f, w, w1); // clusters hold at most 16 splits
            float x[D / 32];
#pragma unroll
            for (int t = 0; t < D / 32; t++) x[t] = 0.0f;
            for (int sp = 0; sp < S; sp++) {
                const float ws = __shfl_sync(0xffffffffu, w, sp);
                if (ws > 0.0f)
#pragma unroll
                    for (int t = 0; t < D / 32; t++) x[t] += ws * oscar_ld_cluster(co + h * D + lane + 32 * t, sp);
            }
            if (h + S * WNW >= G) { // this warp's last head: its reads of the other blocks are done
                oscar_cluster_arrive();
                arrived = true;
            }
#pragma unroll
            for (int t = 0; t < D / 32; t++) x[t] = L > 0.0f ? x[t] / L : 0.0f;
            if (p.vwht) oscar_wht_row<D>(x, lane);
#pragma unroll
            for (int t = 0; t < D / 32; t++) yo[lane + 32 * t] = vmo ? x[t] + vmo[lane + 32 * t] : x[t];
        }
        if (!arrived) oscar_cluster_arrive();
        oscar_cluster_wait();
    }
    if (p.counts) { // this split's partial is written: count it for the merge of (b, j), which polls the count
        __syncthreads(); // every thread's writes, then one release add (cumulative over the barrier)
        if (tid == 0) asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"((int *)p.counts + (size_t)b * p.Hkv * OSCAR_HSPLIT + j) : "memory");
    }
#ifdef OSCAR_WPROF
    if (wpr && tid == 0) {
        wpr[3] = (unsigned long long)(clock64() - wpc0);
        wpr[12] = oscar_gtime();
    }
#endif
}
#undef W_PH
extern "C" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_w(const oscar_attn_params p) { oscar_decode_w_body<W_WIG, 0>(p); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// the same with the merge inside: launched as clusters of n_splits blocks (v55)
extern "C" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_wc(const oscar_attn_params p) { oscar_decode_w_body<W_WIG, 1>(p); }
#define OSCAR_W_CM 1
#endif
#if OSCAR_INT2 && W_WIG == 1 && D == 128 && G == 4
// the same with the block's units taken in turn by its warps (v51: 0.5-2% faster at batch 8-32, 3% slower at
// 1 x 128K; measured at d 128 G 4, built there only), which the host launches where the batch holds >= 64
// KV heads (oscar_cuda_kv.wig)
extern "C" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_w_il(const oscar_attn_params p) { oscar_decode_w_body<WNW, 0>(p); }
#if OSCAR_W_CM
extern "C" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_w_ilc(const oscar_attn_params p) { oscar_decode_w_body<WNW, 1>(p); }
#endif
#define OSCAR_W_IL 1
#endif
#else
extern "C" __global__ void oscar_decode_w(const oscar_attn_params p) { (void)p; }
#endif
#ifndef OSCAR_W_IL
#define OSCAR_W_IL 0
#endif
// 1: this module has oscar_decode_w_il (the host asks this, not cuModuleGetFunction for a kernel that may be absent)
extern "C" __device__ int oscar_decode_w_il_on = OSCAR_W_IL;
#ifndef OSCAR_W_CM
#define OSCAR_W_CM 0
#endif
// 1: this module has oscar_decode_wc (and oscar_decode_w_ilc where it has oscar_decode_w_il)
extern "C" __device__ int oscar_decode_wc_on = OSCAR_W_CM;

// The two small launches read a D x D fp32 rotation each (64 KB at D 128). A loop of dependent
// loads cost one memory round trip per few rows (measured 12.7 us for oscar_rotate_q and 17.7 us
// for oscar_merge at batch 1, issue 5), so blocks are D x NSL threads (NSL = blockDim.x / D
// slices, 512 threads in all for the merges; oscar_rotate_q and oscar_rotate_q1: RSL and OSCAR_RQT1
// threads over D / OSCAR_RNC and D / OSCAR_RNC1 columns): thread (c, sl) loads its slice's D / NSL
// rows of column c up front (all in flight: one round trip), and the slices add up in shared memory.
#define RSL 512                       // threads per block of the merges
#define RMAX (RSL / D < 1 ? 1 : RSL / D) // slices
#define RPS (D / RMAX)                // rows per slice
#define RCH (RPS < 64 ? RPS : 64)      // rows in registers at a time (D 256: two round trips)

// acc[h] = thread (c, sl)'s slice of x[h] . R[:, c] (rows i0 .. i0 + rps - 1) for NH vectors x in
// shared memory; r holds the slice's first NR rows of column c (loaded before the caller waited)
template <int NH, int NR>
static __device__ __forceinline__ void oscar_rot_slice(float (&acc)[NH], float (&r)[NR], const float *R, const float *x, int c, int i0, int rps) {
#pragma unroll
    for (int hh = 0; hh < NH; hh++) acc[hh] = 0.0f;
    for (int k0 = 0; k0 < rps; k0 += NR) {
        if (k0 > 0) {
#pragma unroll
            for (int k = 0; k < NR; k++) r[k] = k0 + k < rps ? R[(size_t)(i0 + k0 + k) * D + c] : 0.0f;
        }
#pragma unroll
        for (int k = 0; k < NR; k++)
            if (k0 + k < rps) {
#pragma unroll
                for (int hh = 0; hh < NH; hh++) acc[hh] += x[hh * D + i0 + k0 + k] * r[k];
            }
    }
}
// the slices' partials of NH vectors of w columns into red [NH][nsl][w], then a barrier; the
// caller reads each total (slices in order) with oscar_slice_total (and must barrier before red is
// written again)
template <int NH>
static __device__ __forceinline__ void oscar_slices_put(float *red, const float (&v)[NH], int c, int sl, int nsl, int w) {
#pragma unroll
    for (int hh = 0; hh < NH; hh++) red[(hh * nsl + sl) * w + c] = v[hh];
    __syncthreads();
}
static __device__ __forceinline__ float oscar_slice_total(const float *red, int hh, int c, int nsl, int w) {
    float t = 0.0f;
    for (int k = 0; k < nsl; k++) t += red[(hh * nsl + k) * w + c];
    return t;
}

// q_rot = q . R_k (per layer; per KV head when rot_heads > 1). grid (Hq / RHB x RQ_C, B), RQ_T
// threads: a block rotates RHB query heads of one KV head (they share the rotation) into one of RQ_C
// chunks of D / RQ_C output columns, so the D x D rotation is read once per RHB heads, spread over
// RQ_C blocks (SMs): at batch 1 the rotation's pull from memory by 8 blocks (64 KB each at D 128) was
// most of this kernel's 2.8 us after its wait (kernels/NOTES.md v30). Thread (column cl, slice sl)
// keeps its slice's D / (RQ_T RQ_C / D) rows of its column in registers and applies them to all RHB heads
// (RHB = the largest divisor of G up to 8, a compile-time count: no predication); the slices add up
// in shared memory in slice order. Two launch shapes: oscar_rotate_q, 512 threads x OSCAR_RNC chunks,
// and for one sequence oscar_rotate_q1, 256 threads x OSCAR_RNC1 chunks: its decode grid is placed
// while the rotation runs, and on the H100 an SM holding a 512-thread block of more than ~32
// registers took one 128-register decode block beside it instead of two (tools/ubench_coresident.cu;
// kernels/NOTES.md v43). At batch 8-32 the 512-thread shape measured 0.3-0.7 % faster.
static __host__ __device__ constexpr int oscar_rhb(int g, int k) { return k <= 1 ? 1 : (g % k == 0 ? k : oscar_rhb(g, k - 1)); }
#define RHB oscar_rhb(G, 8)
#ifndef OSCAR_RNC
#define OSCAR_RNC 4
#endif
#ifndef OSCAR_RNC1
#define OSCAR_RNC1 8
#endif
#ifndef OSCAR_RQT1
#define OSCAR_RQT1 256
#endif
template <int RQ_T, int RQ_C>
static __device__ __forceinline__ void oscar_rotate_q_body(const oscar_rot_params &p) {
    constexpr int RQ_QC = D / RQ_C, RQ_QS = RQ_T / RQ_QC, RQ_QR = D / RQ_QS; // columns per block, slices, rows per slice
    static_assert(RQ_QC >= 1 && RQ_QR >= 1 && RQ_QS * RQ_QC == RQ_T && RQ_QS * RQ_QR == D && RQ_T % 32 == 0, "oscar_rotate_q: D / chunks must divide the threads and leave a row per slice");
    __shared__ float xs[RHB * D];
    __shared__ float red[RHB * RQ_T];
    const int tid = threadIdx.x, cs = blockIdx.x % RQ_C, h0 = (blockIdx.x / RQ_C) * RHB, b = blockIdx.y;
    const int cl = tid % RQ_QC, sl = tid / RQ_QC, c = cs * RQ_QC + cl, i0 = sl * RQ_QR;
    const size_t row0 = ((size_t)b * p.Hq + h0) * D;
    const float *R = (const float *)p.rot + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? h0 / p.gqa : 0)) * D * D;
    float r[RQ_QR];
    oscar_pdl_launch();
    OSCAR_TSTAMP(oscar_rprof, 1024, 0);
#pragma unroll
    for (int k = 0; k < RQ_QR; k++) r[k] = R[(size_t)(i0 + k) * D + c];
    oscar_pdl_wait();
    OSCAR_TSTAMP(oscar_rprof, 1024, 1);
    for (int i = tid; i < RHB * D; i += RQ_T) xs[i] = ((const float *)p.x)[row0 + i];
    __syncthreads();
    float acc[RHB];
    oscar_rot_slice<RHB>(acc, r, R, xs, c, i0, RQ_QR);
    oscar_slices_put<RHB>(red, acc, cl, sl, RQ_QS, RQ_QC);
    for (int i = tid; i < RHB * RQ_QC; i += RQ_T) ((float *)p.y)[row0 + (size_t)(i / RQ_QC) * D + cs * RQ_QC + i % RQ_QC] = oscar_slice_total(red, i / RQ_QC, i % RQ_QC, RQ_QS, RQ_QC);
    OSCAR_TSTAMP(oscar_rprof, 1024, 2);
}
// the host reads the launch shapes: query heads per block, then chunks and threads of each kernel
extern "C" __device__ int oscar_rotate_q_shape[5] = {RHB, OSCAR_RNC, RSL, OSCAR_RNC1, OSCAR_RQT1};
extern "C" __global__ void __launch_bounds__(RSL) oscar_rotate_q(const oscar_rot_params p) { oscar_rotate_q_body<RSL, OSCAR_RNC>(p); }
extern "C" __global__ void __launch_bounds__(OSCAR_RQT1) oscar_rotate_q1(const oscar_rot_params p) { oscar_rotate_q_body<OSCAR_RQT1, OSCAR_RNC1>(p); }

// merge the splits by log-sum-exp; out = o_rot . R_v^T unless rot == 0. grid (Hq / NH, B), D x NSL
// threads; a block merges NH query heads of one KV head. oscar_merge (NH 1) has the most blocks
// for small batches; oscar_merge_g (NH = RHB, as oscar_rotate_q) applies the rotation slice each
// thread holds to all RHB heads, so batch 32 runs 256 blocks instead of 1024 (one 512-thread
// block fits an SM at these kernels' registers). The host keeps RHB x splits <= 1024.
// VW 1 (oscar_merge_h: caches whose rotations are all H, rot 0, merge grids of one wave): R_v^T =
// H, out = o . H by the fast transform, a warp per head. A kernel of its own: the branch in the
// product kernels cost fitted rotations 0.2-0.7 us per batch-1 call; at more than one wave (batch
// 8-32) it measured slower than the product (kernels/NOTES.md v46)
#ifndef OSCAR_MHMW // oscar_merge_h's partial loads per head and thread in flight: at d 128, 256-thread blocks (merge_threads 0)
#define OSCAR_MHMW (D == 128 ? 24 : 16) // merge up to 48 splits in one round (kernels/NOTES.md v61; OSCAR__MERGE_H_MW in oscar_cuda.h)
#endif
#ifndef OSCAR_MHWARP // oscar_merge_h at batch 1: 1 (default) the splits shared out to warps, each transforming its sum; 0 the
#define OSCAR_MHWARP 1 // slices of v61 (kernels/NOTES.md v62)
#endif
#ifndef OSCAR_MTRIG // timing: the merges let the next kernel launch early, 1 at their start, 2 after their partial loads; 0
#define OSCAR_MTRIG 0 // (default): only at their end, so the next kernel's blocks are placed on an empty machine (run s33-8:
#endif              // 2 took 1 x 8K from 9.7 to 9.1-9.2 us in a graph but 1 x 32K from 14.8 to 17.0, 1 x 128K 34.1 to 42.2-42.5)
template <int NH, int VW>
static __device__ __forceinline__ void oscar_merge_body(const oscar_rot_params &p) {
    __shared__ float os[NH * D];
    __shared__ float red[NH * RMAX * D];
    __shared__ float wsp[1024], wls[1024]; // [NH][S]: m, then the weight exp2(m - M) (0 for empty splits); l
    __shared__ float hl[NH];             // per head: the sum L
    __shared__ float wsum[NH == 1 && OSCAR_MHWARP && D <= 128 ? RSL / 32 * D : 1]; // one head per block: [warp][D], each warp's sum
    const int h0 = blockIdx.x * NH, b = blockIdx.y, tid = threadIdx.x, c = tid % D, sl = tid / D, nsl = blockDim.x / D;
    const int rps = D / nsl, i0 = sl * rps, nt = blockDim.x, S = p.n_splits, warp = tid >> 5, lane = tid & 31;
    const size_t hb0 = (size_t)b * p.Hq + h0;
    const float *ml = (const float *)p.part_ml + hb0 * S * 2;
    const float *po = (const float *)p.part_o + hb0 * S * D;
    const float *RT = p.rot ? (const float *)p.rot + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? h0 / p.gqa : 0)) * D * D : (const float *)0;
    float r[RCH];
#ifdef OSCAR_WPROF
    const long long mc0 = clock64();
#endif
    OSCAR_TSTAMP(oscar_mprof, 4096, 0);
    if (OSCAR_MTRIG == 1) oscar_pdl_launch();
    if (RT) {
#pragma unroll
        for (int k = 0; k < RCH; k++) r[k] = k < rps ? RT[(size_t)(i0 + k) * D + c] : 0.0f;
    }
    if (p.counts) {
        // the n_splits partials of this KV head are written (oscar_decode_w counts each split with a
        // release add after its writes and a barrier): no wait for the rest of the decode grid. The
        // last merge block of the KV head to pass resets the count for the next call (whose decode
        // counts only after this grid has finished)
        if (tid == 0) {
            const int gv = p.gqa / p.hsplit; // query heads per counted group
            int *cnt = (int *)p.counts + (size_t)b * (p.Hq / gv) + h0 / gv;
            int v;
            for (;;) {
                asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(cnt) : "memory");
                if (v >= S) break;
                __nanosleep(64);
            }
            if (atomicAdd(cnt, 1) == S + gv / NH - 1) atomicExch(cnt, 0);
        }
        __syncthreads();
    } else {
        oscar_pdl_wait(); // the decode grid has finished
    }
    OSCAR_TSTAMP(oscar_mprof, 4096, 1);
    OSCAR_PHASE(oscar_mph, 4096, 0, mc0);
    if (NH == 1 && OSCAR_MHWARP && D <= 128 && (VW || !RT)) {
        // one head whose splits are shared out to the warps (warp w: splits w, w + nw, ...; lane: elements lane + 32 t,
        // the transform's layout). Each warp weights and sums its splits, transforms that sum where the merge un-rotates
        // by H (oscar_merge_h: o . H is linear) and leaves it in shared memory; one barrier, then a thread per element
        // adds the warps' rows and normalises. Where v61's slices had a barrier, a second pass through shared memory and
        // one warp transforming alone. Not at d 256, where every warp's transform (40 shuffles) costs more than it saves
        // (kernels/NOTES.md v62); oscar_merge takes it where there is no un-rotation (BF16 caches, INT2 caches without
        // rotations or with R_v absorbed; v64), not for fitted R_v (the product below needs whole rows per slice)
        constexpr int NC = D / 32, KW = (VW ? OSCAR_MHMW : 16) / NC; // elements per lane, splits per warp
        const int nw = nt >> 5;
        if (S <= 64 && S <= KW * nw) {
            const bool a0 = lane < S, a1 = lane + 32 < S;
            const float m0 = a0 ? __ldcg(ml + 2 * lane) : 0.0f, l0 = a0 ? __ldcg(ml + 2 * lane + 1) : 0.0f;
            const float m1 = a1 ? __ldcg(ml + 2 * (lane + 32)) : 0.0f, l1 = a1 ? __ldcg(ml + 2 * (lane + 32) + 1) : 0.0f;
            float v[KW][NC], o[NC], w0, w1;
            const float *pk = po + warp * D + lane;
#pragma unroll
            for (int k = 0; k < KW; k++, pk += nw * D) {
                const bool in = warp + k * nw < S;
#pragma unroll
                for (int t = 0; t < NC; t++) v[k][t] = in ? __ldcg(pk + 32 * t) : 0.0f;
            }
            // the V mean of this thread's element (cfg.center 1, as put below)
            const float vm = p.vmo && tid < D ? ((const float *)p.vmo)[((size_t)p.layer * (p.Hq / p.gqa) + h0 / p.gqa) * D + tid] : 0.0f;
#ifdef OSCAR_WPROF
            { // the loads' arrival, for the phase record only
                float chk = m0 + l0 + m1 + l1;
#pragma unroll
                for (int k = 0; k < KW; k++) chk += v[k][0];
                asm volatile("" ::"f"(chk));
            }
            OSCAR_PHASE(oscar_mph, 4096, 4, mc0);
#endif
            const float L = oscar_split_weights(m0, l0, m1, l1, w0, w1);
            OSCAR_PHASE(oscar_mph, 4096, 5, mc0);
#pragma unroll
            for (int t = 0; t < NC; t++) o[t] = 0.0f;
#pragma unroll
            for (int k = 0; k < KW; k++) {
                const int s = warp + k * nw; // the same in the whole warp
                const float w = __shfl_sync(0xffffffffu, s < 32 ? w0 : w1, s & 31);
                if (s < S && w > 0.0f)
#pragma unroll
                    for (int t = 0; t < NC; t++) o[t] += w * v[k][t];
            }
            if (OSCAR_MTRIG == 2) oscar_pdl_launch(); // every partial this thread reads is in its sums
            OSCAR_PHASE(oscar_mph, 4096, 1, mc0);
            if (VW) oscar_wht_row<D>(o, lane);
#pragma unroll
            for (int t = 0; t < NC; t++) wsum[warp * D + lane + 32 * t] = o[t];
            __syncthreads();
            OSCAR_PHASE(oscar_mph, 4096, 2, mc0);
            if (tid < D) { // blocks have at least D threads
                float y = 0.0f;
#pragma unroll
                for (int k = 0; k < RSL / 32; k++)
                    if (k < nw) y += wsum[k * D + tid];
                y = L > 0.0f ? y / L : 0.0f;
                ((float *)p.y)[hb0 * D + tid] = p.vmo ? y + vm : y;
            }
            OSCAR_TSTAMP(oscar_mprof, 4096, 2);
            OSCAR_PHASE(oscar_mph, 4096, 3, mc0);
            return;
        }
    }
    // the first MW splits of every head in flight before the weights need them (batch 1 with
    // up to MW x NSL splits: every partial in one round trip); an empty split's partial o is 0
    // (oscar_decode_w writes every split), a split of a sequence with non-finite values has weight > 0
#define MW (VW ? OSCAR_MHMW : 16 / NH > 2 ? 16 / NH : 2) // partial loads per head in flight per thread
    float v[NH][MW], o[NH];
    auto load = [&](int s0) { // splits s0, s0 + nsl, ... s0 + (MW - 1) nsl of every head
#pragma unroll
        for (int hh = 0; hh < NH; hh++)
#pragma unroll
            for (int k = 0; k < MW; k++) {
                const int s = s0 + k * nsl;
                v[hh][k] = s < S ? __ldcg(po + ((size_t)hh * S + s) * D + c) : 0.0f;
            }
    };
    load(sl);
#pragma unroll
    for (int hh = 0; hh < NH; hh++) o[hh] = 0.0f;
    if (NH == 1 && S <= 64 && S <= MW * nsl) {
        // one head whose partials are all in registers (batch 1): every warp takes the split weights
        // from ml itself (lane s: splits s and s + 32) and passes them by shuffles; no barrier, and
        // the same operations in the same order as the general path below
        const bool a0 = lane < S, a1 = lane + 32 < S;
        const float m0 = a0 ? __ldcg(ml + 2 * lane) : 0.0f, l0 = a0 ? __ldcg(ml + 2 * lane + 1) : 0.0f;
        const float m1 = a1 ? __ldcg(ml + 2 * (lane + 32)) : 0.0f, l1 = a1 ? __ldcg(ml + 2 * (lane + 32) + 1) : 0.0f;
        float w0, w1;
#ifdef OSCAR_WPROF
        { // the loads' arrival, for the phase record only
            float chk = m0 + l0 + m1 + l1;
#pragma unroll
            for (int k = 0; k < MW; k++) chk += v[0][k];
            asm volatile("" ::"f"(chk));
        }
        OSCAR_PHASE(oscar_mph, 4096, 4, mc0);
#endif
        const float L = oscar_split_weights(m0, l0, m1, l1, w0, w1);
        OSCAR_PHASE(oscar_mph, 4096, 5, mc0);
        if (tid == 0) hl[0] = L; // read after oscar_slices_put's barrier
#pragma unroll
        for (int k = 0; k < MW; k++) {
            const int s = sl + k * nsl; // the same in the whole warp
            const float w = __shfl_sync(0xffffffffu, s < 32 ? w0 : w1, s & 31);
            if (s < S && w > 0.0f) o[0] += w * v[0][k];
        }
    } else {
        for (int i = tid; i < NH * S; i += nt) {
            wsp[i] = __ldcg(ml + 2 * i);
            wls[i] = __ldcg(ml + 2 * i + 1);
        }
        __syncthreads();
        // per head (one warp each): the max over non-empty splits, each split's weight, the sum L
        for (int hh = warp; hh < NH; hh += nt / 32) {
            float M = OSCAR_NEG_INF;
            for (int s = lane; s < S; s += 32)
                if (wls[hh * S + s] > 0.0f) M = fmaxf(M, wsp[hh * S + s]);
#pragma unroll
            for (int x = 16; x > 0; x >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, x));
            float L = 0.0f;
            for (int s = lane; s < S; s += 32) {
                const float l = wls[hh * S + s], w = l > 0.0f ? exp2f(wsp[hh * S + s] - M) : 0.0f;
                wsp[hh * S + s] = w;
                L += w * l;
            }
#pragma unroll
            for (int x = 16; x > 0; x >>= 1) L += __shfl_xor_sync(0xffffffffu, L, x);
            if (lane == 0) hl[hh] = L;
        }
        __syncthreads();
        for (int s0 = sl; s0 < S; s0 += MW * nsl) {
            if (s0 != sl) load(s0); // the first round is already in registers
#pragma unroll
            for (int hh = 0; hh < NH; hh++)
#pragma unroll
                for (int k = 0; k < MW; k++) {
                    const int s = s0 + k * nsl;
                    const float w = s < S ? wsp[hh * S + s] : 0.0f;
                    if (w > 0.0f) o[hh] += w * v[hh][k];
                }
        }
    }
    if (OSCAR_MTRIG == 2) oscar_pdl_launch(); // every partial this thread reads is in its sums
    OSCAR_PHASE(oscar_mph, 4096, 1, mc0);
    // sum over the slices; normalise; un-rotate; the V mean back (cfg.center 1: the rows were stored
    // less it, the weights sum to 1; one fp32 add as the CPU cache)
    const float *vmo = p.vmo ? (const float *)p.vmo + ((size_t)p.layer * (p.Hq / p.gqa) + h0 / p.gqa) * D : (const float *)0;
    auto put = [&](int i, float y) { ((float *)p.y)[hb0 * D + i] = vmo ? y + vmo[(size_t)((h0 + i / D) / p.gqa - h0 / p.gqa) * D + i % D] : y; };
    oscar_slices_put<NH>(red, o, c, sl, nsl, D);
    for (int i = tid; i < NH * D; i += nt) {
        const float t = oscar_slice_total(red, i / D, i % D, nsl, D), L = hl[i / D];
        if (VW || RT) os[i] = L > 0.0f ? t / L : 0.0f;
        else put(i, L > 0.0f ? t / L : 0.0f);
    }
    OSCAR_PHASE(oscar_mph, 4096, 2, mc0);
    if (VW) {
        __syncthreads(); // os is complete
        for (int hh = warp; hh < NH; hh += nt / 32) {
            float x[D / 32];
#pragma unroll
            for (int t = 0; t < D / 32; t++) x[t] = os[hh * D + lane + 32 * t];
            oscar_wht_row<D>(x, lane);
#pragma unroll
            for (int t = 0; t < D / 32; t++) put(hh * D + lane + 32 * t, x[t]);
        }
    } else if (RT) {
        __syncthreads(); // os is complete and every read of red above is done
        float acc[NH];
        oscar_rot_slice<NH>(acc, r, RT, os, c, i0, rps);
        oscar_slices_put<NH>(red, acc, c, sl, nsl, D);
        for (int i = tid; i < NH * D; i += nt) put(i, oscar_slice_total(red, i / D, i % D, nsl, D));
    }
    OSCAR_TSTAMP(oscar_mprof, 4096, 2);
    OSCAR_PHASE(oscar_mph, 4096, 3, mc0);
}
#undef MW
extern "C" __global__ void __launch_bounds__(RSL) oscar_merge(const oscar_rot_params p) { oscar_merge_body<1, 0>(p); }
extern "C" __global__ void __launch_bounds__(RSL) oscar_merge_g(const oscar_rot_params p) { oscar_merge_body<oscar_rhb(G, 8), 0>(p); }
extern "C" __global__ void __launch_bounds__(RSL) oscar_merge_h(const oscar_rot_params p) { oscar_merge_body<1, 1>(p); }
