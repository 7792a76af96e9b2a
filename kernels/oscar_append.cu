// oscar_append.cu - the write path of the device cache: rotate K/V rows, round to BF16, store
// sink/window rows, and flush full pages (clip, quantise, pack) exactly like the CPU codec.
//
// Compile-time: OSCAR_D (head dim: 64, 128, 256), OSCAR_GS (group size, INT2 mode),
// OSCAR_INT2 (1: INT2 history pages, 0: BF16 pages), OSCAR_ROT_F64 (1: accumulate the
// rotation in double, as the CPU reference does when it does so; implies OSCAR_APPEND_ROW),
// OSCAR_APPEND_ROW (1: each warp rotates its row alone, reading R from L2: the issue-3 kernel).
// Must be compiled with --fmad=false: every fp32 operation rounds exactly as on the CPU (the
// rotation uses __fmul_rn / __fadd_rn, which are never contracted).
//
// Grid (ceil(n_jobs / OSCAR_APPEND_TR), Hkv * 2), 128 threads: a block owns a tile of TR jobs of
// one (KV head, K|V). When the tile holds input rows and R is set, the block rotates the tile as
// a small GEMM: X^T (D x TR) staged in shared memory, R streamed through shared memory KC rows at
// a time, each thread owns TM rows x TN columns and sums x_i R[i][j] for i = 0, 1, .., D-1 in
// fp32 (mul, then add, from 0.0f): the CPU's oscar_rotate_rows order, so the bits are the same.
// Then each warp takes rows of the tile: BF16 rounding, sink/window store or the INT2 codec with
// lane l owning channels c = l + 32*jj.
#include "oscar_common.cuh"

#ifndef OSCAR_D
#error "OSCAR_D must be defined"
#endif
#ifndef OSCAR_INT2
#define OSCAR_INT2 1
#endif
#ifndef OSCAR_GS
#define OSCAR_GS OSCAR_D
#endif
#ifndef OSCAR_ROT_F64
#define OSCAR_ROT_F64 0
#endif
#ifndef OSCAR_APPEND_ROW
#define OSCAR_APPEND_ROW OSCAR_ROT_F64
#endif
#if OSCAR_ROT_F64 && !OSCAR_APPEND_ROW
#error "OSCAR_ROT_F64 needs OSCAR_APPEND_ROW"
#endif
#ifndef OSCAR_TOPK_MAX
#define OSCAR_TOPK_MAX 24 // clip threshold by repeated warp max when at most this many values pass it
#endif

#define D OSCAR_D
#define GS OSCAR_GS
#define NC (D / 32)
#define NGR (D / GS)
#define AW 4                  // warps per block
#define TM (D == 256 ? 4 : 8) // tile rows per thread
#define TR (8 * TM)           // tile rows per block (must equal OSCAR__APPEND_TR(d) in oscar_cuda.h)
#define TN (D / 16)           // tile columns per thread: two runs of TN/2 (cols tx*TN/2 and D/2 + tx*TN/2)
#define KC (2048 / D)         // rotation rows per shared-memory stage (8 KB)
#define NCH (D * TR / 1024)   // 8-float chunks per thread when the tile is staged

#if (D % 32) != 0 || (D % GS) != 0 || GS < 4 || (D != 64 && D != 128 && D != 256)
#error "unsupported head dim / group size"
#endif
#ifndef OSCAR_APPEND_NR
#define OSCAR_APPEND_NR 1 // rows a warp quantises at once (independent chains for the clip and codec)
#endif
#ifndef OSCAR_APPEND_RPF
#define OSCAR_APPEND_RPF 0 // 1: prefetch the next KC rows of R into registers during the current stage
#endif
#ifndef OSCAR_APPEND_CLIPS
#define OSCAR_APPEND_CLIPS 1 // clip threshold: 1 = lanes sort their values, the warp pops heads; 0 = warp max over all values each round
#endif
#ifndef OSCAR_APPEND_MINB // resident blocks per SM the register allocation must allow (0: no hint);
#if OSCAR_D >= 128        // d 128 / 256 on the H100: 5 (96 registers; 99-100 -> 4 blocks otherwise)
#define OSCAR_APPEND_MINB 5
#else
#define OSCAR_APPEND_MINB 0
#endif
#endif
#ifndef OSCAR_APPEND_PROF
#define OSCAR_APPEND_PROF 0 // timing only (wrong results): 1 = rotate by one term, 2 = no codec
#endif
#if AW * OSCAR_APPEND_NR * D > 4 * KC * D
#error "OSCAR_APPEND_NR too large for the code-byte buffer"
#endif


// job j of this launch -> (input row or -1, sequence slot, position, page or -1), from the runs
static __device__ __forceinline__ int4 oscar__job(const oscar_append_params &p, long long j) {
    const int4 *runs = (const int4 *)p.jobs;
    int lo = 0, hi = p.n_runs - 1;
    while (lo < hi) { // the last run that starts at or before j
        const int mid = (lo + hi + 1) >> 1;
        if (runs[2 * mid].x <= j) lo = mid;
        else hi = mid - 1;
    }
    const int4 a = runs[2 * lo], b = runs[2 * lo + 1];
    const int pos = a.y + (int)(j - a.x);
    const int src = pos >= b.x ? a.w + pos : -1;
    const int page = b.y ? ((const int *)p.bt)[(size_t)a.z * p.max_pages + (pos - p.S0) / p.P] : -1;
    return make_int4(src, a.z, pos, page);
}

#if OSCAR_INT2
// the CPU codec's clip index: thr = a[idx] of the ascending |x|; -1: no clip
static __device__ __forceinline__ int oscar__clip_idx(float clip) {
    if (!(clip > 0.0f)) return -1;
    const int idx = (int)floorf(clip * (float)D);
    return idx > D - 1 ? D - 1 : idx;
}
// an INT2 page row (codes) and its group scales of one (page, KV head, K|V, position)
static __device__ __forceinline__ oscar_u8 *oscar__page_row(const oscar_append_params &p, int page, int head, int isv, int pos, oscar_u32 **sm) {
    const int prow = (pos - p.S0) % p.P;
    oscar_u8 *codes = (oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + head) * (size_t)p.head_page_bytes +
                      (size_t)isv * p.P * (D / 4 + NGR * 4);
    *sm = (oscar_u32 *)(codes + (size_t)p.P * (D / 4)) + (size_t)prow * NGR;
    return codes + (size_t)prow * (D / 4);
}
// x . H of one row in the lane layout x[jj] = element lane + 32 jj, with the CPU's operations
// (oscar_wht: butterflies of length 1, 2, ..., D/2, the lower element of a pair taking a + b and
// the upper a - b, then one multiply by (float)(1 / sqrt(D))): the same bits
static __device__ __forceinline__ void oscar__wht_row(float (&x)[NC], int lane) {
#pragma unroll
    for (int len = 1; len < 32 && len < D; len <<= 1) { // partner: lane ^ len, same jj
        const bool up = (lane & len) != 0;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) {
            const float o = __shfl_xor_sync(0xffffffffu, x[jj], len);
            x[jj] = up ? __fsub_rn(o, x[jj]) : __fadd_rn(x[jj], o);
        }
    }
#pragma unroll
    for (int len = 32; len < D; len <<= 1) { // partner: jj ^ (len / 32), same lane
#pragma unroll
        for (int jj = 0; jj < NC; jj++)
            if (!(jj & (len / 32))) {
                const float a = x[jj], b = x[jj + len / 32];
                x[jj] = __fadd_rn(a, b);
                x[jj + len / 32] = __fsub_rn(a, b);
            }
    }
    const float sc = (float)(1.0 / sqrt((double)D));
#pragma unroll
    for (int jj = 0; jj < NC; jj++) x[jj] = __fmul_rn(x[jj], sc);
}

// the INT2 codec (SPEC section 4) for NR rows of one (head, K|V), all to pages; same fp32 operation
// sequence as the CPU reference
template <int NR>
static __device__ __forceinline__ void oscar__codec(const oscar_append_params &p, float (&x)[NR][NC], int isv, int head,
                                                    const int (&pos)[NR], const int (&page)[NR], oscar_u8 *cs, int lane) {
    const int idx = oscar__clip_idx(isv ? p.v_clip : p.k_clip);
    if (idx >= 0) {
        // thr = a[idx] of the ascending |x| = the (D - idx)-th largest, counted with multiplicity
        // (bit patterns of non-negative floats order like the floats)
        oscar_u32 a[NR][NC], thr[NR];
#pragma unroll
        for (int r = 0; r < NR; r++)
#pragma unroll
            for (int jj = 0; jj < NC; jj++) a[r][jj] = __float_as_uint(x[r][jj]) & 0x7fffffffu;
        if (D - idx <= OSCAR_TOPK_MAX && OSCAR_APPEND_CLIPS) {
            // each lane sorts its NC values, descending; then the warp takes the largest head k
            // times: a lane whose head equals the maximum m shifts its list (a 0 comes in at the
            // end); cnt counts the heads equal to m, so copies of m in one lane are counted in
            // later rounds with the same m; m == 0: every value left is 0 and so is the threshold
            int k[NR];
            bool done[NR];
#pragma unroll
            for (int r = 0; r < NR; r++) {
                k[r] = D - idx, done[r] = false, thr[r] = 0u;
#pragma unroll
                for (int i = 0; i < NC - 1; i++)
#pragma unroll
                    for (int jj = 0; jj < NC - 1 - i; jj++) {
                        const oscar_u32 u = a[r][jj], v = a[r][jj + 1];
                        a[r][jj] = max(u, v);
                        a[r][jj + 1] = min(u, v);
                    }
            }
            for (;;) {
                bool all = true;
#pragma unroll
                for (int r = 0; r < NR; r++) {
                    const oscar_u32 m = __reduce_max_sync(0xffffffffu, a[r][0]);
                    const bool top = a[r][0] == m;
                    const int cnt = __popc(__ballot_sync(0xffffffffu, top));
                    if (!done[r]) {
                        if (cnt >= k[r] || m == 0u) {
                            thr[r] = m;
                            done[r] = true;
                        } else {
                            k[r] -= cnt;
                            if (top) {
#pragma unroll
                                for (int jj = 0; jj < NC - 1; jj++) a[r][jj] = a[r][jj + 1];
                                a[r][NC - 1] = 0u;
                            }
                        }
                    }
                    all = all && done[r];
                }
                if (all) break;
            }
        } else if (D - idx <= OSCAR_TOPK_MAX) {
            // take the largest value k times; a value taken is set to 0 (if the maximum left is 0,
            // every value left is 0 and so is the threshold)
            int k[NR];
            bool done[NR];
#pragma unroll
            for (int r = 0; r < NR; r++) k[r] = D - idx, done[r] = false, thr[r] = 0u;
            for (;;) {
                oscar_u32 m[NR];
                int cnt[NR];
#pragma unroll
                for (int r = 0; r < NR; r++) {
                    m[r] = a[r][0];
#pragma unroll
                    for (int jj = 1; jj < NC; jj++) m[r] = max(m[r], a[r][jj]);
                    m[r] = __reduce_max_sync(0xffffffffu, m[r]);
                }
#pragma unroll
                for (int r = 0; r < NR; r++) {
                    cnt[r] = 0;
#pragma unroll
                    for (int jj = 0; jj < NC; jj++) cnt[r] += a[r][jj] == m[r];
                    cnt[r] = __reduce_add_sync(0xffffffffu, cnt[r]);
                }
                bool all = true;
#pragma unroll
                for (int r = 0; r < NR; r++) {
                    if (!done[r]) {
                        if (cnt[r] >= k[r] || m[r] == 0u) {
                            thr[r] = m[r];
                            done[r] = true;
                        } else {
                            k[r] -= cnt[r];
#pragma unroll
                            for (int jj = 0; jj < NC; jj++) a[r][jj] = a[r][jj] == m[r] ? 0u : a[r][jj];
                        }
                    }
                    all = all && done[r];
                }
                if (all) break;
            }
        } else {
            // smallest u with #{|x| <= u} > idx
#pragma unroll
            for (int r = 0; r < NR; r++) {
                oscar_u32 lo = 0u, hi = 0x7f7fffffu;
                while (lo < hi) {
                    const oscar_u32 mid = lo + ((hi - lo) >> 1);
                    int cnt = 0;
#pragma unroll
                    for (int jj = 0; jj < NC; jj++) cnt += a[r][jj] <= mid;
                    cnt = __reduce_add_sync(0xffffffffu, cnt);
                    if (cnt > idx) hi = mid;
                    else lo = mid + 1u;
                }
                thr[r] = lo;
            }
        }
#pragma unroll
        for (int r = 0; r < NR; r++) {
            const float t = __uint_as_float(thr[r]);
#pragma unroll
            for (int jj = 0; jj < NC; jj++) {
                if (x[r][jj] > t) x[r][jj] = t;
                if (x[r][jj] < -t) x[r][jj] = -t;
            }
        }
    }
#pragma unroll
    for (int r = 0; r < NR; r++) {
        float gmn[NC], gmx[NC];
#if GS >= 32
        // float order as signed integers (x ^ (sign ? 0x7fffffff : 0)); -0 sorts below +0 as in min.f32
#pragma unroll
        for (int j0 = 0; j0 < NC; j0 += GS / 32) {
            int a = 0x7fffffff, b = (int)0x80000000;
#pragma unroll
            for (int t = 0; t < GS / 32; t++) {
                const int v = __float_as_int(x[r][j0 + t]), key = v ^ ((v >> 31) & 0x7fffffff);
                a = min(a, key);
                b = max(b, key);
            }
            a = __reduce_min_sync(0xffffffffu, a);
            b = __reduce_max_sync(0xffffffffu, b);
            a ^= (a >> 31) & 0x7fffffff;
            b ^= (b >> 31) & 0x7fffffff;
#pragma unroll
            for (int t = 0; t < GS / 32; t++) {
                gmn[j0 + t] = __int_as_float(a);
                gmx[j0 + t] = __int_as_float(b);
            }
        }
#else
#pragma unroll
        for (int jj = 0; jj < NC; jj++) {
            float a = x[r][jj], b = x[r][jj];
#pragma unroll
            for (int o = 1; o < GS; o <<= 1) {
                a = fminf(a, __shfl_xor_sync(0xffffffffu, a, o));
                b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
            }
            gmn[jj] = a;
            gmx[jj] = b;
        }
#endif
        // a min or max that is zero takes the sign of the group's first zero in column order (the
        // CPU's loop keeps the first of equal values; the reductions above order -0 below +0)
        bool zero = false;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) zero = zero || gmn[jj] == 0.0f || gmx[jj] == 0.0f;
        if (__any_sync(0xffffffffu, zero)) {
            oscar_u32 fz[NC]; // (column << 1 | sign) of this lane's zero, or ~0
#pragma unroll
            for (int jj = 0; jj < NC; jj++) {
                const oscar_u32 b = __float_as_uint(x[r][jj]);
                fz[jj] = (b & 0x7fffffffu) ? 0xffffffffu : ((oscar_u32)(lane + 32 * jj) << 1 | b >> 31);
            }
#if GS >= 32
#pragma unroll
            for (int j0 = 0; j0 < NC; j0 += GS / 32) {
                oscar_u32 f = fz[j0];
#pragma unroll
                for (int tt = 1; tt < GS / 32; tt++) f = min(f, fz[j0 + tt]);
                f = __reduce_min_sync(0xffffffffu, f);
#pragma unroll
                for (int tt = 0; tt < GS / 32; tt++) fz[j0 + tt] = f;
            }
#else
#pragma unroll
            for (int jj = 0; jj < NC; jj++)
#pragma unroll
                for (int o = 1; o < GS; o <<= 1) fz[jj] = min(fz[jj], __shfl_xor_sync(0xffffffffu, fz[jj], o));
#endif
#pragma unroll
            for (int jj = 0; jj < NC; jj++) {
                const float z = (fz[jj] & 1u) ? -0.0f : 0.0f;
                if (gmn[jj] == 0.0f) gmn[jj] = z;
                if (gmx[jj] == 0.0f) gmx[jj] = z;
            }
        }
        oscar_u32 *sm;
        oscar_u8 *codes = oscar__page_row(p, page[r], head, isv, pos[r], &sm);
        oscar_u8 *c8 = cs + r * D;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) {
            const int c = lane + 32 * jj;
            const float scale = (gmx[jj] - gmn[jj]) / 3.0f;
            const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[jj]);
            const float s = oscar_f16_to_f32(s16), m = oscar_f16_to_f32(m16);
            int q = 0;
            if (s != 0.0f) {
                const float t = floorf((x[r][jj] - m) / s + 0.5f);
                q = t < 0.0f ? 0 : (t > 3.0f ? 3 : (int)t);
            }
            c8[c] = (oscar_u8)q;
            if (c % GS == 0) sm[c / GS] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);
        }
        __syncwarp();
        for (int b = lane; b < D / 4; b += 32)
            codes[b] = (oscar_u8)(c8[b] | (c8[b + D / 4] << 2) | (c8[b + D / 2] << 4) | (c8[b + 3 * D / 4] << 6));
    }
    __syncwarp();
}
#endif

// one row's lane values -> BF16 sink/window row, BF16 page row, or the INT2 codec
static __device__ __forceinline__ void oscar__row_out(const oscar_append_params &p, float (&x)[NC], int isv, int head,
                                                      int slot, int pos, int page, oscar_u16 *ringrow, oscar_u8 *cs, int lane) {
    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;
    if (page < 0) { // BF16 row for the sink or the window ring
        oscar_u16 *dst = pos < p.S0 ? (oscar_u16 *)p.sink + ((slab * 2 + isv) * p.S0 + pos) * D : ringrow;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) dst[lane + 32 * jj] = oscar_f32_to_bf16(x[jj]);
        return;
    }
#if !OSCAR_INT2
    const int prow = (pos - p.S0) % p.P;
    oscar_u16 *dst = (oscar_u16 *)((oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + head) * (size_t)p.head_page_bytes) +
                     ((size_t)isv * p.P + prow) * D;
#pragma unroll
    for (int jj = 0; jj < NC; jj++) dst[lane + 32 * jj] = oscar_f32_to_bf16(x[jj]);
#else
    float xr[1][NC];
    const int pr[1] = {pos}, pg[1] = {page};
#pragma unroll
    for (int jj = 0; jj < NC; jj++) xr[0][jj] = x[jj];
    oscar__codec<1>(p, xr, isv, head, pr, pg, cs, lane);
#endif
}

#ifndef OSCAR_APPEND_MMA
#define OSCAR_APPEND_MMA 1
#endif
// which of the two packed-BF16 kernels this build has
#if OSCAR_INT2 && OSCAR_APPEND_MMA && !OSCAR_ROT_F64 && (D == 64 || D == 128) && GS >= 8 && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define OSCAR__MMA_ON 1
#else
#define OSCAR__MMA_ON 0
#endif
#if OSCAR_INT2 && GS * 8 >= D && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
#define OSCAR__FCODEC 1
#else
#define OSCAR__FCODEC 0
#endif
#if OSCAR__MMA_ON || OSCAR__FCODEC
// ---- packed BF16 helpers, shared by oscar_append_mma and oscar_append_fwht ----
static __device__ __forceinline__ oscar_u32 oscar__bf2(float lo_half, float hi_half) { // round to nearest even
    oscar_u32 d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi_half), "f"(lo_half));
    return d;
}
static __device__ __forceinline__ oscar_u32 oscar__bmin2(oscar_u32 a, oscar_u32 b) {
    oscar_u32 d;
    asm("min.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
static __device__ __forceinline__ oscar_u32 oscar__bmax2(oscar_u32 a, oscar_u32 b) {
    oscar_u32 d;
    asm("max.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
static __device__ __forceinline__ float oscar__bh(oscar_u32 w, int h) { return __uint_as_float(h ? (w & 0xffff0000u) : (w << 16)); }
// 0xffff in each half where a >= b (BF16 values; false against NaN)
static __device__ __forceinline__ oscar_u32 oscar__bge2(oscar_u32 a, oscar_u32 b) {
#if __CUDA_ARCH__ >= 900
    oscar_u32 d;
    asm("set.ge.u32.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
#else
    return (oscar__bh(a, 0) >= oscar__bh(b, 0) ? 0xffffu : 0u) | (oscar__bh(a, 1) >= oscar__bh(b, 1) ? 0xffff0000u : 0u);
#endif
}
// the CPU's clamp to [-T, T] (T2: T's bits in both halves), on a packed pair and on one value;
// the sign of a zero may differ from the CPU's (the zero min / max step does not rely on it)
static __device__ __forceinline__ oscar_u32 oscar__clamp2(oscar_u32 w, oscar_u32 T2) { return oscar__bmax2(oscar__bmin2(w, T2), T2 | 0x80008000u); }
#if OSCAR__MMA_ON
static __device__ __forceinline__ float oscar__clampf(float v, float th) { return fminf(fmaxf(v, -th), th); }
// per half: 0xffff where the sign bits of a and b differ
static __device__ __forceinline__ oscar_u32 oscar__sgn2(oscar_u32 a) { return __byte_perm(a, 0u, 0xBB99u); }
#endif
// the CPU codec's code of value v for the stored (min, scale)
static __device__ __forceinline__ int oscar__code(float v, float m, float s) {
    if (s == 0.0f) return 0;
    const float tq = floorf((v - m) / s + 0.5f);
    return tq < 0.0f ? 0 : (tq > 3.0f ? 3 : (int)tq);
}
// BF16 bits <-> an order-preserving 16-bit key
static __device__ __forceinline__ oscar_u32 oscar__ok16(oscar_u32 b) { return (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u); }
static __device__ __forceinline__ oscar_u32 oscar__ik16(oscar_u32 k) { return (k & 0x8000u) ? (k & 0x7fffu) : (~k & 0xffffu); }
static __device__ __forceinline__ float oscar__k16f(oscar_u32 k) { return __uint_as_float(oscar__ik16(k) << 16); }
// the smallest BF16 value whose code is >= q (1..3), as bits; NaN (nothing reaches it) when the
// scale is 0. Codes are monotone in the value, -inf has code 0 and +inf code 3: from the estimate
// m + (q - 1/2) s, a galloping search brackets the first key with code >= q, then bisection (two
// evaluations on average; near 0, where BF16 values are dense, up to ~16).
static __device__ oscar_u32 oscar__bound(float m, float s, int q) {
    if (s == 0.0f) return 0x7fc0u;
    const int kmin = 0x007f, kmax = 0xff80; // -inf, +inf
    float x0 = m + ((float)q - 0.5f) * s;
    // below half an ulp of m, v - m rounds to -m: every such v has the code of 0, and the boundary
    // lies at the edge of that window (a symmetric group puts the middle boundary there)
    const float w = __int_as_float(__float_as_int(m) & 0x7f800000) * 5.9604645e-8f; // ulp(m) / 2
    if (fabsf(x0) < 4.0f * w) x0 = oscar__code(0.0f, m, s) >= q ? -w : w;
    int k = (int)oscar__ok16(oscar_f32_to_bf16(x0)), lo, hi, st = 1;
    k = min(max(k, kmin), kmax);
    if (oscar__code(oscar__k16f((oscar_u32)k), m, s) >= q) {
        hi = k, lo = k - 1;
        while (lo > kmin && oscar__code(oscar__k16f((oscar_u32)lo), m, s) >= q) hi = lo, st *= 2, lo = max(hi - st, kmin);
    } else {
        lo = k, hi = k + 1;
        while (hi < kmax && oscar__code(oscar__k16f((oscar_u32)hi), m, s) < q) lo = hi, st *= 2, hi = min(lo + st, kmax);
    }
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (oscar__code(oscar__k16f((oscar_u32)mid), m, s) >= q) hi = mid;
        else lo = mid;
    }
    return oscar__ik16((oscar_u32)hi);
}

#endif

#if OSCAR__FCODEC
#define FT (D / 32)      // threads per row
#define FR (128 / FT)    // rows per block (must equal OSCAR__FWHT_ROWS(d) in oscar_cuda.h)
#define FIPG (8 * GS / D) // runs i per group
#define FNG (D / GS)      // groups per row
#ifndef OSCAR_FWHT_MINB
#define OSCAR_FWHT_MINB 6 // resident blocks per SM the register allocation must allow
#endif
// reductions over the FT lanes of a row
static __device__ __forceinline__ int oscar__rsum(int v) {
#pragma unroll
    for (int o = 1; o < FT; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
static __device__ __forceinline__ oscar_u32 oscar__rmax(oscar_u32 v) {
#pragma unroll
    for (int o = 1; o < FT; o <<= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
static __device__ __forceinline__ oscar_u32 oscar__rmin(oscar_u32 v) {
#pragma unroll
    for (int o = 1; o < FT; o <<= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
// #{|x| >= v} over the row (a: |x| as BF16 pairs, v: a non-negative BF16 value's bits); the
// masks are subtracted: the low half of a sum counts A, the high half B - A
static __device__ __forceinline__ int oscar__fcnt(const oscar_u32 (&a)[16], oscar_u32 v) {
    const oscar_u32 v2 = v * 0x10001u;
    oscar_u32 s4[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int w = 0; w < 16; w++) s4[w & 3] -= oscar__bge2(a[w], v2);
    const oscar_u32 acc = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    return oscar__rsum((int)(((acc >> 16) + 2u * (acc & 0xffffu)) & 0xffffu));
}

// job j as oscar__job gives it, or (-1, 0, 0, 0) past the last job (the lanes of such a row take
// part in the shuffles with zeros and store nothing)
static __device__ __forceinline__ int4 oscar__fjob(const oscar_append_params &p, long long j) {
    return j < p.n_jobs ? oscar__job(p, j) : make_int4(-1, 0, 0, 0);
}
// this lane's runs of a window ring row (BF16, rotated when it was written) as the pairs w
static __device__ __forceinline__ void oscar__fring(const oscar_append_params &p, oscar_u32 (&w)[16], int slot, int pos, int head, int isv, int t) {
    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;
    const uint2 *rr = (const uint2 *)((const oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D) + t;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const uint2 u = rr[FT * i];
        w[2 * i] = u.x, w[2 * i + 1] = u.y;
    }
}
// the INT2 codec of one row held by its FT lanes as 16 BF16 pairs w (values 4 FT i + 4 t + 2 h and
// + 1 in w[2 i + h]); every lane of the warp takes part (shuffles); store: write the codes and scales
static __device__ __forceinline__ void oscar__fcodec(const oscar_append_params &p, oscar_u32 (&w)[16], bool store, int page, int head, int isv, int pos, int t, int lane) {
    // ---- clip: thr = the (D - idx)-th largest |x|, with multiplicity ----
    const int idx = oscar__clip_idx(isv ? p.v_clip : p.k_clip);
    if (idx >= 0) {
        const int k = D - idx;
        oscar_u32 a[16], m2 = 0u;
#pragma unroll
        for (int j = 0; j < 16; j++) a[j] = w[j] & 0x7fff7fffu, m2 = __vmaxu2(m2, a[j]);
        const oscar_u32 M = oscar__rmax(max(m2 & 0xffffu, m2 >> 16));
        // the largest key with #{>= key} >= k lies in [lo, hi); first bracket: the top octave
        int lo = M >= 128u ? (int)M - 128 : 0, hi = (int)M + 1;
        if (oscar__fcnt(a, (oscar_u32)lo) < k) hi = lo, lo = 0;
        for (;;) { // warp-uniform trip count (every lane takes part in the shuffles)
            const bool open = hi - lo > 1;
            if (!__any_sync(0xffffffffu, open)) break;
            const int mid = open ? (lo + hi) >> 1 : lo;
            const bool ge = oscar__fcnt(a, (oscar_u32)mid) >= k;
            if (open) {
                if (ge) lo = mid;
                else hi = mid;
            }
        }
        if (lo) {
            const oscar_u32 T2 = (oscar_u32)lo * 0x10001u;
#pragma unroll
            for (int j = 0; j < 16; j++) w[j] = oscar__clamp2(w[j], T2);
        } else { // clamp to [-0, +0]: positive values to +0, negative to -0, zeros keep their sign
#pragma unroll
            for (int j = 0; j < 16; j++) w[j] &= 0x80008000u;
        }
    }
    // ---- per group: min / max, fp16 scale and min, the three code boundaries ----
    oscar_u32 bnd[FNG][3], smw[FNG];
    float gmn[FNG], gmx[FNG];
    bool zero = false;
#pragma unroll
    for (int g = 0; g < FNG; g++) {
        oscar_u32 mn2 = w[2 * g * FIPG], mx2 = mn2;
#pragma unroll
        for (int j = 2 * g * FIPG + 1; j < 2 * (g + 1) * FIPG; j++) mn2 = oscar__bmin2(mn2, w[j]), mx2 = oscar__bmax2(mx2, w[j]);
        mn2 = oscar__bmin2(mn2, __byte_perm(mn2, 0u, 0x1032u));
        mx2 = oscar__bmax2(mx2, __byte_perm(mx2, 0u, 0x1032u));
#pragma unroll
        for (int o = 1; o < FT; o <<= 1) {
            mn2 = oscar__bmin2(mn2, __shfl_xor_sync(0xffffffffu, mn2, o));
            mx2 = oscar__bmax2(mx2, __shfl_xor_sync(0xffffffffu, mx2, o));
        }
        gmn[g] = oscar__bh(mn2, 0), gmx[g] = oscar__bh(mx2, 0);
        zero = zero || gmn[g] == 0.0f || gmx[g] == 0.0f;
    }
    if (__any_sync(0xffffffffu, zero)) { // a zero min or max: the sign of the group's first zero
#pragma unroll
        for (int g = 0; g < FNG; g++) {
            oscar_u32 fm = 0xffffffffu; // (column << 1 | sign) of the first zero in the group
#pragma unroll
            for (int i = g * FIPG; i < (g + 1) * FIPG; i++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const oscar_u32 b = (w[2 * i + (e >> 1)] >> (16 * (e & 1))) & 0xffffu;
                    const oscar_u32 c = (oscar_u32)(4 * FT * i + 4 * t + e);
                    if (!(b & 0x7fffu)) fm = min(fm, c << 1 | b >> 15);
                }
            fm = oscar__rmin(fm);
            const float z = (fm & 1u) ? -0.0f : 0.0f;
            if (gmn[g] == 0.0f) gmn[g] = z;
            if (gmx[g] == 0.0f) gmx[g] = z;
        }
    }
    oscar_u32 mine[(3 * FNG + FT - 1) / FT];
#pragma unroll
    for (int g = 0; g < FNG; g++) {
        const float scale = __fdiv_rn(__fsub_rn(gmx[g], gmn[g]), 3.0f);
        const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[g]);
        smw[g] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);
        const float s = oscar_f16_to_f32(s16), m = oscar_f16_to_f32(m16);
#pragma unroll
        for (int j = 0; j < 3; j++)
            if ((3 * g + j) % FT == t) mine[(3 * g + j) / FT] = oscar__bound(m, s, j + 1);
    }
#pragma unroll
    for (int q = 0; q < 3 * FNG; q++) {
        const oscar_u32 b = __shfl_sync(0xffffffffu, mine[q / FT], (lane & ~(FT - 1)) | (q % FT));
        bnd[q / 3][q % 3] = b * 0x10001u;
    }
    // ---- codes: q = #{boundaries <= x}: bit 0 = m1 ^ m2 ^ m3, bit 1 = m2; bytes quarter-interleaved ----
    oscar_u32 pb0[8], pb1[8];
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const int g = i / FIPG;
        oscar_u32 b0[2], b1[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const oscar_u32 m1 = oscar__bge2(w[2 * i + h], bnd[g][0]), m2 = oscar__bge2(w[2 * i + h], bnd[g][1]), m3 = oscar__bge2(w[2 * i + h], bnd[g][2]);
            b0[h] = m1 ^ m2 ^ m3, b1[h] = m2;
        }
        pb0[i] = __byte_perm(b0[0], b0[1], 0x6420u); // byte e: 0xff where bit 0 of value e's code is set
        pb1[i] = __byte_perm(b1[0], b1[1], 0x6420u);
    }
    if (store) {
        oscar_u32 *sm;
        oscar_u32 *codes = (oscar_u32 *)oscar__page_row(p, page, head, isv, pos, &sm);
#pragma unroll
        for (int i0 = 0; i0 < 2; i0++) {
            oscar_u32 o = 0u;
#pragma unroll
            for (int j = 0; j < 4; j++) o |= (pb0[i0 + 2 * j] & (0x01010101u << (2 * j))) | (pb1[i0 + 2 * j] & (0x02020202u << (2 * j)));
            codes[FT * i0 + t] = o;
        }
#pragma unroll
        for (int g = 0; g < FNG; g++)
            if (g % FT == t) sm[g] = smw[g];
    }
}
#endif

#if OSCAR_APPEND_MINB > 0
#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32, OSCAR_APPEND_MINB)
#else
#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32)
#endif
// KW 0: oscar_append (xs: X^T [D][TR] while rotating, then Y [TR][D]; rs: R rows k0 .. k0+KC, then
// the warps' code bytes); KW 1: oscar_append_wht, H rotations only (rows transformed per warp, no
// tile: xs, s_ss, s_bad unused, rs holds just the code bytes)
template <int KW>
static __device__ __forceinline__ void oscar__append_impl(const oscar_append_params &p, float *xs, float *rs, float *s_ss, int *s_bad) {
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;
    const long long job0 = (long long)blockIdx.x * TR;
    const float *X = (const float *)(isv ? p.v : p.k);
#if OSCAR_INT2
    const float *R = (const float *)(isv ? p.vrot : p.krot);
    if (R) R += ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? head : 0)) * D * D;
#endif
    bool tiled = false;
#if OSCAR_INT2 && !OSCAR_APPEND_ROW
    if (!KW && R && !p.wht) { // (H rotations: each warp transforms its rows in row_in, no tile)
        // ---- stage X^T: thread owns row tid % TR and 8-float chunks tid / TR + it * (128 / TR) ----
        const int row = tid % TR;
        const long long job = job0 + row;
        const float *xr = 0;
        if (job < p.n_jobs) {
            const int src = oscar__job(p, job).x;
            if (src >= 0) xr = X + ((size_t)src * p.Hkv + head) * D;
        }
        tiled = __syncthreads_or(xr != 0) != 0; // block-uniform
        if (tiled) {
            const bool al = ((p.k | p.v) & 15u) == 0u;
            float ss = 0.0f;
            int bad = 0;
#pragma unroll
            for (int it = 0; it < NCH; it++) {
                const int ch = tid / TR + it * (AW * 32 / TR);
                float v[8];
                if (xr && al) {
                    const float4 a = ((const float4 *)xr)[2 * ch], b = ((const float4 *)xr)[2 * ch + 1];
                    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
                } else {
#pragma unroll
                    for (int t = 0; t < 8; t++) v[t] = xr ? xr[8 * ch + t] : 0.0f;
                }
#pragma unroll
                for (int t = 0; t < 8; t++) {
                    if (!isfinite(v[t])) bad = 1;
                    ss += v[t] * v[t];
                    xs[(8 * ch + t) * TR + row] = v[t];
                }
            }
            s_ss[tid] = ss;
            s_bad[tid] = bad;
            // ---- Y = X R: thread (ty, tx) owns rows ty*TM .. +TM, columns tx*TN/2 .. and D/2 + tx*TN/2 .. ----
            const int ty = tid >> 4, tx = tid & 15;
            float acc[TM][TN];
#pragma unroll
            for (int m = 0; m < TM; m++)
#pragma unroll
                for (int n = 0; n < TN; n++) acc[m][n] = 0.0f;
#if OSCAR_APPEND_RPF
            // the next stage of R is loaded into registers while this one is used
            float4 rpf[KC * D / 4 / (AW * 32)];
#pragma unroll
            for (int i = 0; i < KC * D / 4 / (AW * 32); i++) rpf[i] = ((const float4 *)R)[tid + i * AW * 32];
#endif
            for (int k0 = 0; k0 < (OSCAR_APPEND_PROF == 1 ? KC : D); k0 += KC) {
                __syncthreads();
#if OSCAR_APPEND_RPF
#pragma unroll
                for (int i = 0; i < KC * D / 4 / (AW * 32); i++) ((float4 *)rs)[tid + i * AW * 32] = rpf[i];
                __syncthreads();
                if (k0 + KC < D) {
#pragma unroll
                    for (int i = 0; i < KC * D / 4 / (AW * 32); i++) rpf[i] = ((const float4 *)(R + (size_t)(k0 + KC) * D))[tid + i * AW * 32];
                }
#else
#pragma unroll
                for (int i = tid; i < KC * D / 4; i += AW * 32) ((float4 *)rs)[i] = ((const float4 *)(R + (size_t)k0 * D))[i];
                __syncthreads();
#endif
#pragma unroll
                for (int kk = 0; kk < (OSCAR_APPEND_PROF == 1 ? 1 : KC); kk++) {
                    float xv[TM], rv[TN];
#pragma unroll
                    for (int m = 0; m < TM; m += 4) {
                        const float4 a = *(const float4 *)&xs[(k0 + kk) * TR + ty * TM + m];
                        xv[m] = a.x, xv[m + 1] = a.y, xv[m + 2] = a.z, xv[m + 3] = a.w;
                    }
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        const float *rr = &rs[kk * D + h * (D / 2) + tx * (TN / 2)];
#if TN / 2 >= 4
#pragma unroll
                        for (int n = 0; n < TN / 2; n += 4) {
                            const float4 a = *(const float4 *)&rr[n];
                            rv[h * (TN / 2) + n] = a.x, rv[h * (TN / 2) + n + 1] = a.y, rv[h * (TN / 2) + n + 2] = a.z, rv[h * (TN / 2) + n + 3] = a.w;
                        }
#else
                        const float2 a = *(const float2 *)rr;
                        rv[h * (TN / 2)] = a.x, rv[h * (TN / 2) + 1] = a.y;
#endif
                    }
#pragma unroll
                    for (int m = 0; m < TM; m++)
#pragma unroll
                        for (int n = 0; n < TN; n++) acc[m][n] = __fadd_rn(acc[m][n], __fmul_rn(xv[m], rv[n]));
                }
            }
            __syncthreads(); // X^T and R no longer read: Y goes where X^T was
#pragma unroll
            for (int m = 0; m < TM; m++)
#pragma unroll
                for (int h = 0; h < 2; h++)
#pragma unroll
                    for (int n = 0; n < TN / 2; n++) xs[(ty * TM + m) * D + h * (D / 2) + tx * (TN / 2) + n] = acc[m][h * (TN / 2) + n];
            __syncthreads();
        }
    }
#endif
#if OSCAR__FCODEC && OSCAR_INT2 && !OSCAR_APPEND_ROW
    // a flush tile (the launch's rows all go to pages; input rows rotated into xs, or, when the
    // tile has none, only window rows leaving the ring): the codec with FT lanes per row
    // (oscar__fcodec) instead of a warp per row; the same bytes
    if (!KW && R && !p.wht && oscar__job(p, job0).w >= 0) {
        const int t = tid % FT;
#pragma unroll 1
        for (int r = tid / FT; r < TR; r += FR) {
            const long long job = job0 + r;
            const bool valid = job < p.n_jobs;
            const int4 jb = oscar__fjob(p, job);
            const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;
            oscar_u32 w[16];
#pragma unroll
            for (int j = 0; j < 16; j++) w[j] = 0u;
            if (valid && src >= 0) {
                float ss = 0.0f;
                int bad = 0;
#pragma unroll
                for (int tt = 0; tt < AW * 32 / TR; tt++) { // the staging threads of row r, in order
                    ss += s_ss[r + tt * TR];
                    bad |= s_bad[r + tt * TR];
                }
                unsigned int ebits = bad ? OSCAR_ERR_BIT_NONFINITE : 0u;
                if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;
                if (ebits) { // stored as zeros; the host learns of it through oscar_cuda_kv_errors()
                    if (t == 0) atomicOr((unsigned int *)p.err, ebits);
                } else {
#pragma unroll
                    for (int i = 0; i < 8; i++) {
                        const float4 a = *(const float4 *)&xs[r * D + 4 * FT * i + 4 * t];
                        w[2 * i] = oscar__bf2(a.x, a.y), w[2 * i + 1] = oscar__bf2(a.z, a.w);
                    }
                }
            } else if (valid) { // a window row leaving the ring: rotated when it was written
                oscar__fring(p, w, slot, pos, head, isv, t);
            }
            oscar__fcodec(p, w, valid, page, head, isv, pos, t, lane);
        }
        return;
    }
#endif
    oscar_u8 *cs = (oscar_u8 *)rs + warp * OSCAR_APPEND_NR * D;
    // row r of the tile -> lane values (rotated, BF16-rounded); false past the last job
    auto row_in = [&](int r, float(&x)[NC], int &slot, int &pos, int &page, oscar_u16 *&ringrow) -> bool {
        const long long job = job0 + r;
        if (job >= p.n_jobs) return false;
        const int4 jb = oscar__job(p, job);
        const int src = jb.x;
        slot = jb.y, pos = jb.z, page = jb.w;
        const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;
        ringrow = 0;
        if (pos >= p.S0)
            ringrow = (oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D;
        if (src >= 0) {
            int bad = 0;
            float ss = 0.0f;
            if (tiled) {
#pragma unroll
                for (int t = 0; t < AW * 32 / TR; t++) { // the staging threads of row r, in order
                    ss += s_ss[r + t * TR];
                    bad |= s_bad[r + t * TR];
                }
#pragma unroll
                for (int jj = 0; jj < NC; jj++) x[jj] = xs[r * D + lane + 32 * jj];
            } else {
                const float *row = X + ((size_t)src * p.Hkv + head) * D;
#pragma unroll
                for (int jj = 0; jj < NC; jj++) {
                    const float v = row[lane + 32 * jj];
                    x[jj] = v;
                    if (!isfinite(v)) bad = 1;
                    ss += v * v;
                }
                bad = __any_sync(0xffffffffu, bad);
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
            }
            unsigned int ebits = bad ? OSCAR_ERR_BIT_NONFINITE : 0u;
#if OSCAR_INT2
            if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;
            if (R && p.wht && !tiled && !ebits) oscar__wht_row(x, lane);
#if OSCAR_APPEND_ROW
            if (R && !p.wht && !ebits) {
                float *xw = xs + warp * D;
#pragma unroll
                for (int jj = 0; jj < NC; jj++) xw[lane + 32 * jj] = x[jj];
                __syncwarp();
#pragma unroll
                for (int jj = 0; jj < NC; jj++) {
                    const int c = lane + 32 * jj;
#if OSCAR_ROT_F64
                    double acc = 0.0;
                    for (int i = 0; i < D; i++) acc += (double)xw[i] * (double)R[(size_t)i * D + c];
                    x[jj] = (float)acc;
#else
                    float acc = 0.0f;
                    for (int i = 0; i < D; i++) acc = __fadd_rn(acc, __fmul_rn(xw[i], R[(size_t)i * D + c]));
                    x[jj] = acc;
#endif
                }
                __syncwarp();
            }
#endif
#endif
            if (ebits) {
                // the row is stored as zeros; the host learns of it through oscar_cuda_kv_errors()
#pragma unroll
                for (int jj = 0; jj < NC; jj++) x[jj] = 0.0f;
                if (lane == 0) atomicOr((unsigned int *)p.err, ebits);
            }
#pragma unroll
            for (int jj = 0; jj < NC; jj++) x[jj] = oscar_bf16_to_f32(oscar_f32_to_bf16(x[jj]));
        } else {
#pragma unroll
            for (int jj = 0; jj < NC; jj++) x[jj] = oscar_bf16_to_f32(ringrow[lane + 32 * jj]);
        }
        return true;
    };
    for (int r0 = warp * OSCAR_APPEND_NR; r0 < TR; r0 += AW * OSCAR_APPEND_NR) {
        if (job0 + r0 >= p.n_jobs) break; // warp-uniform; no block barriers below
        float x[OSCAR_APPEND_NR][NC];
        int slot[OSCAR_APPEND_NR], pos[OSCAR_APPEND_NR], page[OSCAR_APPEND_NR];
        oscar_u16 *ringrow[OSCAR_APPEND_NR];
        bool valid[OSCAR_APPEND_NR], all = true;
#pragma unroll
        for (int rr = 0; rr < OSCAR_APPEND_NR; rr++) {
            valid[rr] = row_in(r0 + rr, x[rr], slot[rr], pos[rr], page[rr], ringrow[rr]);
            all = all && valid[rr] && page[rr] >= 0;
        }
#if OSCAR_APPEND_PROF == 2
        for (int rr = 0; rr < OSCAR_APPEND_NR; rr++)
            if (valid[rr] && x[rr][0] == 1.2345e-30f) atomicOr((unsigned int *)p.err, 4u);
        continue;
#endif
#if OSCAR_INT2 && OSCAR_APPEND_NR > 1
        if (all) { // rows to pages: NR independent chains
            oscar__codec<OSCAR_APPEND_NR>(p, x, isv, head, pos, page, cs, lane);
            continue;
        }
#endif
#pragma unroll
        for (int rr = 0; rr < OSCAR_APPEND_NR; rr++)
            if (valid[rr]) oscar__row_out(p, x[rr], isv, head, slot[rr], pos[rr], page[rr], ringrow[rr], cs, lane);
    }
}

extern "C" __global__ void OSCAR_APPEND_BOUNDS oscar_append(const oscar_append_params p) {
    __shared__ __align__(16) float xs[D * TR];
    __shared__ __align__(16) float rs[KC * D];
    __shared__ float s_ss[AW * 32];
    __shared__ int s_bad[AW * 32];
    oscar__append_impl<0>(p, xs, rs, s_ss, s_bad);
}

#ifndef OSCAR_APPEND_WHT_MINB // blocks per SM for the H-rotation kernel (no tile buffers: registers decide)
#define OSCAR_APPEND_WHT_MINB 8
#endif
// caches whose rotations are all H (the host launches it when p.wht): 512 B of shared memory per block
extern "C" __global__ void __launch_bounds__(AW * 32, OSCAR_APPEND_WHT_MINB) oscar_append_wht(const oscar_append_params p) {
    __shared__ __align__(16) float cb[AW * OSCAR_APPEND_NR * D / 4];
    oscar__append_impl<1>(p, (float *)0, cb, (float *)0, (int *)0);
}



// ---------------------------------------------------------------------------------------------
// oscar_append_mma: the flush launch (every row of it goes to an INT2 page) on tensor cores,
// with the same bits as the CPU.
//
// The CPU rotates a row with a chain of d rounded multiplies and adds (2 d^2 fp32 instructions
// per row: at least 2 ms for a 128K-token prefill of 8 heads on an H100). Here each warp takes
// 16 rows and computes Y = X R approximately with fp16 MMAs (X and R each split into an fp16 high
// and low part, three products, fp32 accumulation: relative error ~2^-20), with a bound delta per
// row on |Y_mma - Y_cpu|. Every quantity the codec stores is a monotone function of the
// BF16-rounded rows, so each element is known as an interval [bf16(y - delta), bf16(y + delta)]
// (one value for most elements), held as two packed BF16 words per column pair, and each
// decision is taken on the intervals with packed BF16 instructions: the clip threshold as the
// kth largest low end (bisection on packed counts, verified by one count of high ends), group
// min / max on both ends, codes against three exact BF16 boundaries per group (the smallest
// value whose code, by the CPU's formula, reaches 1, 2, 3). Where an interval leaves a decision
// open, the elements that can change it are computed with the CPU's own chain (__fmul_rn /
// __fadd_rn in increasing i) and everything is decided again. The stored codes and scales
// therefore equal the CPU's.
//
// delta = 2^OSCAR_APPEND_DELTA_LOG2 * ||x||_2 * max_j ||R[:, j]||_2: the CPU chain's own error is
// at most ~129 * 2^-24 * sum_i |x_i R_ij| <= 2^-17 ||x|| ||R_j||, the split leaves ~3 * 2^-22 and
// the MMA accumulation a few fp32 ulps of the partial sums per step (its exact rounding is not
// documented). Default 2^-15; pages were byte-identical on the H100 down to 2^-17, and a larger
// delta (-DOSCAR_APPEND_DELTA_LOG2=-7 via OSCAR_CUDA_NVRTC_OPTIONS) sends many more decisions to
// the exact chain, which exercises it.
//
// Layout: lane (g, t) of a warp holds rows g and g + 8 of its 16, columns 8n + 2t + {0, 1}
// (n = 0 .. D/8-1): the MMA accumulator layout. Row reductions are two shuffles in the quad.
// R (high, low) sits in dynamic shared memory as B fragments for ldmatrix, [column][k] with k
// permuted so that a lane's A fragment is one float4 of x per k step, 16-byte chunks swizzled.
// ---------------------------------------------------------------------------------------------
#ifndef OSCAR_APPEND_STATS
#define OSCAR_APPEND_STATS 0 // 1: counters in err[1..3]; 2: also clock cycles per phase in err[4..19] (bench --diag prints them)
#endif
#ifndef OSCAR_APPEND_DELTA_LOG2
#define OSCAR_APPEND_DELTA_LOG2 (-15)
#endif
#if OSCAR__MMA_ON
#define MNT (D / 8) // n-tiles (8 columns each) per row
#define RJ 4        // exact-chain jobs a lane puts in one batch
#define ALLE (MNT == 16 ? 0xffffffffu : (1u << (2 * MNT)) - 1u) // every element bit of a lane's row
#define NBW (6 * NGR) // code boundaries per lane: 2 rows x NGR groups x 3

static __device__ __forceinline__ float oscar__pow2(int e) { return __int_as_float((e + 127) << 23); } // -126 <= e <= 127
static __device__ __forceinline__ int oscar__qsum(int v) {
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    return v + __shfl_xor_sync(0xffffffffu, v, 2);
}
static __device__ __forceinline__ int oscar__qmin(int v) {
    v = min(v, __shfl_xor_sync(0xffffffffu, v, 1));
    return min(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
static __device__ __forceinline__ int oscar__qmax(int v) {
    v = max(v, __shfl_xor_sync(0xffffffffu, v, 1));
    return max(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
static __device__ __forceinline__ void oscar__ldsm4(oscar_u32 (&r)[4], const void *p) {
    const oscar_u32 s = (oscar_u32)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
// element (column n, permuted k) of a B matrix in shared memory
static __device__ __forceinline__ int oscar__bswz(int n, int k) { return n * D + ((((k >> 3) ^ (n & 7))) << 3) + (k & 7); }

// #{halves >= v} over the quad's row (v: a non-negative BF16 value's bits)
static __device__ __forceinline__ int oscar__cnt_ge(const oscar_u32 (&k)[MNT], oscar_u32 v) {
    const oscar_u32 v2 = v * 0x10001u;
    oscar_u32 a4[4] = {0u, 0u, 0u, 0u}; // minus the masks: low half counts A, high half B - A
#pragma unroll
    for (int n = 0; n < MNT; n++) a4[n & 3] -= oscar__bge2(k[n], v2);
    const oscar_u32 acc = (a4[0] + a4[1]) + (a4[2] + a4[3]);
    return oscar__qsum((int)(((acc >> 16) + 2u * (acc & 0xffffu)) & 0xffffu));
}
#if OSCAR_APPEND_STATS >= 2 // per-phase clock cycles, summed over warps, in err[4..19] (8 x u64)
#define OSCAR_PH(i) { const long long c_ = clock64(); ph[i] += c_ - ph_t; ph_t = c_; }
#else
#define OSCAR_PH(i)
#endif
#ifndef OSCAR_APPEND_MMA_WARPS
#define OSCAR_APPEND_MMA_WARPS 12 // warps per block (the host reads the block size from the kernel)
#endif
#ifndef OSCAR_APPEND_MMA_MINB
#define OSCAR_APPEND_MMA_MINB (12 / OSCAR_APPEND_MMA_WARPS) // resident blocks per SM the registers must allow: 12 warps per SM (168 registers, a little spilled)
#endif
#define MW OSCAR_APPEND_MMA_WARPS
// The warps of a block share one copy of R in shared memory and start each round of tiles
// together (one barrier), so they run the same stretch of this long kernel at the same time and
// share the instruction cache.
extern "C" __global__ void __launch_bounds__(32 * MW, OSCAR_APPEND_MMA_MINB) oscar_append_mma(const oscar_append_params p) {
#if OSCAR_APPEND_STATS >= 2
    long long ph[8] = {0, 0, 0, 0, 0, 0, 0, 0}, ph_t = clock64();
#endif
    extern __shared__ __align__(16) oscar_u16 oscar_bsm[]; // [2][D][D]: R high, R low (fp16, scaled by 2^sr)
    __shared__ float s_red[2];
    __shared__ const float *s_xrow[MW][16];
    __shared__ int s_job[MW][32 * RJ];
    __shared__ float s_res[MW][32 * RJ];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;
    const float *X = (const float *)(isv ? p.v : p.k);
    const float *R = (const float *)(isv ? p.vrot : p.krot) + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? head : 0)) * D * D;
    oscar_u16 *Bh = oscar_bsm, *Bl = oscar_bsm + D * D;
    // ---- R -> fp16 high / low B fragments; the largest column norm and entry ----
    if (tid < 2) s_red[tid] = 0.0f;
    __syncthreads();
    if (tid < D) {
        float ss = 0.0f, mx = 0.0f;
        for (int i = 0; i < D; i++) {
            const float v = R[(size_t)i * D + tid];
            ss += v * v;
            mx = fmaxf(mx, fabsf(v));
        }
        atomicMax((int *)&s_red[0], __float_as_int(ss));
        atomicMax((int *)&s_red[1], __float_as_int(mx));
    }
    __syncthreads();
    const int er = (__float_as_int(s_red[1]) >> 23) & 0xff;
    const int sr = er ? 141 - er : 0;                              // max |R| 2^sr in [2^14, 2^15)
    const float cmax = sqrtf(s_red[0]) * 1.001f * oscar__pow2(min(sr, 127)); // in the scaled domain
    for (int idx = tid; idx < D * D; idx += 32 * MW) {
        const int i = idx / D, n = idx % D, pp = i & 15, a = pp >> 2, b = pp & 3;
        const int k = (i & ~15) + (b < 2 ? 2 * a + b : 8 + 2 * a + (b - 2));
        const float v = R[idx] * oscar__pow2(min(sr, 127));
        oscar_u32 h, l;
        oscar_h2_split(v, 0.0f, &h, &l);
        Bh[oscar__bswz(n, k)] = (oscar_u16)(h & 0xffffu);
        Bl[oscar__bswz(n, k)] = (oscar_u16)(l & 0xffffu);
    }
    __syncthreads();
    const int cidx = oscar__clip_idx(isv ? p.v_clip : p.k_clip), kth = cidx < 0 ? 0 : D - cidx; // clip: the kth largest |value|
    const int n_mt = (p.n_jobs + 15) >> 4;
    // the lane's two rows of tile mt: job, page, input row (or ring row), and the input itself;
    // the next tile's are fetched at the end of each round, before the barrier
    int pos[2], page[2];
    bool valid[2];
    const float *xrow[2];
    const oscar_u32 *ringw[2];
    float4 xv[2][D / 16];
    auto fetch = [&](int mt) {
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const long long job = (long long)mt * 16 + g + 8 * r;
            valid[r] = job < p.n_jobs;
            pos[r] = 0, page[r] = 0, xrow[r] = 0, ringw[r] = 0;
            if (valid[r]) {
                const int4 jb = oscar__job(p, job);
                pos[r] = jb.z, page[r] = jb.w;
                if (jb.x < 0) { // from the ring: already rotated and BF16
                    const size_t slab = ((size_t)jb.y * p.L + p.layer) * p.Hkv + head;
                    ringw[r] = (const oscar_u32 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((jb.z - p.S0) % p.ring)) * (D / 2);
                } else xrow[r] = X + ((size_t)jb.x * p.Hkv + head) * D;
            }
        }
#pragma unroll
        for (int r = 0; r < 2; r++)
#pragma unroll
            for (int kk = 0; kk < D / 16; kk++)
                xv[r][kk] = xrow[r] ? ((const float4 *)xrow[r])[4 * kk + t] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    };
    fetch(blockIdx.x * MW + warp);
    for (int mt0 = blockIdx.x * MW; mt0 < n_mt; mt0 += gridDim.x * MW) { // every warp of the block takes every round
        const int mt = mt0 + warp;
        __syncthreads();
        // ---- row statistics: finite, range, scale to max |x| in [2^14, 2^15) ----
        int sx[2];
        bool allx[2]; // every element must come from the exact chain (tiny rows)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float mx = 0.0f;
            float ss = 0.0f;
            int bad = 0;
#pragma unroll
            for (int kk = 0; kk < D / 16; kk++) {
                const float4 v = xv[r][kk];
                bad |= !isfinite(v.x) | !isfinite(v.y) | !isfinite(v.z) | !isfinite(v.w);
                mx = fmaxf(mx, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
                ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
            }
            bad = oscar__qmax(bad);
            mx = __int_as_float(oscar__qmax(__float_as_int(mx)));
            ss += __shfl_xor_sync(0xffffffffu, ss, 1);
            ss += __shfl_xor_sync(0xffffffffu, ss, 2);
            allx[r] = false;
            sx[r] = 0;
            if (xrow[r]) {
                unsigned int ebits = bad ? OSCAR_ERR_BIT_NONFINITE : 0u;
                if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;
                const int ex = (__float_as_int(mx) >> 23) & 0xff;
                if (ebits || ex == 0) { // stored as zeros (as the tiled kernel does), or an all-zero / subnormal row
                    if (ebits && t == 0) atomicOr((unsigned int *)p.err, ebits);
                    if (ebits || mx == 0.0f) xrow[r] = 0;
                    else allx[r] = true;
                } else if (ex < 67) allx[r] = true; // below 2^-60: the exact chain for every element
                else sx[r] = 141 - ex;
                if (!xrow[r] || allx[r]) {
#pragma unroll
                    for (int kk = 0; kk < D / 16; kk++) xv[r][kk] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                }
            }
        }
        OSCAR_PH(0)
        // ---- x scaled by 2^sx and split into fp16 high / low A fragments ----
        uint4 ah[D / 16], al[D / 16];
        float ssq[2] = {0.0f, 0.0f};
        {
            const float fa = oscar__pow2(min(sx[0], 127)), fb = oscar__pow2(min(sx[1], 127));
#pragma unroll
            for (int kk = 0; kk < D / 16; kk++) {
                const float4 a = xv[0][kk], b = xv[1][kk];
                const float a0 = a.x * fa, a1 = a.y * fa, a2 = a.z * fa, a3 = a.w * fa;
                const float b0 = b.x * fb, b1 = b.y * fb, b2 = b.z * fb, b3 = b.w * fb;
                ssq[0] += a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
                ssq[1] += b0 * b0 + b1 * b1 + b2 * b2 + b3 * b3;
                oscar_h2_split(a0, a1, &ah[kk].x, &al[kk].x);
                oscar_h2_split(b0, b1, &ah[kk].y, &al[kk].y);
                oscar_h2_split(a2, a3, &ah[kk].z, &al[kk].z);
                oscar_h2_split(b2, b3, &ah[kk].w, &al[kk].w);
            }
        }
        // ---- Y ~= X R, 16 columns at a time: three fp16 products (hi hi, hi lo, lo hi) per k
        // step. Each element becomes an interval [lo, hi] of BF16 values, two per word (lo ==
        // hi: the value is known): [bf16(y - delta), bf16(y + delta)] around the MMA's y ----
        oscar_u32 lo2[2][MNT], hi2[2][MNT], need[2] = {0u, 0u};
        float dl[2], u2[2];
        bool mmar[2];
        const float u1 = oscar__pow2(-min(sr, 126));
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float s2 = ssq[r];
            s2 += __shfl_xor_sync(0xffffffffu, s2, 1);
            s2 += __shfl_xor_sync(0xffffffffu, s2, 2);
            // back to the input's scale: 2^-sr, then 2^-sx (two steps, each a normal power of two)
            u2[r] = oscar__pow2(-sx[r]);
            dl[r] = sqrtf(s2) * cmax * oscar__pow2(OSCAR_APPEND_DELTA_LOG2) * u1 * u2[r];
            mmar[r] = xrow[r] && !allx[r];
            if (!mmar[r]) {
#pragma unroll
                for (int n = 0; n < MNT; n++) lo2[r][n] = hi2[r][n] = ringw[r] ? ringw[r][4 * n + t] : 0u;
                if (allx[r]) need[r] = ALLE; // zeros until the exact chain fills them
            }
        }
#pragma unroll
        for (int np = 0; np < MNT / 2; np++) {
            float acc[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
            for (int kk = 0; kk < D / 16; kk++) {
                const int n = 16 * np + (lane >> 4) * 8 + (lane & 7), k = 16 * kk + ((lane >> 3) & 1) * 8;
                oscar_u32 bh[4], bl[4];
                oscar__ldsm4(bh, Bh + oscar__bswz(n, k));
                oscar__ldsm4(bl, Bl + oscar__bswz(n, k));
#pragma unroll
                for (int j = 0; j < 2; j++) {
                    oscar_mma_f16(acc[j], al[kk], bh[2 * j], bh[2 * j + 1]);
                    oscar_mma_f16(acc[j], ah[kk], bl[2 * j], bl[2 * j + 1]);
                    oscar_mma_f16(acc[j], ah[kk], bh[2 * j], bh[2 * j + 1]);
                }
            }
#pragma unroll
            for (int j = 0; j < 2; j++)
#pragma unroll
                for (int r = 0; r < 2; r++)
                    if (mmar[r]) {
                        const float y0 = acc[j][2 * r] * u1 * u2[r], y1 = acc[j][2 * r + 1] * u1 * u2[r];
                        lo2[r][2 * np + j] = oscar__bf2(__fsub_rd(y0, dl[r]), __fsub_rd(y1, dl[r]));
                        hi2[r][2 * np + j] = oscar__bf2(__fadd_ru(y0, dl[r]), __fadd_ru(y1, dl[r]));
                    }
        }
        OSCAR_PH(1)
        // the warp's rows (input pointers) for the exact chain's jobs
        if (t == 0) {
            s_xrow[warp][g] = xrow[0];
            s_xrow[warp][g + 8] = xrow[1];
        }
        __syncwarp();
        // ---- decisions. Each one is taken on the intervals; where one is open, the elements
        // that can change it are computed with the CPU's chain (__fmul_rn / __fadd_rn in
        // increasing i) and everything is decided again (rare: ~0.2 elements per row) ----
        oscar_u32 thr2[2] = {0u, 0u};     // the clip threshold (BF16 bits, both halves)
        oscar_u32 sw[2][NGR];             // fp16 scale | fp16 min << 16 per group
        oscar_u32 cw[2][MNT / 4];         // packed codes: byte for column 8n+2t (bits 0-7), +1 (bits 16-23)
        for (;;) {
            // -- clip threshold: the kth largest |value|. With L, H the ends of |interval|: T_L =
            // kth largest L is the answer when fewer than kth elements have H > T_L --
            if (kth > 0) {
                oscar_u32 L[2][MNT], lo[2], hi[2];
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    oscar_u32 m2 = 0u;
#pragma unroll
                    for (int n = 0; n < MNT; n++) {
                        const oscar_u32 a = lo2[r][n] & 0x7fff7fffu, b = hi2[r][n] & 0x7fff7fffu;
                        L[r][n] = oscar__bmin2(a, b) & ~oscar__sgn2(lo2[r][n] ^ hi2[r][n]); // 0 where the interval holds 0
                        m2 = oscar__bmax2(m2, L[r][n]);
                    }
                    const oscar_u32 top = (oscar_u32)oscar__qmax((int)max(m2 & 0xffffu, m2 >> 16));
                    lo[r] = top > 384u ? top - 384u : 0u; // three octaves below the largest
                    hi[r] = top + 1u;
                    if (oscar__cnt_ge(L[r], lo[r]) < kth) hi[r] = lo[r], lo[r] = 0u;
                    if (hi[r] == 0u) hi[r] = 1u;
                }
                for (;;) { // bisection: #{L >= lo} >= kth > #{L >= hi}
                    const bool open = hi[0] - lo[0] > 1u || hi[1] - lo[1] > 1u;
                    if (!__any_sync(0xffffffffu, open)) break;
#pragma unroll
                    for (int r = 0; r < 2; r++) {
                        const oscar_u32 mid = (lo[r] + hi[r]) >> 1;
                        const int c = oscar__cnt_ge(L[r], mid);
                        if (hi[r] - lo[r] > 1u) {
                            if (c >= kth) lo[r] = mid;
                            else hi[r] = mid;
                        }
                    }
                }
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    oscar_u32 H[MNT];
#pragma unroll
                    for (int n = 0; n < MNT; n++) H[n] = oscar__bmax2(lo2[r][n] & 0x7fff7fffu, hi2[r][n] & 0x7fff7fffu);
                    const bool chk = oscar__cnt_ge(H, lo[r] + 1u) >= kth && valid[r];
                    thr2[r] = lo[r] * 0x10001u;
                    oscar_u32 add = 0u;
                    if (chk) { // open: the elements with L <= T_L < H (at least one exists)
                        const oscar_u32 T21 = (lo[r] + 1u) * 0x10001u;
#pragma unroll
                        for (int n = 0; n < MNT; n++) {
                            const oscar_u32 m = ~oscar__bge2(L[r][n], T21) & oscar__bge2(H[n], T21);
                            add |= ((m & 1u) | ((m >> 15) & 2u)) << (2 * n);
                        }
                    }
                    need[r] |= add;
#if OSCAR_APPEND_STATS // err[3]: rows whose clip threshold was open with no element to resolve (cannot happen)
                    if (oscar__qmax(add != 0u) == 0 && chk && t == 0) atomicAdd((unsigned int *)p.err + 3, 1u);
#endif
                }
            }
            bool open = __any_sync(0xffffffffu, (need[0] | need[1]) != 0u);
            OSCAR_PH(2)
            // -- clamp; group min / max (known when the ends of the intervals agree) --
            float gmn[2][NGR], gmx[2][NGR];
            if (!open) {
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    const oscar_u32 T2 = thr2[r];
#pragma unroll
                    for (int gi = 0; gi < NGR; gi++) {
                        oscar_u32 mnl = 0x7f807f80u, mnh = 0x7f807f80u, mxl = 0xff80ff80u, mxh = 0xff80ff80u;
#pragma unroll
                        for (int n = gi * (GS / 8); n < (gi + 1) * (GS / 8); n++) {
                            oscar_u32 a = lo2[r][n], b = hi2[r][n];
                            if (kth > 0) a = oscar__clamp2(a, T2), b = oscar__clamp2(b, T2);
                            mnl = oscar__bmin2(mnl, a), mnh = oscar__bmin2(mnh, b);
                            mxl = oscar__bmax2(mxl, a), mxh = oscar__bmax2(mxh, b);
                        }
                        float f[4] = {fminf(oscar__bh(mnl, 0), oscar__bh(mnl, 1)), fminf(oscar__bh(mnh, 0), oscar__bh(mnh, 1)),
                                      fmaxf(oscar__bh(mxl, 0), oscar__bh(mxl, 1)), fmaxf(oscar__bh(mxh, 0), oscar__bh(mxh, 1))};
#pragma unroll
                        for (int o = 1; o <= 2; o <<= 1) {
                            f[0] = fminf(f[0], __shfl_xor_sync(0xffffffffu, f[0], o));
                            f[1] = fminf(f[1], __shfl_xor_sync(0xffffffffu, f[1], o));
                            f[2] = fmaxf(f[2], __shfl_xor_sync(0xffffffffu, f[2], o));
                            f[3] = fmaxf(f[3], __shfl_xor_sync(0xffffffffu, f[3], o));
                        }
                        gmn[r][gi] = f[0], gmx[r][gi] = f[3];
                        if (valid[r] && (f[0] != f[1] || f[2] != f[3])) {
                            // open: the elements that can be the min (lo < min of hi) or the max
#pragma unroll
                            for (int n = gi * (GS / 8); n < (gi + 1) * (GS / 8); n++)
#pragma unroll
                                for (int h = 0; h < 2; h++) {
                                    float a = oscar__bh(lo2[r][n], h), b = oscar__bh(hi2[r][n], h);
                                    if (kth > 0) a = oscar__clampf(a, oscar__bh(T2, 0)), b = oscar__clampf(b, oscar__bh(T2, 0));
                                    if (a != b && ((f[0] != f[1] && a < f[1]) || (f[2] != f[3] && b > f[2]))) need[r] |= 1u << (2 * n + h);
                                }
                        }
                    }
                }
                open = __any_sync(0xffffffffu, (need[0] | need[1]) != 0u);
            }
            // -- a min or max of 0: the CPU keeps the first element (in column order) that
            // reaches it, so its sign is that element's (the clamp keeps the sign of a zero) --
            if (!open) {
                bool zc = false;
#pragma unroll
                for (int r = 0; r < 2; r++)
#pragma unroll
                    for (int gi = 0; gi < NGR; gi++) zc |= valid[r] && (gmn[r][gi] == 0.0f || gmx[r][gi] == 0.0f);
                if (__any_sync(0xffffffffu, zc)) {
#pragma unroll
                    for (int r = 0; r < 2; r++)
#pragma unroll
                        for (int gi = 0; gi < NGR; gi++) {
                            const float th = oscar__bh(thr2[r], 0);
                            int fmn = 0x7fffffff, fmx = 0x7fffffff; // (column << 1) | sign of the first zero
#pragma unroll
                            for (int n = gi * (GS / 8); n < (gi + 1) * (GS / 8); n++)
#pragma unroll
                                for (int h = 0; h < 2; h++) {
                                    float a = oscar__bh(lo2[r][n], h), b = oscar__bh(hi2[r][n], h);
                                    if (kth > 0) a = oscar__clampf(a, th), b = oscar__clampf(b, th);
                                    const int key = ((8 * n + 2 * t + h) << 1) | (int)((lo2[r][n] >> (16 * h + 15)) & 1u);
                                    if (gmn[r][gi] == 0.0f && a == 0.0f) {
                                        if (b != 0.0f) need[r] |= 1u << (2 * n + h);
                                        fmn = min(fmn, key);
                                    }
                                    if (gmx[r][gi] == 0.0f && b == 0.0f) {
                                        if (a != 0.0f) need[r] |= 1u << (2 * n + h);
                                        fmx = min(fmx, key);
                                    }
                                }
                            fmn = oscar__qmin(fmn), fmx = oscar__qmin(fmx);
                            if (valid[r] && gmn[r][gi] == 0.0f) gmn[r][gi] = (fmn & 1) ? -0.0f : 0.0f;
                            if (valid[r] && gmx[r][gi] == 0.0f) gmx[r][gi] = (fmx & 1) ? -0.0f : 0.0f;
                        }
                    open = __any_sync(0xffffffffu, (need[0] | need[1]) != 0u);
                }
            }
            OSCAR_PH(3)
            // -- scales, code boundaries, codes --
            if (!open) {
                float gs[2][NGR], gm[2][NGR];
#pragma unroll
                for (int r = 0; r < 2; r++)
#pragma unroll
                    for (int gi = 0; gi < NGR; gi++) {
                        const float scale = (gmx[r][gi] - gmn[r][gi]) / 3.0f;
                        const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[r][gi]);
                        gs[r][gi] = oscar_f16_to_f32(s16), gm[r][gi] = oscar_f16_to_f32(m16);
                        sw[r][gi] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);
                    }
                // boundary j = (r * NGR + gi) * 3 + q - 1, computed by lane j % 4 of the quad
                oscar_u32 bres[(NBW + 3) / 4];
#pragma unroll
                for (int rd = 0; rd < (NBW + 3) / 4; rd++) {
                    const int j = 4 * rd + t, rg = j / 3, q = j % 3 + 1;
                    float s = 0.0f, m = 0.0f;
#pragma unroll
                    for (int c = 0; c < 2 * NGR; c++)
                        if (c == rg) s = gs[c / NGR][c % NGR], m = gm[c / NGR][c % NGR];
                    bres[rd] = j < NBW ? oscar__bound(m, s, q) : 0u;
                }
                OSCAR_PH(4)
                oscar_u32 bnd[2][NGR][3];
#pragma unroll
                for (int j = 0; j < NBW; j++) {
                    const oscar_u32 b = __shfl_sync(0xffffffffu, bres[j >> 2], (lane & ~3) | (j & 3));
                    bnd[j / (3 * NGR)][(j / 3) % NGR][j % 3] = b * 0x10001u;
                }
#pragma unroll
                for (int r = 0; r < 2; r++) {
#pragma unroll
                    for (int n4 = 0; n4 < MNT / 4; n4++) cw[r][n4] = 0u;
#pragma unroll
                    for (int n = 0; n < MNT; n++) {
                        const int gi = n / (GS / 8);
                        oscar_u32 a = lo2[r][n], b = hi2[r][n];
                        if (kth > 0) a = oscar__clamp2(a, thr2[r]), b = oscar__clamp2(b, thr2[r]);
                        const oscar_u32 l1 = oscar__bge2(a, bnd[r][gi][0]), l2 = oscar__bge2(a, bnd[r][gi][1]), l3 = oscar__bge2(a, bnd[r][gi][2]);
                        const oscar_u32 h1 = oscar__bge2(b, bnd[r][gi][0]), h2 = oscar__bge2(b, bnd[r][gi][1]), h3 = oscar__bge2(b, bnd[r][gi][2]);
                        const oscar_u32 dm = (l1 ^ h1) | (l2 ^ h2) | (l3 ^ h3);
                        need[r] |= ((dm & 1u) | ((dm >> 15) & 2u)) << (2 * n);
                        // codes are thermometer sums: bit 0 = l1 ^ l2 ^ l3, bit 1 = l2
                        const oscar_u32 cq = ((l1 ^ l2 ^ l3) & 0x00010001u) | (l2 & 0x00020002u);
                        cw[r][n % (MNT / 4)] |= cq << (2 * (n / (MNT / 4)));
                    }
                }
                open = __any_sync(0xffffffffu, (need[0] | need[1]) != 0u);
            }
            OSCAR_PH(5)
            if (!open) break;
            // -- the exact chain for every flagged element of the warp: one job list, the
            // lanes take 32 jobs at a time (at most RJ per lane per batch) --
            for (;;) {
                oscar_u32 take[2] = {0u, 0u};
                int nj = 0;
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    oscar_u32 m = need[r];
                    while (m && nj < RJ) {
                        take[r] |= m & (0u - m);
                        m &= m - 1u;
                        nj++;
                    }
                }
                int off = nj;
#pragma unroll
                for (int o = 1; o < 32; o <<= 1) {
                    const int v = __shfl_up_sync(0xffffffffu, off, o);
                    if (lane >= o) off += v;
                }
                const int total = __shfl_sync(0xffffffffu, off, 31);
                if (total == 0) break;
#if OSCAR_APPEND_STATS // err[1]: elements sent to the exact chain, err[2]: batches
                if (lane == 0) atomicAdd((unsigned int *)p.err + 1, (unsigned int)total), atomicAdd((unsigned int *)p.err + 2, 1u);
#endif
                off -= nj;
                {
                    int j = off;
#pragma unroll
                    for (int r = 0; r < 2; r++) {
                        oscar_u32 m = take[r];
                        while (m) {
                            const int f = __ffs(m) - 1;
                            m &= m - 1u;
                            s_job[warp][j++] = (g + 8 * r) | (8 * (f >> 1) + 2 * t + (f & 1)) << 8;
                        }
                    }
                }
                __syncwarp();
                for (int j = lane; j < total; j += 32) {
                    const int jb = s_job[warp][j], c = jb >> 8;
                    const float *xr = s_xrow[warp][jb & 255], *rc = R + c;
                    float e = 0.0f;
                    for (int i0 = 0; i0 < D; i0 += 32) { // 32 + 8 loads in flight, then the chain
                        float rv[32];
                        float4 xq[8];
#pragma unroll
                        for (int u = 0; u < 32; u++) rv[u] = __ldg(rc + (size_t)(i0 + u) * D);
#pragma unroll
                        for (int u = 0; u < 8; u++) xq[u] = __ldg((const float4 *)(xr + i0) + u);
#pragma unroll
                        for (int u = 0; u < 8; u++) {
                            e = __fadd_rn(e, __fmul_rn(xq[u].x, rv[4 * u]));
                            e = __fadd_rn(e, __fmul_rn(xq[u].y, rv[4 * u + 1]));
                            e = __fadd_rn(e, __fmul_rn(xq[u].z, rv[4 * u + 2]));
                            e = __fadd_rn(e, __fmul_rn(xq[u].w, rv[4 * u + 3]));
                        }
                    }
                    s_res[warp][j] = e;
                }
                __syncwarp();
                {
                    int j = off;
#pragma unroll
                    for (int r = 0; r < 2; r++) {
#pragma unroll
                        for (int n = 0; n < MNT; n++) {
                            const oscar_u32 tk = (take[r] >> (2 * n)) & 3u;
                            if (tk) { // one branch per word (both halves)
                                const oscar_u32 b0 = oscar_f32_to_bf16(s_res[warp][j]), b1 = oscar_f32_to_bf16(s_res[warp][j + (tk & 1u)]);
                                const oscar_u32 v = (tk == 3u) ? b0 | (b1 << 16) : (tk == 1u ? b0 : b0 << 16);
                                const oscar_u32 sel = (tk & 1u ? 0x0000ffffu : 0u) | (tk & 2u ? 0xffff0000u : 0u);
                                lo2[r][n] = (lo2[r][n] & ~sel) | v;
                                hi2[r][n] = (hi2[r][n] & ~sel) | v;
                                j += (int)(tk & 1u) + (int)(tk >> 1);
                            }
                        }
                        need[r] &= ~take[r];
                    }
                }
                __syncwarp();
            }
            OSCAR_PH(6)
        }
        // ---- store: byte b = q[b] | q[b + D/4] << 2 | q[b + D/2] << 4 | q[b + 3D/4] << 6; the
        // lane holds bytes 8n + 2t + {0, 1} for n < D/32 ----
#pragma unroll
        for (int r = 0; r < 2; r++) {
            if (!valid[r]) continue;
            oscar_u32 *sm;
            oscar_u8 *codes = oscar__page_row(p, page[r], head, isv, pos[r], &sm);
#pragma unroll
            for (int n = 0; n < MNT / 4; n++) *(oscar_u16 *)(codes + 8 * n + 2 * t) = (oscar_u16)__byte_perm(cw[r][n], 0u, 0x0020u);
            if (t == 0) {
#pragma unroll
                for (int gi = 0; gi < NGR; gi++) sm[gi] = sw[r][gi];
            }
        }
        OSCAR_PH(7)
        fetch(mt + gridDim.x * MW);
    }
#if OSCAR_APPEND_STATS >= 2
    if (lane == 0)
        for (int i = 0; i < 8; i++) atomicAdd((unsigned long long *)((unsigned int *)p.err + 4) + i, (unsigned long long)ph[i]);
#endif
}
#define OSCAR__APPEND_MMA_BUILT 1
#endif
#ifndef OSCAR__APPEND_MMA_BUILT
#define OSCAR__APPEND_MMA_BUILT 0
#endif
// whether this build has oscar_append_mma (the host reads it instead of asking for a missing symbol)
extern "C" __device__ int oscar_append_mma_built = OSCAR__APPEND_MMA_BUILT;

// ---------------------------------------------------------------------------------------------
// oscar_append_fwht: both launches of an append (the flush: every row to an INT2 page; the
// write: sink and window rows in BF16) for caches whose rotations are all H, with the CPU's bits. The warp-per-row kernels spend most of their
// instructions on warp-wide steps that serve one row at a time (the shuffled butterflies, one
// redux per clip round, one division per element); here FT = D / 32 threads own a row, 32 values
// each, so a warp works on 32 / FT rows at once and most steps are per-thread arithmetic:
// - thread t of a row holds the 4-value runs c = 4 FT i + 4 t + {0..3}, i = 0..7 (one float4
//   load per i); the transform's butterflies of lengths 1, 2 and 4 FT .. D / 2 stay in the
//   thread, lengths 4 .. 2 FT are shuffles inside the row's FT lanes (butterflies in the CPU's
//   order of lengths, so the same bits);
// - values are then BF16 pairs (the cache's rounding), and the codec runs on packed BF16:
//   the clip threshold is the k-th largest |x| by bisection on BF16 keys over packed counts
//   (one set + one add per two values and step; the first step brackets the top octave),
//   clamp and group min / max by min/max.bf16x2, codes by comparing with the three exact BF16
//   boundaries of the group (oscar__bound: the smallest value whose code by the CPU's formula
//   reaches 1, 2, 3), the code bytes assembled from the compare masks by byte permutes.
// - a group's min or max that is zero takes the sign of its first zero in column order (the
//   CPU's loop keeps the first of equal values); a zero threshold clamps to signed zeros.
// Needs sm_90 (set / add on bf16x2) and groups of at least D / 8 channels (a run of 4 FT values
// lies in one group). Grid (ceil(n_jobs / FR), Hkv * 2), 128 threads.
// ---------------------------------------------------------------------------------------------
#if OSCAR__FCODEC
extern "C" __global__ void __launch_bounds__(128, OSCAR_FWHT_MINB) oscar_append_fwht(const oscar_append_params p) {
    const int tid = threadIdx.x, t = tid % FT, lane = tid & 31;
    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;
    const long long job = (long long)blockIdx.x * FR + tid / FT;
    const bool valid = job < p.n_jobs;
    const int4 jb = oscar__fjob(p, job);
    const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;
    // ---- the row: fp32 input (rotated here) or the BF16 ring row (rotated when it was written) ----
    float x[8][4];
    float ss = 0.0f;
    if (valid && src >= 0) {
        const float4 *row = (const float4 *)((const float *)(isv ? p.v : p.k) + ((size_t)src * p.Hkv + head) * D) + t;
        float4 v4[8];
#pragma unroll
        for (int i = 0; i < 8; i++) v4[i] = row[FT * i];
#pragma unroll
        for (int i = 0; i < 8; i++) {
            x[i][0] = v4[i].x, x[i][1] = v4[i].y, x[i][2] = v4[i].z, x[i][3] = v4[i].w;
#pragma unroll
            for (int e = 0; e < 4; e++) ss = __fmaf_rn(x[i][e], x[i][e], ss);
        }
    } else {
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int e = 0; e < 4; e++) x[i][e] = 0.0f;
    }
#pragma unroll
    for (int o = 1; o < FT; o <<= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    // a non-finite row, or one whose norm exceeds 32768, is stored as zeros and reported
    const bool bad = valid && src >= 0 && !(ss <= 32768.0f * 32768.0f);
    int nf = 0;
    if (bad) {
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int e = 0; e < 4; e++) nf |= !isfinite(x[i][e]);
    }
#pragma unroll
    for (int o = 1; o < FT; o <<= 1) nf |= __shfl_xor_sync(0xffffffffu, nf, o);
    if (bad && t == 0) atomicOr((unsigned int *)p.err, nf ? OSCAR_ERR_BIT_NONFINITE : OSCAR_ERR_BIT_RANGE);
    // ---- x . H: butterflies of length 1, 2 (in the thread), 4 .. 2 FT (lanes), 4 FT .. D / 2 (runs) ----
#pragma unroll
    for (int i = 0; i < 8; i++) {
        float a = x[i][0], b = x[i][1], c = x[i][2], d = x[i][3];
        x[i][0] = __fadd_rn(a, b), x[i][1] = __fsub_rn(a, b), x[i][2] = __fadd_rn(c, d), x[i][3] = __fsub_rn(c, d);
        a = x[i][0], b = x[i][1], c = x[i][2], d = x[i][3];
        x[i][0] = __fadd_rn(a, c), x[i][1] = __fadd_rn(b, d), x[i][2] = __fsub_rn(a, c), x[i][3] = __fsub_rn(b, d);
    }
#pragma unroll
    for (int o = 1; o < FT; o <<= 1) { // the upper lane of a pair takes partner - own, the lower own + partner
        const float sg = (t & o) ? -1.0f : 1.0f;
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int e = 0; e < 4; e++) x[i][e] = __fmaf_rn(x[i][e], sg, __shfl_xor_sync(0xffffffffu, x[i][e], o));
    }
#pragma unroll
    for (int l = 1; l < 8; l <<= 1)
#pragma unroll
        for (int i = 0; i < 8; i++)
            if (!(i & l)) {
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const float a = x[i][e], b = x[i + l][e];
                    x[i][e] = __fadd_rn(a, b), x[i + l][e] = __fsub_rn(a, b);
                }
            }
    const float hs = (float)(1.0 / sqrt((double)D));
    oscar_u32 w[16]; // w[2 i + h]: values 4 FT i + 4 t + 2 h (low half) and + 1 (high half)
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) w[2 * i + h] = bad ? 0u : oscar__bf2(__fmul_rn(x[i][2 * h], hs), __fmul_rn(x[i][2 * h + 1], hs));
    if (valid && src < 0) oscar__fring(p, w, slot, pos, head, isv, t);
    // ---- the write launch: sink / window rows are stored as BF16 (no codec) ----
    if (valid && page < 0) {
        const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;
        oscar_u16 *dst = pos < p.S0 ? (oscar_u16 *)p.sink + ((slab * 2 + isv) * p.S0 + pos) * D
                                    : (oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D;
#pragma unroll
        for (int i = 0; i < 8; i++) ((uint2 *)dst)[FT * i + t] = make_uint2(w[2 * i], w[2 * i + 1]);
    }
    if (__all_sync(0xffffffffu, !valid || page < 0)) return; // (a launch is all page rows or none)
    oscar__fcodec(p, w, valid && page >= 0, page, head, isv, pos, t, lane);
}
#undef FT
#undef FR
#undef FIPG
#undef FNG
#define OSCAR__APPEND_FWHT_BUILT 1
#endif
#ifndef OSCAR__APPEND_FWHT_BUILT
#define OSCAR__APPEND_FWHT_BUILT 0
#endif
// whether this build has oscar_append_fwht
extern "C" __device__ int oscar_append_fwht_built = OSCAR__APPEND_FWHT_BUILT;
