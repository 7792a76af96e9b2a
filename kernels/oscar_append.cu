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
// the INT2 codec (SPEC section 4) for NR rows of one (head, K|V), all to pages; same fp32 operation
// sequence as the CPU reference
template <int NR>
static __device__ __forceinline__ void oscar__codec(const oscar_append_params &p, float (&x)[NR][NC], int isv, int head,
                                                    const int (&pos)[NR], const int (&page)[NR], oscar_u8 *cs, int lane) {
    const float clip = isv ? p.v_clip : p.k_clip;
    if (clip > 0.0f) {
        int idx = (int)floorf(clip * (float)D);
        if (idx > D - 1) idx = D - 1;
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
        const int prow = (pos[r] - p.S0) % p.P;
        oscar_u8 *codes = (oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page[r]) * p.Hkv + head) * (size_t)p.head_page_bytes +
                          (size_t)isv * p.P * (D / 4 + NGR * 4);
        oscar_u32 *sm = (oscar_u32 *)(codes + (size_t)p.P * (D / 4)) + (size_t)prow * NGR;
        codes += (size_t)prow * (D / 4);
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

#if OSCAR_APPEND_MINB > 0
#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32, OSCAR_APPEND_MINB)
#else
#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32)
#endif
extern "C" __global__ void OSCAR_APPEND_BOUNDS oscar_append(const oscar_append_params p) {
    __shared__ __align__(16) float xs[D * TR]; // X^T [D][TR] while rotating, then Y [TR][D]
    __shared__ __align__(16) float rs[KC * D]; // R rows k0 .. k0+KC, then the warps' code bytes
    __shared__ float s_ss[AW * 32];
    __shared__ int s_bad[AW * 32];
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
    if (R) {
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
#if OSCAR_APPEND_ROW
            if (R && !ebits) {
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
