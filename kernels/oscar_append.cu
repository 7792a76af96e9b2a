// oscar_append.cu - the write path of the device cache: rotate K/V rows, round to BF16, store
// sink/window rows, and flush full pages (clip, quantise, pack) exactly like the CPU codec.
//
// Compile-time: OSCAR_D (head dim: 64, 128, 256), OSCAR_GS (group size, INT2 mode),
// OSCAR_INT2 (1: INT2 history pages, 0: BF16 pages). Must be compiled with --fmad=false (the
// fast transform and the fixed-point scaling round exactly as on the CPU).
//
// Grid (ceil(n_jobs / OSCAR_APPEND_TR), Hkv * 2), 128 threads: a block owns a tile of TR jobs of
// one (KV head, K|V). When the tile holds input rows and the rotation is dense, the block rotates
// the tile with the CPU's fixed-point definition (oscar_rotate_row_q14) on integer tensor cores:
// each row is scaled by a power of two to 15-bit integers X = 256 Xh + Xl (int8 halves), the
// host gives R as 2^14-scaled integers Rq = 256 Rh + Rl in int8 B fragments, and four
// mma.m16n8k32.s8 products give the exact P = X Rq (int32 partials, combined in 64 bits); then
// y = fp32(P) * 2^(e - 28) into shared memory (oscar__rotate_tile). Then each warp takes rows of
// the tile: BF16 rounding, sink/window store or the INT2 codec (FT lanes per row where built,
// else lane l owning channels c = l + 32*jj).
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
#ifndef OSCAR_TOPK_MAX
#define OSCAR_TOPK_MAX 24 // clip threshold by repeated warp max when at most this many values pass it
#endif

#define D OSCAR_D
#define GS OSCAR_GS
#define NC (D / 32)
#define NGR (D / GS)
#define AW 4                  // warps per block
#define TR (D == 256 ? 32 : 64) // tile rows per block (must equal OSCAR__APPEND_TR(d) in oscar_cuda.h)
#define WPT (64 / TR)           // warps per 16-row MMA tile (they split its columns)
#define KS (D / 32)             // k steps of mma.m16n8k32
#ifndef OSCAR_APPEND_CNT
#define CNT (OSCAR_APPEND_WGMMA ? 4 : D >= 128 ? 2 : 4) // n-tiles per accumulator chunk of the rotation (d 128: 2, 3%
                               // faster than 4 on 2048-token appends, level on one long call, run s31-1; wgmma: 4)
#else
#define CNT OSCAR_APPEND_CNT
#endif

#if (D % 32) != 0 || (D % GS) != 0 || GS < 4 || (D != 64 && D != 128 && D != 256)
#error "unsupported head dim / group size"
#endif
#ifndef OSCAR_GAIN
#define OSCAR_GAIN 0 // bit 0 / 1: K / V history rows through the gain encoder (OSCAR_INT2_GAIN; cfg.k_gain / v_gain)
#endif
#ifndef OSCAR_CENTER
#define OSCAR_CENTER 0 // 1: the input rows less the cache's means (kmean / vmean), before anything else (cfg.center 1)
#endif
#ifndef OSCAR_APPEND_NR
#define OSCAR_APPEND_NR 1 // rows a warp quantises at once (independent chains for the clip and codec)
#endif
#ifndef OSCAR_APPEND_CLIPS
#define OSCAR_APPEND_CLIPS 1 // clip threshold: 1 = lanes sort their values, the warp pops heads; 0 = warp max over all values each round
#endif
#ifndef OSCAR_APPEND_WGMMA // 1: dense rotations by warpgroup MMAs (sm_90a, d <= 128: one warpgroup = the tile's
#define OSCAR_APPEND_WGMMA 0 // 64 rows; B copied to shared memory per tile): correct, but 5% slower (kernels/NOTES.md w23)
#endif
#if OSCAR_APPEND_WGMMA && (!defined(__CUDA_ARCH_FEAT_SM90_ALL) || D > 128)
#error "OSCAR_APPEND_WGMMA needs sm_90a and d <= 128"
#endif
#ifndef OSCAR_APPEND_PROF
#define OSCAR_APPEND_PROF 0 // timing only (wrong results): 1 = dense tiles skip the MMAs, 2 = dense tiles skip the codec,
                            // 3 = every k step uses step 0's B fragments (loaded once per chunk: a quarter of the
                            // loads), 4 = no fixed-point epilogue, 6 = the B loads without the MMAs
#endif
#ifndef OSCAR_APPEND_Q3
#define OSCAR_APPEND_Q3 0 // timing only (other bytes than the CPU's): the product without Xl.Rl, P = 2^8 (2^8 Xh.Rh + Xh.Rl + Xl.Rh) in 32 bits
#endif
#ifndef OSCAR_APPEND_A4
#define OSCAR_APPEND_A4 0 // 1: Xl.Rh in its own accumulator (a4) instead of a2's, so no accumulator chains more than KS
                          // IMMAs (a2 chained 2 KS); the same integers, so the same bytes (kernels/NOTES.md w36)
#endif
#ifndef OSCAR_APPEND_HOIST
#define OSCAR_APPEND_HOIST 2 // the rotation loop's B pointer and Y store addresses from per-thread bases set before it
                             // (oscar__ysw(row, 8 n + 2 t) = ys base + 4 (n ^ g / 2)), not rebuilt per chunk: 2 in
                             // oscar_append_w only (2.6% faster on one long call, run s32-1), 1 in both kernels (level
                             // to 1% slower on 2048-token appends through oscar_append), 0 in neither
#endif
#define WPS ((D / 8 / CNT) < 4 ? (D / 8 / CNT) : 4) // oscar_append_s: warps on one MMA tile at most (its n-tiles a multiple of CNT)
#ifndef OSCAR_APPEND_STAGGER // oscar_append_w with p.sms: ns between the starts of the first wave's blocks of one SM, by
#define OSCAR_APPEND_STAGGER 1500 // their rank there (linear block index / p.sms, below OSCAR_APPEND_WMINB); 0: none.
#endif                            // The same bytes (w47, run s40-2)
#ifndef OSCAR_APPEND_MINB // resident blocks per SM the register allocation must allow (0: no hint);
#if OSCAR_APPEND_WGMMA      // the B matrices in shared memory (50 KB per block at d 128) allow 4
#define OSCAR_APPEND_MINB 4
#elif OSCAR_D >= 128         // d 128 and 256: 5 (96 registers, a few spilled; at d 128 5% faster than 4 with
#define OSCAR_APPEND_MINB 5 // 128 registers and than 6 with 80, kernels/NOTES.md w22)
#else
#define OSCAR_APPEND_MINB 0
#endif
#endif


// int4 i of the runs in the parameters (indexed there by value: no pointer into the parameter space)
static __device__ __forceinline__ int4 oscar__inl_run(const oscar_append_params &p, int i) {
    return make_int4(p.inl[4 * i], p.inl[4 * i + 1], p.inl[4 * i + 2], p.inl[4 * i + 3]);
}
// the flush launch before a write launch with p.wlate: block (0, 0) publishes p.epoch (release, after its wait) before
// any of its threads lets the next launch in; the write launch's blocks take it (acquire) before they read input rows.
// The next launch starts only once every block of this one has let it in, so the value is there by then
static __device__ __forceinline__ void oscar__epoch_put(const oscar_append_params &p) {
    if (p.epoch && !p.wlate && blockIdx.x == 0 && blockIdx.y == 0) {
        if (threadIdx.x == 0)
            asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"((unsigned *)p.err + OSCAR_ERR_EPOCH), "r"((unsigned)p.epoch) : "memory");
        __syncthreads();
    }
}
static __device__ __forceinline__ void oscar__epoch_take(const oscar_append_params &p) {
    if (threadIdx.x == 0) {
        unsigned v;
        do asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"((const unsigned *)p.err + OSCAR_ERR_EPOCH) : "memory");
        while (v != (unsigned)p.epoch);
    }
    __syncthreads();
}
// job j of this launch -> (input row or -1, sequence slot, position, page or -1), from the runs
static __device__ __forceinline__ int4 oscar__job(const oscar_append_params &p, long long j) {
    const int4 *runs = (const int4 *)p.jobs;
    auto run = [&](int i) -> int4 { return runs ? runs[i] : oscar__inl_run(p, i); }; // from memory or the parameters
    int lo = 0, hi = p.n_runs - 1;
    while (lo < hi) { // the last run that starts at or before j
        const int mid = (lo + hi + 1) >> 1;
        if (run(2 * mid).x <= j) lo = mid;
        else hi = mid - 1;
    }
    const int4 a = run(2 * lo), b = run(2 * lo + 1);
    const int pos = a.y + (int)(j - a.x);
    const int src = pos >= b.x ? a.w + pos : -1;
    int page = -1;
    if (b.y) {
        const int pi = (pos - p.S0) / p.P; // this call's new pages from the parameters (bt gets them in this launch)
        page = !runs && pi >= b.w ? p.inl[(b.z & 0xffff) + pi - b.w] : ((const int *)p.bt)[(size_t)a.z * p.max_pages + pi];
    }
    return make_int4(src, a.z, pos, page);
}
// a flush launch whose runs came in the parameters with the call's new pages: block (0, 0) writes those pages into
// the block tables (the launch's blocks take them from the parameters; later kernels on the stream read bt)
static __device__ __forceinline__ void oscar__bt_inline(const oscar_append_params &p) {
    if (p.jobs || blockIdx.x != 0 || blockIdx.y != 0) return;
    for (int r = 0; r < p.n_runs; r++) {
        const int4 a = oscar__inl_run(p, 2 * r), b = oscar__inl_run(p, 2 * r + 1); // slot a.z; flush b.y; pages b.z, b.w
        if (b.y)
            for (int i = threadIdx.x; i < (b.z >> 16); i += blockDim.x) ((int *)p.bt)[(size_t)a.z * p.max_pages + b.w + i] = p.inl[(b.z & 0xffff) + i];
    }
}
#if OSCAR_INT2
// job j as oscar__job gives it, or (-1, 0, 0, 0) past the last job (the lanes of such a row take
// part in the shuffles with zeros and store nothing)
static __device__ __forceinline__ int4 oscar__fjob(const oscar_append_params &p, long long j) {
    return j < p.n_jobs ? oscar__job(p, j) : make_int4(-1, 0, 0, 0);
}
#endif

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
// the gain encoder (OSCAR_INT2_GAIN, as the CPU's oscar_int2_quantize_row_ex): over a group, in column
// order, xx += x0^2 and xh += x0 h in double (x0 the unclipped value, h = min + q scale in fp32: both
// products exact, so the CPU's fused or unfused forms agree); then scale and min times gamma = xx / xh
// clamped to [0.5, 2] where both sums are positive, unless either leaves the fp16 range
static __device__ __forceinline__ void oscar__gain_acc(double &xx, double &xh, float x0, int q, float sc, float mn) {
    const float h = __fadd_rn(mn, __fmul_rn((float)q, sc));
    xx = __dadd_rn(xx, __dmul_rn((double)x0, (double)x0));
    xh = __dadd_rn(xh, __dmul_rn((double)x0, (double)h));
}
static __device__ __forceinline__ oscar_u32 oscar__gain_sm(double xx, double xh, float sc, float mn, oscar_u32 smw) {
    if (xh > 0.0 && xx > 0.0) {
        double gam = __ddiv_rn(xx, xh);
        gam = gam < 0.5 ? 0.5 : (gam > 2.0 ? 2.0 : gam);
        const oscar_u16 hs = oscar_f32_to_f16(__double2float_rn(__dmul_rn((double)sc, gam)));
        const oscar_u16 hm = oscar_f32_to_f16(__double2float_rn(__dmul_rn((double)mn, gam)));
        if ((hs & 0x7c00u) != 0x7c00u && (hm & 0x7c00u) != 0x7c00u) return (oscar_u32)hs | ((oscar_u32)hm << 16);
    }
    return smw;
}

// the INT2 codec (SPEC section 4) for NR rows of one (head, K|V), all to pages; same fp32 operation
// sequence as the CPU reference
template <int NR>
static __device__ __forceinline__ void oscar__codec(const oscar_append_params &p, float (&x)[NR][NC], int isv, int head,
                                                    const int (&pos)[NR], const int (&page)[NR], oscar_u8 *cs, int lane) {
    const int idx = oscar__clip_idx(isv ? p.v_clip : p.k_clip);
    const bool gain = (OSCAR_GAIN & (isv ? 2 : 1)) != 0;
    float x0[OSCAR_GAIN ? NR : 1][OSCAR_GAIN ? NC : 1]; // the unclipped values (gain encoder)
    if (OSCAR_GAIN)
#pragma unroll
        for (int r = 0; r < NR; r++)
#pragma unroll
            for (int jj = 0; jj < NC; jj++) x0[OSCAR_GAIN ? r : 0][OSCAR_GAIN ? jj : 0] = x[r][jj];
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
        float gsv[NC], gmv[NC]; // this lane's columns' stored scale and min (gain encoder)
#pragma unroll
        for (int jj = 0; jj < NC; jj++) {
            const int c = lane + 32 * jj;
            const float scale = (gmx[jj] - gmn[jj]) / 3.0f;
            const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[jj]);
            const float s = oscar_f16_to_f32(s16), m = oscar_f16_to_f32(m16);
            gsv[jj] = s, gmv[jj] = m;
            int q = 0;
            if (s != 0.0f) {
                const float t = floorf((x[r][jj] - m) / s + 0.5f);
                q = t < 0.0f ? 0 : (t > 3.0f ? 3 : (int)t);
            }
            c8[c] = (oscar_u8)q;
            if (c % GS == 0) sm[c / GS] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);
        }
        __syncwarp();
        if (OSCAR_GAIN && gain) { // every lane sums each group in column order (values by shuffle, codes from c8)
            double xx = 0.0, xh = 0.0;
#pragma unroll
            for (int c = 0; c < D; c++) {
                const float v = __shfl_sync(0xffffffffu, x0[OSCAR_GAIN ? r : 0][OSCAR_GAIN ? c / 32 : 0], c % 32);
                const float sc = __shfl_sync(0xffffffffu, gsv[c / 32], c % 32), mn = __shfl_sync(0xffffffffu, gmv[c / 32], c % 32);
                oscar__gain_acc(xx, xh, v, c8[c], sc, mn);
                if (c % GS == GS - 1) {
                    const oscar_u32 w = oscar__gain_sm(xx, xh, sc, mn, (oscar_u32)oscar_f32_to_f16(sc) | ((oscar_u32)oscar_f32_to_f16(mn) << 16));
                    if (lane == 0) sm[c / GS] = w;
                    xx = 0.0, xh = 0.0;
                }
            }
        }
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

#if OSCAR_INT2 && GS * 8 >= D && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define OSCAR__FCODEC 1
#else
#define OSCAR__FCODEC 0
#endif
#define OSCAR__APPEND_SMEM0 (TR * D * 2 + AW * OSCAR_APPEND_NR * D + TR * 8 + TR * 16)
#define OSCAR__APPEND_SMEM (OSCAR__APPEND_SMEM0 + (OSCAR_APPEND_WGMMA ? 2 * D * D : 0))
// oscar_append's dynamic shared memory in bytes (the host reads it)
extern "C" __device__ int oscar_append_smem = OSCAR__APPEND_SMEM;
// 1: the dense rotations are wgmma products and the host lays their B matrices out for them
extern "C" __device__ int oscar_append_wgmma = OSCAR_APPEND_WGMMA;
// ---- packed BF16 helpers (the FT-lanes codec; the rotated tile's store) ----
#if OSCAR_INT2
static __device__ __forceinline__ oscar_u32 oscar__bf2(float lo_half, float hi_half) { // round to nearest even
    oscar_u32 d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi_half), "f"(lo_half));
    return d;
}
#endif
static __device__ __forceinline__ float oscar__bh(oscar_u32 w, int h) { return __uint_as_float(h ? (w & 0xffff0000u) : (w << 16)); }
#if OSCAR__FCODEC
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
// 0xffff in each half where a >= b (BF16 values; false against NaN). sm_80 has no BF16 compare: the
// halves as floats
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
// m + (q - 1/2) s: the estimate's key k and its neighbours are evaluated at once, and the boundary
// is k or k + 1 in the common case; else a galloping search brackets the first key with code >= q,
// then bisection (near 0, where BF16 values are dense, up to ~16 evaluations).
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
    // the common case, without branches: the boundary is k or k + 1 (codes are monotone in the key)
    const int c0 = oscar__code(oscar__k16f((oscar_u32)k), m, s);
    const int cm = oscar__code(oscar__k16f((oscar_u32)max(k - 1, kmin)), m, s);
    const int cp = oscar__code(oscar__k16f((oscar_u32)min(k + 1, kmax)), m, s);
    if (c0 >= q && (k == kmin || cm < q)) return oscar__ik16((oscar_u32)k);
    if (c0 < q && k < kmax && cp >= q) return oscar__ik16((oscar_u32)(k + 1));
    if (c0 >= q) {
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
// MM (sm_90, FT 4: lane 4 g + t holds a quarter of row g, as the rows of an m16n8k16 A fragment): set.ge gives
// BF16 1.0 or 0 per half, and four MMAs against a B of ones sum them: C[g][.] counts words 4q, 4q + 2 of the
// row's four lanes, C[g + 8][.] words 4q + 1, 4q + 3, so a lane's c0 + c2 is its row's count (exact: sums of at
// most 128 ones in fp32), no shuffles. OSCAR_FCNT_MMA 2 (default): in the flush tiles of oscar_append only
// (fitted rotations: 0.9-1.6% faster, runs s29-1/2), 1: in oscar_append_fwht too (H rotations: 5% slower there, whose
// kernel has no other tensor work: the MMAs' latency sits on each count's chain), 0: never (kernels/NOTES.md w30)
#ifndef OSCAR_FCNT_MMA
#define OSCAR_FCNT_MMA 2
#endif
// #{|x| >= v} over the row (a: |x| as BF16 pairs, as oscar__fabs2 leaves them; v: a non-negative BF16
// value's bits). sm_90: the masks of set.ge are subtracted: the low half of a sum counts A, the high
// half B - A. sm_80 (no BF16 compare): oscar__fabs2 has set bit 15 of each half that is a number and
// made each NaN half 0x7fff, so (a - v) keeps bit 15 of a half iff |x| >= v as floats (v < 0x8000: no
// borrow crosses the halves); word w's two bits are shifted to 15 - w and 31 - w, distinct for the 16
// words, and counted by one popc. A NaN v counts nothing, as the float compare does
template <int MM>
static __device__ __forceinline__ int oscar__fcnt(const oscar_u32 (&a)[16], oscar_u32 v) {
    const oscar_u32 v2 = v * 0x10001u;
#if __CUDA_ARCH__ >= 900
    if (MM && FT == 4) {
        float c[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
#pragma unroll
        for (int q = 0; q < 4; q++) {
            oscar_u32 m[4];
#pragma unroll
            for (int i = 0; i < 4; i++) asm("set.ge.bf16x2.bf16x2 %0, %1, %2;" : "=r"(m[i]) : "r"(a[4 * q + i]), "r"(v2));
            float *d = c[q & 1];
            asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "r"(m[0]), "r"(m[1]), "r"(m[2]), "r"(m[3]), "r"(0x3f803f80u), "r"(0x3f803f80u));
        }
        return (int)((c[0][0] + c[0][2]) + (c[1][0] + c[1][2]));
    }
    oscar_u32 s4[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int w = 0; w < 16; w++) s4[w & 3] -= oscar__bge2(a[w], v2);
    const oscar_u32 acc = (s4[0] + s4[1]) + (s4[2] + s4[3]);
    return oscar__rsum((int)(((acc >> 16) + 2u * (acc & 0xffffu)) & 0xffffu));
#else
    oscar_u32 acc = 0u;
#pragma unroll
    for (int w = 0; w < 16; w++) acc |= ((a[w] - v2) & 0x80008000u) >> w;
    return oscar__rsum(v <= 0x7f80u ? __popc(acc) : 0);
#endif
}
// |x| of a row's BF16 pairs w, as oscar__fcnt takes them
static __device__ __forceinline__ oscar_u32 oscar__fabs2(oscar_u32 w) {
#if __CUDA_ARCH__ >= 900
    return w & 0x7fff7fffu;
#else
    const oscar_u32 a = w & 0x7fff7fffu, nm = (((a + 0x007f007fu) & 0x80008000u) >> 15) * 0xffffu; // 0xffff in each NaN half (> 0x7f80)
    return ((a | 0x80008000u) & ~nm) | (0x7fff7fffu & nm);
#endif
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
template <int MM>
static __device__ __forceinline__ void oscar__fcodec(const oscar_append_params &p, oscar_u32 (&w)[16], bool store, int page, int head, int isv, int pos, int t, int lane) {
    // ---- clip: thr = the (D - idx)-th largest |x|, with multiplicity ----
    const int idx = oscar__clip_idx(isv ? p.v_clip : p.k_clip);
    const bool gain = (OSCAR_GAIN & (isv ? 2 : 1)) != 0;
    oscar_u32 w0[OSCAR_GAIN ? 16 : 1]; // the unclipped values (gain encoder)
    if (OSCAR_GAIN)
#pragma unroll
        for (int j = 0; j < 16; j++) w0[OSCAR_GAIN ? j : 0] = w[j];
    if (idx >= 0) {
        const int k = D - idx;
        oscar_u32 a[16], m2 = 0u;
#pragma unroll
        for (int j = 0; j < 16; j++) m2 = __vmaxu2(m2, w[j] & 0x7fff7fffu), a[j] = oscar__fabs2(w[j]);
        const oscar_u32 M = oscar__rmax(max(m2 & 0xffffu, m2 >> 16));
        // the largest key with #{>= key} >= k: first bracket the 128 keys from M - 127 up to the
        // maximum M (the top octave), else the 128 below them; in either, seven halvings with
        // steps fixed at compile time (count(>= lo) >= k holds throughout). Rows below both (the
        // warp takes the search over [0, M - 255) then) are rare.
        int lo = M >= 127u ? (int)M - 127 : 0;
        const bool below = oscar__fcnt<MM>(a, (oscar_u32)lo) < k;
        bool far = false;
        if (below) lo = max(lo - 128, 0);
        if (__any_sync(0xffffffffu, below)) { // warp-uniform: every lane takes part in the count
            const bool lo_below = oscar__fcnt<MM>(a, (oscar_u32)lo) < k; // (not under the && : the count shuffles)
            far = below && lo_below;
            if (__any_sync(0xffffffffu, far)) {
                int l2 = 0, h2 = lo;
                for (;;) {
                    const bool open = far && h2 - l2 > 1;
                    if (!__any_sync(0xffffffffu, open)) break;
                    const int mid = open ? (l2 + h2) >> 1 : l2;
                    const bool ge = oscar__fcnt<MM>(a, (oscar_u32)mid) >= k;
                    if (open) {
                        if (ge) l2 = mid;
                        else h2 = mid;
                    }
                }
                if (far) lo = l2;
            }
        }
#pragma unroll
        for (int h = 64; h >= 1; h >>= 1) {
            const int mid = lo + h;
            const bool ge = oscar__fcnt<MM>(a, (oscar_u32)mid) >= k; // every lane counts (shuffles)
            if (ge && !far) lo = mid;
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
    float gm[FNG], gs[FNG]; // the stored (fp16) min and scale as floats
#pragma unroll
    for (int g = 0; g < FNG; g++) {
        const float scale = __fdiv_rn(__fsub_rn(gmx[g], gmn[g]), 3.0f);
        const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[g]);
        smw[g] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);
        gs[g] = oscar_f16_to_f32(s16), gm[g] = oscar_f16_to_f32(m16);
    }
    // boundary qi = 3 g + (q - 1) of the row is lane qi % FT's, round qi / FT: the lanes of a row
    // search theirs at once (one inlined search per round, not one per boundary)
#pragma unroll
    for (int i = 0; i < (3 * FNG + FT - 1) / FT; i++) {
        const int qi = t + FT * i;
        float m = gm[0], s = gs[0];
#pragma unroll
        for (int g = 1; g < FNG; g++)
            if (qi >= 3 * g) m = gm[g], s = gs[g];
        mine[i] = qi < 3 * FNG ? oscar__bound(m, s, qi % 3 + 1) : 0u;
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
    if (OSCAR_GAIN && gain) {
        // the row's columns in order: run i of lane t holds columns 4 FT i + 4 t + e (e < 4); each lane of
        // the row sums every group (the run's values and code bits by shuffle from the row's lane t)
        double xx = 0.0, xh = 0.0;
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int tt = 0; tt < FT; tt++) {
                const int src = (lane & ~(FT - 1)) | tt;
                const oscar_u32 v01 = __shfl_sync(0xffffffffu, w0[OSCAR_GAIN ? 2 * i : 0], src), v23 = __shfl_sync(0xffffffffu, w0[OSCAR_GAIN ? 2 * i + 1 : 0], src);
                const oscar_u32 cb = __shfl_sync(0xffffffffu, (pb0[i] & 0x01010101u) | (pb1[i] & 0x02020202u), src); // byte e: code of value e
                const int c0 = 4 * FT * i + 4 * tt, g = c0 / GS;
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const float v = oscar__bh(e < 2 ? v01 : v23, e & 1);
                    oscar__gain_acc(xx, xh, v, (int)((cb >> (8 * e)) & 3u), gs[g], gm[g]);
                }
                if ((c0 + 4) % GS == 0) {
                    smw[g] = oscar__gain_sm(xx, xh, gs[g], gm[g], smw[g]);
                    xx = 0.0, xh = 0.0;
                }
            }
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

// the word of ys (BF16 pairs, [TR][D / 2]) holding columns col, col + 1 (col even) of a row: 4-column
// units (8 bytes) XOR-swizzled by row & 7, so that the MMA layout's stores and the codec's row
// reads spread over the banks
static __device__ __forceinline__ int oscar__ysw(int row, int col) { return row * (D / 2) + ((((col >> 2) ^ (row & 7))) << 1) + ((col >> 1) & 1); }
// cfg.center 1 modules: the mean of (layer, head, K|V) the input rows are stored less (0 in other modules)
static __device__ __forceinline__ const float *oscar__mean_row(const oscar_append_params &p, int isv, int head) {
    return OSCAR_CENTER ? (const float *)(isv ? p.vmean : p.kmean) + ((size_t)p.layer * p.Hkv + head) * D : (const float *)0;
}
#if OSCAR_INT2
static __device__ __forceinline__ float4 oscar__ld4(const float *a, bool aligned) {
    return aligned ? *(const float4 *)a : make_float4(a[0], a[1], a[2], a[3]);
}
// input elements o .. o + 3 of a row, less the row mean mu in modules built for cfg.center 1 (one fp32
// subtract each, as the CPU cache; mu: a 16-byte aligned [D] of the means buffer)
static __device__ __forceinline__ float4 oscar__ld4c(const float *x, const float *mu, int o, bool aligned) {
    float4 a = oscar__ld4(x + o, aligned);
    if (OSCAR_CENTER) {
        const float4 m = __ldg((const float4 *)(mu + o));
        a = make_float4(__fsub_rn(a.x, m.x), __fsub_rn(a.y, m.y), __fsub_rn(a.z, m.z), __fsub_rn(a.w, m.w));
    }
    return a;
}
// max(a, b), NaN if either is NaN (fmaxf drops a NaN)
static __device__ __forceinline__ float oscar__fmaxn(float a, float b) {
    float d;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}
static __device__ __forceinline__ float oscar__pow2(int e) { return __int_as_float((e + 127) << 23); } // -126 <= e <= 127
#if !OSCAR_APPEND_WGMMA
// c += a . b for one m16n8k32 tile of int8 (exact int32 sums; sm_80+, as the rest of this file)
static __device__ __forceinline__ void oscar__imma(int (&c)[4], const oscar_u32 (&a)[4], oscar_u32 b0, oscar_u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif
#if OSCAR_APPEND_WGMMA
// the shared-memory descriptor of a K-major int8 B operand without swizzle: 8-row x 16-byte core
// matrices, 128 bytes apart along k (LBO) and 256 bytes apart along n (SBO)
static __device__ __forceinline__ unsigned long long oscar__wdesc(const void *smem) {
    const oscar_u32 a = (oscar_u32)__cvta_generic_to_shared(smem);
    return (unsigned long long)((a & 0x3ffffu) >> 4) | (128ull >> 4 << 16) | (256ull >> 4 << 32);
}
// c (+)= a . B for the warpgroup's 64 rows and 32 columns (m64n32k32, s8 in, s32 accumulators in
// the mma.m16n8k32 layout of four n-tiles per warp); acc 0 overwrites c
template <int CN>
static __device__ __forceinline__ void oscar__wgmma(int (&c)[CN][4], const oscar_u32 (&a)[4], unsigned long long bd, int acc) {
    static_assert(CN == 4, "the warpgroup product takes four n-tiles per chunk");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p;\n}"
                 : "+r"(c[0][0]), "+r"(c[0][1]), "+r"(c[0][2]), "+r"(c[0][3]), "+r"(c[1][0]), "+r"(c[1][1]), "+r"(c[1][2]), "+r"(c[1][3]),
                   "+r"(c[2][0]), "+r"(c[2][1]), "+r"(c[2][2]), "+r"(c[2][3]), "+r"(c[3][0]), "+r"(c[3][1]), "+r"(c[3][2]), "+r"(c[3][3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(acc));
}
#endif
// f(a) over the quad's float4s of a flush tile's input row xr (none for a row past the launch's last
// job), lane t of the quad, in the order pass 2 reads them
template <bool A16, class F>
static __device__ __forceinline__ void oscar__row_fold(const float *xr, const float *mu, int t, F f) {
    if (xr)
#pragma unroll
        for (int s = 0; s < KS; s++)
#pragma unroll
            for (int u = 0; u < 2; u++) f(oscar__ld4c(xr, mu, 32 * s + 16 * u + 4 * t, A16));
}
// Y = X . R for the tile's input rows, as the CPU's oscar_rotate_row_q14 computes it, rounded to
// BF16 into ys (oscar__ysw: [TR][D / 2] words, 4-column units swizzled by row); per row the sum of
// squares and a non-finite flag into s_ss / s_bad. Warp w takes rows 16 (w / wpt) .. +16 and
// n-tiles (w % wpt) nnt .. +nnt (wpt = WPT but in oscar_append_s's small tiles, nnt = D / 8 / wpt); lane (g, t) holds rows g and g + 8 (the mma layouts: A elements
// (row, 4 t + i) and (row, 16 + 4 t + i) per k step; accumulators (row, 8 n + 2 t + {0, 1})). Rows
// past the launch or without input (window rows; s_job: the tile's jobs) are zeros. Rf: the B fragments in global memory,
// [KS][D / 8][32 lanes] uint4 {Rh k 4t.., Rh k 16+4t.., Rl k 4t.., Rl k 16+4t..} of column 8 n + g
// (built by the host from oscar_rotation_q14), read through L1: the blocks of one (head, K|V) are
// adjacent in the grid and share them there (5% faster at d 128 than a copy to shared memory per
// tile, kernels/NOTES.md w21).
template <bool A16, int CN, bool HS, bool SW> // 16-byte aligned input rows (else one float at a time); CN n-tiles per accumulator chunk;
                                              // HS: the B pointer and Y store base hoisted out of the loop (OSCAR_APPEND_HOIST);
                                              // SW: a tile whose jobs fill only mt of its 16-row MMA tiles (block-uniform) splits
                                              // each of those MMA tiles' columns over up to WPS warps (oscar_append_s)
static __device__ __forceinline__ void oscar__rotate_tile_t(const oscar_append_params &p, const float *X, const float *mu, const uint4 *Rf, int head,
                                                            oscar_u32 *ys, float *s_ss, int *s_bad, const int4 *s_job, oscar_u8 *sb, int mt) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    // warps per 16-row MMA tile and its n-tiles per warp: the build's WPT, or where the jobs fill 1 or 2 MMA tiles
    // (one-token appends of 1-32 sequences, a chunk's last tile) 4 / mt warps each, at most WPS: the chain of a
    // warp's product 4 / mt times shorter at d 128
    int wpt = WPT;
    if (SW && 4 / mt > WPT) wpt = 4 / mt < WPS ? 4 / mt : WPS;
    const int nnt = D / 8 / wpt;
#if OSCAR_APPEND_WGMMA
    // Rh and Rl into shared memory as the host laid them out for wgmma (oscar__kv_upload_frag):
    // [Rh | Rl][k step][n / 8][k half][8 rows n][16 bytes k], in flight while the rows load
    for (int i = threadIdx.x; i < 2 * D * D / 16; i += AW * 32) oscar_cp_async16(sb + 16 * i, Rf + i);
    oscar_cp_commit();
#else
    (void)sb;
#endif
    const int r0 = 16 * (warp / wpt) + g, nt0 = (warp % wpt) * nnt;
    const float *xr[2];
    float up[2], dn[2], mxs[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int src = s_job[r0 + 8 * h].x; // -1 past the launch's last job
        xr[h] = src >= 0 ? X + ((size_t)src * p.Hkv + head) * D : 0;
        // pass 1: max |x| over the row (the quad's four lanes), NaN kept (max.NaN): the row is
        // non-finite exactly when mx is inf or NaN (one check per row, not per element)
        float mx = 0.0f;
        oscar__row_fold<A16>(xr[h], mu, t, [&](const float4 &a) {
            mx = oscar__fmaxn(mx, oscar__fmaxn(oscar__fmaxn(fabsf(a.x), fabsf(a.y)), oscar__fmaxn(fabsf(a.z), fabsf(a.w))));
        });
#pragma unroll
        for (int o = 1; o < 4; o <<= 1) mx = oscar__fmaxn(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        mxs[h] = mx;
        // the CPU's scale: e = max(E - 126, -98), E the biased exponent of max |x| (NaN / inf
        // rows give e = 129: finite scales, and such rows are discarded)
        const int e = max((int)((__float_as_uint(mx) >> 23) & 0xffu) - 126, -98);
        up[h] = oscar__pow2(14 - e);
        dn[h] = oscar__pow2(e - 28);
    }
    // the sum of squares, for the range check (norm > 32768) only: a finite row with D mx^2 below
    // 0.9 * 2^30 is inside it whatever the summation order, so ss is summed only where a row of the
    // warp could be beyond (rare: the whole warp sums, for the shuffles; the loads hit L1)
    float ssv[2] = {0.0f, 0.0f};
    if (__any_sync(0xffffffffu, (mxs[0] <= 3.4028235e38f && mxs[0] * mxs[0] * (float)D >= 0.9f * 1073741824.0f) ||
                                    (mxs[1] <= 3.4028235e38f && mxs[1] * mxs[1] * (float)D >= 0.9f * 1073741824.0f))) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
            float ss = 0.0f;
            oscar__row_fold<A16>(xr[h], mu, t, [&](const float4 &a) { ss += a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w; });
#pragma unroll
            for (int o = 1; o < 4; o <<= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
            ssv[h] = ss;
        }
    }
    if (t == 0 && warp % wpt == 0)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            s_ss[r0 + 8 * h] = ssv[h];
            s_bad[r0 + 8 * h] = !(mxs[h] <= 3.4028235e38f);
        }
    // pass 2: A fragments, X = rint(x * 2^(14 - e)) split into 256 Xh + Xl (the loads hit L1).
    // |X| <= 2^14, and x * 2^(14 - e) is exact (or below 2^-126, where X = 0 either way), so one
    // FFMA with 1.5 * 2^23 + 128 rounds like rint and leaves Y = X + 128 in the low 23 bits:
    // Xh = Y >> 8 is byte 1 (two's complement, |Xh| <= 64) and Xl = (Y & 255) - 128 is byte 0 ^ 0x80
    oscar_u32 ah[KS][4], al[KS][4];
#pragma unroll
    for (int s = 0; s < KS; s++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int h = i & 1, u = i >> 1;
            float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (xr[h]) a = oscar__ld4c(xr[h], mu, 32 * s + 16 * u + 4 * t, A16);
            const float M = 12583040.0f; // 1.5 * 2^23 + 128
            const oscar_u32 b0 = __float_as_uint(__fmaf_rn(a.x, up[h], M)), b1 = __float_as_uint(__fmaf_rn(a.y, up[h], M));
            const oscar_u32 b2 = __float_as_uint(__fmaf_rn(a.z, up[h], M)), b3 = __float_as_uint(__fmaf_rn(a.w, up[h], M));
            const oscar_u32 t01 = __byte_perm(b0, b1, 0x5410u), t23 = __byte_perm(b2, b3, 0x5410u); // bytes 0, 1 of each
            ah[s][i] = __byte_perm(t01, t23, 0x7531u);
            al[s][i] = __byte_perm(t01, t23, 0x6420u) ^ 0x80808080u;
        }
    // P = 2^16 Xh.Rh + 2^8 (Xh.Rl + Xl.Rh) + Xl.Rl, exact; y = fp32(P) * 2^(e - 28)
    // (HS: this lane's B fragments of n-tile nt0, and its Y word of row r0 for n-tile 0 before the swizzle:
    // row & 7 is g, so oscar__ysw(r0 + 8 h, 8 n + 2 t) = yb + 8 h D / 2 + 4 (n ^ g / 2))
    const uint4 *const Rb = Rf + (size_t)nt0 * 32 + lane;
    oscar_u32 *const yb = ys + r0 * (D / 2) + 2 * ((t >> 1) ^ (g & 1)) + (t & 1);
#if OSCAR_APPEND_WGMMA
    oscar_cp_wait0();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); // the copies, seen by the tensor cores
    __syncthreads();
#endif
#pragma unroll 1
    for (int c0 = 0; c0 < nnt; c0 += CN) {
        int a1[CN][4], a2[CN][4], a3[CN][4], a4[OSCAR_APPEND_A4 ? CN : 1][4];
#pragma unroll
        for (int j = 0; j < CN; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) a1[j][c] = a2[j][c] = a3[j][c] = a4[OSCAR_APPEND_A4 ? j : 0][c] = 0;
#if OSCAR_APPEND_WGMMA
        if (OSCAR_APPEND_PROF != 1) {
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int s = 0; s < KS; s++) {
                const unsigned long long bh = oscar__wdesc(sb + (s * (D / 8) + c0) * 256), bl = oscar__wdesc(sb + ((KS + s) * (D / 8) + c0) * 256);
                oscar__wgmma(a1, ah[s], bh, s);
                oscar__wgmma(a2, ah[s], bl, s);
                oscar__wgmma(a2, al[s], bh, 1);
                oscar__wgmma(a3, al[s], bl, s);
            }
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        }
#else
#pragma unroll
        for (int s = 0; s < (OSCAR_APPEND_PROF == 1 ? 0 : KS); s++)
#pragma unroll
            for (int j = 0; j < CN; j++) {
                const uint4 b = HS ? __ldg(Rb + ((size_t)(OSCAR_APPEND_PROF == 3 ? 0 : s) * (D / 8) + c0 + j) * 32)
                                   : __ldg(Rf + ((size_t)(OSCAR_APPEND_PROF == 3 ? 0 : s) * (D / 8) + nt0 + c0 + j) * 32 + lane);
#if OSCAR_APPEND_PROF == 6
                a1[j][0] ^= b.x, a1[j][1] ^= b.y, a2[j][2] ^= b.z, a3[j][3] ^= b.w ^ ah[s][j & 3] ^ al[s][j & 3];
                continue;
#endif
                oscar__imma(a1[j], ah[s], b.x, b.y);
                oscar__imma(a2[j], ah[s], b.z, b.w);
                oscar__imma(OSCAR_APPEND_A4 ? a4[OSCAR_APPEND_A4 ? j : 0] : a2[j], al[s], b.x, b.y);
#if !OSCAR_APPEND_Q3
                oscar__imma(a3[j], al[s], b.z, b.w);
#endif
            }
#endif
#pragma unroll
        for (int j = 0; j < CN; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                float y[2];
#pragma unroll
                for (int q = 0; q < 2; q++) {
                    const int c = 2 * h + q;
#if OSCAR_APPEND_PROF == 1
                    a1[j][c] = (int)(ah[j % KS][c] ^ al[(j + 1) % KS][c]) >> 12;
#endif
                    const int a24 = OSCAR_APPEND_A4 ? a2[j][c] + a4[OSCAR_APPEND_A4 ? j : 0][c] : a2[j][c]; // |a2 + a4| < 2^21
#if OSCAR_APPEND_PROF == 4
                    y[q] = __int_as_float(a1[j][c] ^ a24 ^ a3[j][c]);
#elif OSCAR_APPEND_Q3
                    y[q] = __fmul_rn(__int2float_rn((a1[j][c] << 8) + a24), dn[h] * 256.0f);
#else
                    const long long P = ((long long)a1[j][c] << 16) + (long long)((a24 << 8) + a3[j][c]);
                    y[q] = __fmul_rn(__ll2float_rn(P), dn[h]);
#endif
                }
                const int row = r0 + 8 * h, col = 8 * (nt0 + c0 + j) + 2 * t;
                if (HS) yb[8 * h * (D / 2) + 4 * ((nt0 + c0 + j) ^ (g >> 1))] = oscar__bf2(y[0], y[1]);
                else ys[oscar__ysw(row, col)] = oscar__bf2(y[0], y[1]);
            }
    }
}
template <int CN, bool HS, bool SW>
static __device__ __forceinline__ void oscar__rotate_tile(const oscar_append_params &p, const float *X, const float *mu, const uint4 *Rf, int head,
                                                          oscar_u32 *ys, float *s_ss, int *s_bad, const int4 *s_job, oscar_u8 *sb, int mt) {
    if (((p.k | p.v) & 15u) == 0u) oscar__rotate_tile_t<true, CN, HS, SW>(p, X, mu, Rf, head, ys, s_ss, s_bad, s_job, sb, mt);
    else oscar__rotate_tile_t<false, CN, HS, SW>(p, X, mu, Rf, head, ys, s_ss, s_bad, s_job, sb, mt);
}
#endif

#if OSCAR__FCODEC
// the codec of a flush tile, FT lanes per row (oscar__fcodec): input rows from ys (rotated; s_ss /
// s_bad their checks), window rows leaving the ring from it
static __device__ __forceinline__ void oscar__flush_tile(const oscar_append_params &p, long long job0, int head, int isv, const oscar_u32 *ys, const float *s_ss,
                                                         const int *s_bad, const int4 *s_job) {
    const int tid = threadIdx.x, lane = tid & 31, t = tid % FT;
#pragma unroll 1
    for (int r = tid / FT; r < TR; r += FR) {
        const long long job = job0 + r;
        const bool valid = job < p.n_jobs;
        const int4 jb = s_job[r];
        const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;
        oscar_u32 w[16];
#pragma unroll
        for (int j = 0; j < 16; j++) w[j] = 0u;
        if (valid && src >= 0) {
            const float ss = s_ss[r];
            const int bad = s_bad[r];
            unsigned int ebits = bad ? OSCAR_ERR_BIT_NONFINITE : 0u;
            if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;
            if (ebits) { // stored as zeros; the host learns of it through oscar_cuda_kv_errors()
                if (t == 0) atomicOr((unsigned int *)p.err, ebits);
            } else {
                // oscar__ysw(r, 4 FT i + 4 t) = r D / 2 + 2 (t ^ x % FT) + 2 FT (i ^ x / FT), x = r & 7: one
                // base per class i % (8 / FT), the rest immediate offsets
                const int x = r & 7, base = r * (D / 2) + 2 * (t ^ (x % FT));
                int cb[8 / FT];
#pragma unroll
                for (int c = 0; c < 8 / FT; c++) cb[c] = base + 2 * FT * ((c ^ (x / FT)) - c);
#pragma unroll
                for (int i = 0; i < 8; i++) {
                    const uint2 a = *(const uint2 *)&ys[cb[i % (8 / FT)] + 2 * FT * i];
                    w[2 * i] = a.x, w[2 * i + 1] = a.y;
                }
            }
        } else if (valid) { // a window row leaving the ring: rotated when it was written
            oscar__fring(p, w, slot, pos, head, isv, t);
        }
        oscar__fcodec<OSCAR_FCNT_MMA != 0>(p, w, valid, page, head, isv, pos, t, lane);
    }
}
#endif

#if OSCAR_APPEND_MINB > 0
#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32, OSCAR_APPEND_MINB)
#else
#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32)
#endif
// KW 0: oscar_append (ys: Y [TR][D] in BF16, the rotated rows of a tile with input rows (oscar__ysw);
// rs: the warps' code bytes); KW 1: oscar_append_wht, H rotations only (rows transformed per warp, no
// tile: xs, s_ss, s_bad unused, rs holds just the code bytes)
template <int KW, int CN, bool HS = false, bool SW = false>
static __device__ __forceinline__ void oscar__append_impl(const oscar_append_params &p, oscar_u32 *ys, float *rs, float *s_ss, int *s_bad, int4 *s_job, oscar_u8 *sb) {
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;
    const int trb = SW && p.tr ? p.tr : TR; // the block's jobs (oscar_append_s: p.tr, 16 or a whole tile)
    const long long job0 = (long long)blockIdx.x * trb;
    const float *X = (const float *)(isv ? p.v : p.k);
    const float *MU = oscar__mean_row(p, isv, head); // subtracted from the input rows before anything else
    // launched to start while the previous kernel runs (oscar_cuda_kv.append_pdl): nothing it wrote (input rows,
    // block tables, ring rows) is read or written before the wait; then the next kernel may start. p.wlate (a
    // write launch behind its call's flush launch, which reads no ring row, so nothing this launch writes is read
    // by the flush): it takes the epoch that the flush's block (0, 0) published after its own wait, by a load with
    // acquire (the input rows' producer is done and its rows visible), and waits for the flush at its end
    // (oscar__append_tiled), so it still completes after it
    if (!p.wlate) oscar_pdl_wait();
    else oscar__epoch_take(p);
    oscar__epoch_put(p);
    oscar_pdl_launch();
    oscar__bt_inline(p);
#if OSCAR_INT2
    // the B fragments of the layer's (head's) fixed-point rotation, D * D * 2 bytes (H caches: the
    // fp32 matrices, only tested for presence)
    const oscar_u8 *R = (const oscar_u8 *)(isv ? p.vrot : p.krot);
    if (R) R += ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? head : 0)) * D * D * 2;
#endif
    bool tiled = false;
#if OSCAR_INT2
    if (!KW && R && !p.wht) { // (H rotations: each warp transforms its rows in row_in, no tile)
        // ---- the tile's jobs, looked up once into s_job (oscar__fjob); does the tile hold input
        // rows (else it only moves window rows, rotated before) ----
        bool any = false;
        if (tid < TR) { // (past the block's jobs: none, for the warps that oscar__rotate_tile gives the tile's other MMA tiles)
            const int4 jb = tid < trb ? oscar__fjob(p, job0 + tid) : make_int4(-1, 0, 0, 0);
            s_job[tid] = jb;
            any = jb.x >= 0;
        }
        tiled = __syncthreads_or(any) != 0; // block-uniform; s_job visible to all
        if (tiled) {
            // the MMA tiles that hold the tile's jobs (the jobs past the launch's last are none)
            const int mt = p.n_jobs - job0 >= trb ? trb / 16 : (int)(p.n_jobs - job0 + 15) / 16;
            oscar__rotate_tile<CN, HS, SW>(p, X, MU, (const uint4 *)R, head, ys, s_ss, s_bad, s_job, sb, mt);
            __syncthreads();
        }
#if OSCAR_APPEND_PROF == 2
        if (tiled && s_job[0].w >= 0) {
            if (ys[threadIdx.x * 3] == 0x12345u) atomicOr((unsigned int *)p.err, 4u);
            return;
        }
#endif
    }
#endif
#if OSCAR__FCODEC && OSCAR_INT2
    // a flush tile (the launch's rows all go to pages; input rows rotated into ys, or, when the
    // tile has none, only window rows leaving the ring): the codec with FT lanes per row
    // (oscar__fcodec) instead of a warp per row; the same bytes
    if (!KW && R && !p.wht && s_job[0].w >= 0) {
        oscar__flush_tile(p, job0, head, isv, ys, s_ss, s_bad, s_job);
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
                ss = s_ss[r];
                bad = s_bad[r];
#pragma unroll
                for (int jj = 0; jj < NC; jj++) {
                    const int c = lane + 32 * jj;
                    x[jj] = oscar__bh(ys[oscar__ysw(r, c & ~1)], c & 1);
                }
            } else {
                const float *row = X + ((size_t)src * p.Hkv + head) * D;
#pragma unroll
                for (int jj = 0; jj < NC; jj++) {
                    const float v = OSCAR_CENTER ? __fsub_rn(row[lane + 32 * jj], MU[lane + 32 * jj]) : row[lane + 32 * jj];
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
            if (R && p.wht && !tiled && !ebits) oscar_wht_row<D>(x, lane);
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
    for (int r0 = warp * OSCAR_APPEND_NR; r0 < trb; r0 += AW * OSCAR_APPEND_NR) {
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

#ifndef OSCAR_APPEND_BREC
#define OSCAR_APPEND_BREC 0 // timing only: the tiled append kernels record each block (start, length, SM, kernel) in oscar_abrec
#endif
#if OSCAR_APPEND_BREC
#define OSCAR__ABREC_CAP 131072
__device__ unsigned long long oscar_abrec[2 * OSCAR__ABREC_CAP]; // [2 i]: start ns (globaltimer); [2 i + 1]: ns | SM << 40 | kernel << 56
__device__ unsigned oscar_abrec_n;                                // records taken (blocks past the capacity are not recorded)
static __device__ __forceinline__ unsigned long long oscar__gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
static __device__ __forceinline__ void oscar__brec_end(unsigned long long t0, int kid) {
    if (threadIdx.x == 0) {
        const unsigned i = atomicAdd(&oscar_abrec_n, 1u);
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        if (i < OSCAR__ABREC_CAP) {
            oscar_abrec[2 * i] = t0;
            oscar_abrec[2 * i + 1] = (oscar__gtime() - t0) | (unsigned long long)sm << 40 | (unsigned long long)kid << 56;
        }
    }
}
#define OSCAR__BREC_BEGIN const unsigned long long brec_t0 = oscar__gtime();
#define OSCAR__BREC_END(kid) oscar__brec_end(brec_t0, kid);
#define OSCAR__BREC_MARK(kid) oscar__brec_end(oscar__gtime(), kid); // a point in time: length 0
#else
#define OSCAR__BREC_BEGIN
#define OSCAR__BREC_END(kid)
#endif
// the tiled kernels' body with CN n-tiles per accumulator chunk; dynamic shared memory, OSCAR__APPEND_SMEM bytes
// (oscar_append_smem, for the host): Y [TR][D] BF16 | code bytes | s_ss [TR] | s_bad [TR] | s_job [TR] | (wgmma) Rh, Rl
template <int CN, bool HS, bool SW>
static __device__ __forceinline__ void oscar__append_tiled(const oscar_append_params &p) {
    extern __shared__ __align__(16) oscar_u8 dsm[];
    oscar_u32 *ys = (oscar_u32 *)dsm;
    float *rs = (float *)(dsm + TR * D * 2);
    float *s_ss = rs + AW * OSCAR_APPEND_NR * D / 4;
    oscar__append_impl<0, CN, HS, SW>(p, ys, rs, s_ss, (int *)(s_ss + TR), (int4 *)(s_ss + 2 * TR), dsm + OSCAR__APPEND_SMEM0);
    if (p.wlate) {
#if OSCAR_APPEND_BREC
        __syncthreads(); // (timing only: every warp's own work done, recorded before the block waits for the flush)
        OSCAR__BREC_MARK(4)
#endif
        oscar_pdl_wait(); // (every thread: the block exits only once the flush launch is done)
    }
}
extern "C" __global__ void OSCAR_APPEND_BOUNDS oscar_append(const oscar_append_params p) {
    OSCAR__BREC_BEGIN
    oscar__append_tiled<CNT, OSCAR_APPEND_HOIST == 1, false>(p);
    OSCAR__BREC_END(2)
}

// oscar_append for launches of few jobs per (head, K|V) (the host takes it where a launch has at most 32, the one-token
// appends of a decode step: oscar_cuda_kv.append_small): a tile whose jobs fill 1 or 2 of its 16-row MMA tiles rotates
// them with 4 or 2 warps (at most WPS) splitting each MMA tile's columns, where oscar_append gives a warp each MMA tile
// and the warps past the jobs rotate zeros: the product's chain a quarter as long for one row at d 128. A kernel of its
// own: the run-time split in oscar_append cost 1.4% on 2,048-token appends and 3% on long d 256 flushes (run s33-4).
// With p.tr 16 a block takes 16 jobs instead of a whole tile (grid ceil(n_jobs / 16)): write launches only, the one behind
// its call's flush, whose blocks start only in the flush's drain, and those of too few whole tiles for the SMs
// (oscar_cuda_kv.append_wsplit).
// The same bytes. Built for INT2 caches without the warpgroup product (oscar_append_s_built says)
#if OSCAR_INT2 && !OSCAR_APPEND_WGMMA
#define OSCAR_APPEND_SMALL 1
extern "C" __global__ void OSCAR_APPEND_BOUNDS oscar_append_s(const oscar_append_params p) {
    OSCAR__BREC_BEGIN
    oscar__append_tiled<CNT, OSCAR_APPEND_HOIST == 1, true>(p);
    OSCAR__BREC_END(3)
}
#else
#define OSCAR_APPEND_SMALL 0
#endif
extern "C" __device__ int oscar_append_s_built = OSCAR_APPEND_SMALL;

// oscar_append for long flush launches (the host takes it where a launch has many waves of tiles,
// oscar_cuda_kv.append_wide): one n-tile per accumulator chunk and 8 blocks per SM (64 registers), where
// the default's bound trades occupancy for the short launches' latency (kernels/NOTES.md w37). The same bytes.
// Built at d 128 for INT2 caches on sm_90+, without the warpgroup product (oscar_append_w_built says)
#ifndef OSCAR_APPEND_WIDE
#if OSCAR_INT2 && D == 128 && !OSCAR_APPEND_WGMMA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define OSCAR_APPEND_WIDE 1
#else
#define OSCAR_APPEND_WIDE 0
#endif
#endif
#ifndef OSCAR_APPEND_WCNT
#define OSCAR_APPEND_WCNT 1
#endif
#ifndef OSCAR_APPEND_WMINB
#define OSCAR_APPEND_WMINB 8
#endif
extern "C" __device__ int oscar_append_w_built = OSCAR_APPEND_WIDE;
#if OSCAR_APPEND_WIDE
#if OSCAR_APPEND_STAGGER > 0
// the first wave's blocks of one SM start OSCAR_APPEND_STAGGER ns apart by their rank there (the block scheduler hands
// out the first wave in linear order, one block per SM in turn), so that the SM has a tile to work on while the later
// ranks' rows load, instead of 8 blocks that wait for their 34.6 MB together and then compete for the SM: on an H200
// the first wave's blocks took 29.2 instead of 34.3 us and the launch 4 us less (run s40-2). Not inlined: the kernel's
// register allocation stays as without it. The sleeps are also bounded in number (each lasts 0 to 2 x 200 ns by the
// PTX rules), so that a timer that does not advance cannot hold a block for good
static __device__ __noinline__ void oscar__stagger(unsigned sms) {
    const unsigned lin = blockIdx.x + gridDim.x * blockIdx.y, rk = lin / sms;
    if (rk > 0 && rk < OSCAR_APPEND_WMINB) {
        unsigned long long t0, t1;
        const unsigned long long wait = (unsigned long long)rk * OSCAR_APPEND_STAGGER;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        for (unsigned i = 0; i < 4u * (unsigned)(wait / 200u + 1u); i++) {
            __nanosleep(200);
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
            if (t1 - t0 >= wait) break;
        }
    }
}
#endif
extern "C" __global__ void __launch_bounds__(AW * 32, OSCAR_APPEND_WMINB) oscar_append_w(const oscar_append_params p) {
    OSCAR__BREC_BEGIN
#if OSCAR_APPEND_STAGGER > 0
    if (p.sms > 0) oscar__stagger((unsigned)p.sms);
#endif
    oscar__append_tiled<OSCAR_APPEND_WCNT, OSCAR_APPEND_HOIST != 0, false>(p);
    OSCAR__BREC_END(1)
}
#endif

#ifndef OSCAR_APPEND_WHT_MINB // blocks per SM for the H-rotation kernel (no tile buffers: registers decide)
#define OSCAR_APPEND_WHT_MINB 8
#endif
// caches whose rotations are all H (the host launches it when p.wht): 512 B of shared memory per block
extern "C" __global__ void __launch_bounds__(AW * 32, OSCAR_APPEND_WHT_MINB) oscar_append_wht(const oscar_append_params p) {
    __shared__ __align__(16) float cb[AW * OSCAR_APPEND_NR * D / 4];
    oscar__append_impl<1, CNT>(p, (oscar_u32 *)0, cb, (float *)0, (int *)0, (int4 *)0, (oscar_u8 *)0);
}

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
// Needs sm_80 (min / max on bf16x2; sm_90's set on bf16x2 where it has it, integer and fp32 compares
// on sm_80) and groups of at least D / 8 channels (a run of 4 FT values lies in one group).
// Grid (ceil(n_jobs / FR), Hkv * 2), 128 threads.
// ---------------------------------------------------------------------------------------------
#if OSCAR__FCODEC
extern "C" __global__ void __launch_bounds__(128, OSCAR_FWHT_MINB) oscar_append_fwht(const oscar_append_params p) {
    const int tid = threadIdx.x, t = tid % FT, lane = tid & 31;
    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;
    const long long job = (long long)blockIdx.x * FR + tid / FT;
    oscar_pdl_wait(); // as oscar__append_impl
    oscar_pdl_launch();
    oscar__bt_inline(p);
    const bool valid = job < p.n_jobs;
    const int4 jb = oscar__fjob(p, job);
    const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;
    // ---- the row: fp32 input (rotated here) or the BF16 ring row (rotated when it was written) ----
    float x[8][4];
    float ss = 0.0f;
    if (valid && src >= 0) {
        // this lane's elements 4 (t + FT i) .. + 3 (compile-time offsets from the lane's base)
        const float *row = (const float *)((const float4 *)((const float *)(isv ? p.v : p.k) + ((size_t)src * p.Hkv + head) * D) + t);
        const float *mu = OSCAR_CENTER ? (const float *)((const float4 *)oscar__mean_row(p, isv, head) + t) : (const float *)0;
        float4 v4[8];
#pragma unroll
        for (int i = 0; i < 8; i++) v4[i] = oscar__ld4c(row, mu, 4 * FT * i, true);
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
    oscar__fcodec<OSCAR_FCNT_MMA == 1>(p, w, valid && page >= 0, page, head, isv, pos, t, lane);
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
