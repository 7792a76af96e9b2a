// oscar_append.cu - the write path of the device cache: rotate K/V rows, round to BF16, store
// sink/window rows, and flush full pages (clip, quantise, pack) exactly like the CPU codec.
//
// Compile-time: OSCAR_D (head dim: 64, 128, 256), OSCAR_GS (group size, INT2 mode),
// OSCAR_INT2 (1: INT2 history pages, 0: BF16 pages), OSCAR_ROT_F64 (1: accumulate the
// rotation in double, as the CPU reference does when it does so).
// Must be compiled with --fmad=false: every fp32 operation rounds exactly as on the CPU.
//
// One warp per (job, KV head, K|V) row; lane l owns channels c = l + 32*jj.
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

#define D OSCAR_D
#define GS OSCAR_GS
#define NC (D / 32)
#define NGR (D / GS)
#define AW 4 // warps per block

#if (D % 32) != 0 || (D % GS) != 0 || GS < 4
#error "unsupported head dim / group size"
#endif

extern "C" __global__ void __launch_bounds__(AW * 32) oscar_append(const oscar_append_params p) {
    __shared__ float xs[AW][D];
    __shared__ oscar_u8 cs[AW][D];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const long long item = (long long)blockIdx.x * AW + warp;
    const long long total = (long long)p.n_jobs * p.Hkv * 2;
    if (item >= total) return; // whole warp leaves together; no block barriers below
    const int job = (int)(item % p.n_jobs);
    const int hv = (int)(item / p.n_jobs);
    const int head = hv % p.Hkv, isv = hv / p.Hkv;
    const int4 jb = ((const int4 *)p.jobs)[job];
    const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;
    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;
    oscar_u16 *ringrow = 0;
    if (pos >= p.S0)
        ringrow = (oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D;

    float x[NC];
    if (src >= 0) {
        const float *row = (const float *)(isv ? p.v : p.k) + ((size_t)src * p.Hkv + head) * D;
        int bad = 0;
        float ss = 0.0f;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) {
            float v = row[lane + 32 * jj];
            xs[warp][lane + 32 * jj] = v;
            if (!isfinite(v)) bad = 1;
            ss += v * v;
        }
        bad = __any_sync(0xffffffffu, bad);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
        unsigned int ebits = bad ? OSCAR_ERR_BIT_NONFINITE : 0u;
#if OSCAR_INT2
        if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;
#endif
        __syncwarp();
#if OSCAR_INT2
        const float *R = (const float *)(isv ? p.vrot : p.krot);
        if (R && !ebits) {
            R += ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 ? head : 0)) * D * D;
#pragma unroll
            for (int jj = 0; jj < NC; jj++) {
                const int c = lane + 32 * jj;
#if OSCAR_ROT_F64
                double acc = 0.0;
                for (int i = 0; i < D; i++) acc += (double)xs[warp][i] * (double)R[(size_t)i * D + c];
                x[jj] = (float)acc;
#else
                float acc = 0.0f;
                for (int i = 0; i < D; i++) acc += xs[warp][i] * R[(size_t)i * D + c];
                x[jj] = acc;
#endif
            }
        } else
#endif
        {
#pragma unroll
            for (int jj = 0; jj < NC; jj++) x[jj] = xs[warp][lane + 32 * jj];
        }
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

    if (page < 0) { // BF16 row for the sink or the window ring
        oscar_u16 *dst = pos < p.S0 ? (oscar_u16 *)p.sink + ((slab * 2 + isv) * p.S0 + pos) * D : ringrow;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) dst[lane + 32 * jj] = oscar_f32_to_bf16(x[jj]);
        return;
    }

    const int prow = (pos - p.S0) % p.P;
    oscar_u8 *base = (oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + head) * (size_t)p.head_page_bytes;
#if !OSCAR_INT2
    {
        oscar_u16 *dst = (oscar_u16 *)base + ((size_t)isv * p.P + prow) * D;
#pragma unroll
        for (int jj = 0; jj < NC; jj++) dst[lane + 32 * jj] = oscar_f32_to_bf16(x[jj]);
    }
#else
    // ---- INT2 codec (SPEC section 4), same fp32 operation sequence as the CPU reference ----
    const float clip = isv ? p.v_clip : p.k_clip;
    if (clip > 0.0f) {
        int idx = (int)floorf(clip * (float)D);
        if (idx > D - 1) idx = D - 1;
        // thr = a[idx] of the ascending |x|: smallest u with #{|x| <= u} > idx (bit patterns
        // of non-negative floats order like the floats)
        oscar_u32 lo = 0u, hi = 0x7f7fffffu;
        while (lo < hi) {
            const oscar_u32 mid = lo + ((hi - lo) >> 1);
            int cnt = 0;
#pragma unroll
            for (int jj = 0; jj < NC; jj++) cnt += (__float_as_uint(x[jj]) & 0x7fffffffu) <= mid;
            cnt = __reduce_add_sync(0xffffffffu, cnt);
            if (cnt > idx) hi = mid;
            else lo = mid + 1u;
        }
        const float thr = __uint_as_float(lo);
#pragma unroll
        for (int jj = 0; jj < NC; jj++) {
            if (x[jj] > thr) x[jj] = thr;
            if (x[jj] < -thr) x[jj] = -thr;
        }
    }
    float gmn[NC], gmx[NC];
#pragma unroll
    for (int jj = 0; jj < NC; jj++) {
        float a = x[jj], b = x[jj];
#pragma unroll
        for (int o = 1; o < 32 && o < GS; o <<= 1) {
            a = fminf(a, __shfl_xor_sync(0xffffffffu, a, o));
            b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
        }
        gmn[jj] = a;
        gmx[jj] = b;
    }
#if GS > 32
#pragma unroll
    for (int j0 = 0; j0 < NC; j0 += GS / 32) {
        float a = gmn[j0], b = gmx[j0];
#pragma unroll
        for (int t = 1; t < GS / 32; t++) {
            a = fminf(a, gmn[j0 + t]);
            b = fmaxf(b, gmx[j0 + t]);
        }
#pragma unroll
        for (int t = 0; t < GS / 32; t++) {
            gmn[j0 + t] = a;
            gmx[j0 + t] = b;
        }
    }
#endif
    oscar_u8 *codes = base + (size_t)isv * p.P * (D / 4 + NGR * 4);
    oscar_u32 *sm = (oscar_u32 *)(codes + (size_t)p.P * (D / 4)) + (size_t)prow * NGR;
    codes += (size_t)prow * (D / 4);
#pragma unroll
    for (int jj = 0; jj < NC; jj++) {
        const int c = lane + 32 * jj;
        const float scale = (gmx[jj] - gmn[jj]) / 3.0f;
        const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[jj]);
        const float s = oscar_f16_to_f32(s16), m = oscar_f16_to_f32(m16);
        int q = 0;
        if (s != 0.0f) {
            const float t = floorf((x[jj] - m) / s + 0.5f);
            q = t < 0.0f ? 0 : (t > 3.0f ? 3 : (int)t);
        }
        cs[warp][c] = (oscar_u8)q;
        if (c % GS == 0) sm[c / GS] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);
    }
    __syncwarp();
    for (int b = lane; b < D / 4; b += 32)
        codes[b] = (oscar_u8)(cs[warp][b] | (cs[warp][b + D / 4] << 2) | (cs[warp][b + D / 2] << 4) | (cs[warp][b + 3 * D / 4] << 6));
#endif
}
