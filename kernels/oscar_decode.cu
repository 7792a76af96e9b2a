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

#ifndef OSCAR_D
#error "OSCAR_D must be defined"
#endif
#ifndef OSCAR_G
#define OSCAR_G 1
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
#if OSCAR_INT2
#define SMEM_FLOATS (G * D + G * SCAP + 3 * G + G * NGR)
#else
#define SMEM_FLOATS (G * D + G * SCAP + 3 * G)
#endif
extern "C" __device__ int oscar_decode_smem_bytes = 2 * STAGE + SMEM_FLOATS * 4;

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
    const int tid = threadIdx.x;
    const int split = blockIdx.x, j = blockIdx.y, b = blockIdx.z;
    const int Hq = p.Hkv * G;
    const int slot = p.seqinfo ? ((const int *)p.seqinfo)[2 * b] : p.inline_info[2 * b];
    const int n = p.seqinfo ? ((const int *)p.seqinfo)[2 * b + 1] : p.inline_info[2 * b + 1];
    const int ns = n < p.S0 ? n : p.S0;
    const int H = n >= p.S0 + p.W ? p.P * ((n - p.S0 - p.W) / p.P) : 0;
    const int nw = n - ns - H;
    const int ts = (ns + TB - 1) / TB, th = H / TH, tw = (nw + TB - 1) / TB;
    const int T = ts + th + tw;
    const int per = (T + p.n_splits - 1) / p.n_splits;
    const int t0 = split * per, t1 = (t0 + per < T) ? t0 + per : T;

    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + j;
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
            const oscar_u8 *base = (const oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + j) * (size_t)p.head_page_bytes;
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
#if OSCAR_INT2
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
                if (lane == 0) {
                    const float cr = exp2f(mold - mnew);
                    corr[h] = cr;
                    lrun[h] = lrun[h] * cr + l;
                    mrun[h] = mnew;
                }
            }
        }
        __syncthreads();

        // ---- values: thread (4-channel column in each quarter, head set, token group) ----
        if (vact) {
#pragma unroll
            for (int s = 0; s < HPT; s++) {
                const float cr = corr[vhs * HPT + s];
#pragma unroll
                for (int i = 0; i < 16; i++) acc[s][i] *= cr;
            }
#if OSCAR_INT2
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
    for (int i = tid; i < G * D; i += NT) {
        float s = 0.0f;
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

// q_rot = q . R_k (per layer; per KV head when rot_heads > 1). grid (Hq, B), D threads.
extern "C" __global__ void __launch_bounds__(D) oscar_rotate_q(const oscar_rot_params p) {
    __shared__ float xs[D];
    const int h = blockIdx.x, b = blockIdx.y, c = threadIdx.x;
    const size_t row = ((size_t)b * p.Hq + h) * D;
    xs[c] = ((const float *)p.x)[row + c];
    __syncthreads();
    const float *R = (const float *)p.rot + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? h / p.gqa : 0)) * D * D;
    float acc = 0.0f;
#pragma unroll 8
    for (int i = 0; i < D; i++) acc += xs[i] * R[(size_t)i * D + c];
    ((float *)p.y)[row + c] = acc;
}

// merge the splits by log-sum-exp; out = o_rot . R_v^T unless rot == 0. grid (Hq, B), D threads.
extern "C" __global__ void __launch_bounds__(D) oscar_merge(const oscar_rot_params p) {
    __shared__ float os[D];
    const int h = blockIdx.x, b = blockIdx.y, c = threadIdx.x;
    const size_t hb = (size_t)b * p.Hq + h;
    const float *ml = (const float *)p.part_ml + hb * p.n_splits * 2;
    const float *po = (const float *)p.part_o + hb * p.n_splits * D;
    float M = OSCAR_NEG_INF;
    for (int s = 0; s < p.n_splits; s++)
        if (ml[2 * s + 1] > 0.0f) M = fmaxf(M, ml[2 * s]);
    float L = 0.0f, o = 0.0f;
    for (int s = 0; s < p.n_splits; s++) {
        const float l = ml[2 * s + 1];
        if (l > 0.0f) {
            const float w = exp2f(ml[2 * s] - M);
            L += w * l;
            o += w * po[(size_t)s * D + c];
        }
    }
    o = L > 0.0f ? o / L : 0.0f;
    if (p.rot) {
        os[c] = o;
        __syncthreads();
        const float *RT = (const float *)p.rot + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? h / p.gqa : 0)) * D * D;
        float acc = 0.0f;
#pragma unroll 8
        for (int i = 0; i < D; i++) acc += os[i] * RT[(size_t)i * D + c];
        o = acc;
    }
    ((float *)p.y)[hb * D + c] = o;
}
