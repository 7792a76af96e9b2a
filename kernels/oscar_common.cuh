// oscar_common.cuh - shared helpers and kernel parameter blocks for the OSCAR kernels.
// Compiled by NVRTC only (embedded into oscar_cuda.h by `make embed`). The parameter structs
// must match the host copies in oscar_cuda.h field for field: 8-byte fields first, then ints.
#pragma once

typedef unsigned char oscar_u8;
typedef unsigned short oscar_u16;
typedef unsigned int oscar_u32;
typedef unsigned long long oscar_u64;

// Append / flush jobs: one per token; each job covers all KV heads, K and V.
#define OSCAR_INLINE_INTS 256
struct oscar_append_params {
    oscar_u64 k, v;        // const float [n][Hkv][D] unrotated input rows
    oscar_u64 jobs;        // const int4 [n_runs][2] runs of consecutive positions of one sequence, or 0: in inl
                           //   (launches whose runs fit: no upload before the launch):
                           //   [0] x = first job of the run in this launch, y = its position,
                           //   z = sequence slot, w = input row of position 0 (row = w + pos);
                           //   [1] x = tokens held before the call (positions below come from
                           //   the ring), y = 1: flush to the page of bt (0: BF16 sink/window write);
                           //   runs in inl, flush: w = the sequence's first page new in this call (pages
                           //   from w on are at inl[(z & 0xffff) + page - w], z >> 16 of them; 0x7fffffff: none)
    oscar_u64 pool;        // u8 [L][max_pages][Hkv][head_page_bytes]
    oscar_u64 sink;        // u16 [max_seqs][L][Hkv][2][S0][D]
    oscar_u64 win;         // u16 [max_seqs][L][Hkv][2][ring][D]
    oscar_u64 krot, vrot;  // const float [L][rot_heads][D][D] or 0
    oscar_u64 err;         // u32 sticky error bits
    oscar_u64 bt;          // const int [max_seqs][max_pages] block tables (page of a flushed position)
    oscar_u64 kmean, vmean; // const float [L][Hkv][D] subtracted from the input rows before anything else
                           //   (oscar_kv_config.center 1, as the CPU cache), or 0
    int n_jobs, layer, L, Hkv, S0, ring, P, max_pages, rot_heads, head_page_bytes, n_runs;
    int wht;               // every rotation is H: rows are rotated by the fast transform (the CPU's oscar_wht)
    int wlate;             // the tiled kernels, launched under PDL behind their call's flush launch: 1: wait for it at
                           //   the end instead of the start, and take epoch from err[OSCAR_ERR_EPOCH] before reading
                           //   input rows (host: oscar_cuda_kv.append_wlate)
    int epoch;             // > 0 with wlate 0 (that flush launch): block (0, 0) stores it to err[OSCAR_ERR_EPOCH] after
                           //   its wait, before it lets the next launch in
    int tr;                // oscar_append_s: jobs per block, 16 or 0 (a whole tile, 64 at d 128): 16 for write launches
                           //   (sink / window rows) only: behind its call's flush (wlate), whose blocks then end within
                           //   the flush's drain, or too few whole tiles for the SMs (host: append_wsplit). Not for a
                           //   flush: its codec wants whole tiles (16-job flush blocks wrote other pages, run s42-6)
    int sms;               // oscar_append_w: the device's SMs, whose first wave of blocks then starts by rank on the SM
                           //   (OSCAR_APPEND_STAGGER), or 0: all at once (host: oscar_cuda_kv.append_stagger)
    float k_clip, v_clip;  // <= 0: no clip
    int inl[OSCAR_INLINE_INTS]; // where jobs is 0: the runs, then (flush) the new pages, which block (0, 0) writes to bt
};

// Decode attention (one launch per layer and batch).
#define OSCAR_INLINE_SEQS 64
struct oscar_attn_params {
    oscar_u64 q;           // const float [B][Hq][D] rotated queries
    oscar_u64 part_o;      // float [B][Hq][S][D] unnormalised partial outputs
    oscar_u64 part_ml;     // float [B][Hq][S][2] running max (log2 domain) and sum
    oscar_u64 seqinfo;     // const int [B][2]: sequence slot, tokens held by the layer; 0: inline
    oscar_u64 pool, sink, win;
    oscar_u64 bt;          // const int [max_seqs][max_blocks] block tables
    oscar_u64 counts;      // int [B][Hkv * OSCAR_HSPLIT] or 0: oscar_decode_w adds 1 per split done (the merge polls it)
    oscar_u64 y;           // the cluster-merge kernels (oscar_decode_wc): float [B][Hq][D] outputs
    oscar_u64 vmo;         //   and const float [L][Hkv][D] added to them (cfg.center 1), or 0
    int layer, L, Hkv, S0, W, P, ring, max_pages, max_blocks, n_splits, head_page_bytes;
    int qwht;              // 1: q is not rotated and every rotation is H: oscar_decode_w applies q . H itself
    int vwht;              // the cluster-merge kernels: 1: outputs . H (every rotation H, R_v not absorbed), 0: none
    int l2pf;              // oscar_decode_w (INT2, sm_90+): each warp's first l2pf units prefetched into L2 before its wait
    float scale_log2;      // softmax scale * log2(e)
    int inline_info[2 * OSCAR_INLINE_SEQS]; // seqinfo for batches of up to OSCAR_INLINE_SEQS
};

// Query rotation and split merge (+ un-rotation).
struct oscar_rot_params {
    oscar_u64 x;           // const float [B][Hq][D]
    oscar_u64 y;           // float [B][Hq][D]
    oscar_u64 rot;         // const float [L][rot_heads][D][D] (for the merge: R_v transposed) or 0
    oscar_u64 part_o, part_ml;
    oscar_u64 counts;      // the merge: int [B][Hkv * hsplit] splits done (oscar_decode_w), or 0: wait for the whole grid
    oscar_u64 vmo;         // the merge: const float [L][Hkv][D] added to the outputs (the V mean the rows were
                           //   stored without, oscar_kv_config.center 1), or 0
    int layer, Hq, gqa, rot_heads, n_splits;
    int hsplit;            // >= 1: the decode ran hsplit groups of gqa / hsplit query heads per KV head
};

// the host's copies of these blocks (oscar__*_params in oscar_cuda.h) come with their sizes: a field added or removed
// on one side only stops the compile here instead of shifting every later field
#ifdef OSCAR_HOST_APPEND_PARAMS
static_assert(sizeof(oscar_append_params) == OSCAR_HOST_APPEND_PARAMS, "oscar_append_params: the host's copy (oscar__append_params in oscar_cuda.h) has another size");
static_assert(sizeof(oscar_attn_params) == OSCAR_HOST_ATTN_PARAMS, "oscar_attn_params: the host's copy (oscar__attn_params in oscar_cuda.h) has another size");
static_assert(sizeof(oscar_rot_params) == OSCAR_HOST_ROT_PARAMS, "oscar_rot_params: the host's copy (oscar__rot_params in oscar_cuda.h) has another size");
#endif

#define OSCAR_ERR_BIT_NONFINITE 1u
#define OSCAR_ERR_BIT_RANGE 2u
#define OSCAR_ERR_EPOCH 24 // err[24]: the epoch a flush launch publishes for the write launch behind it (wlate)
#define OSCAR_NEG_INF (__int_as_float(0xff800000))

static __device__ __forceinline__ float oscar_bf16_to_f32(oscar_u16 h) {
    return __uint_as_float(((oscar_u32)h) << 16);
}

// x . H of one row of DD values held by a warp in the lane layout x[jj] = element lane + 32 jj, with the CPU's operations
// (oscar_wht: butterflies of length 1, 2, ..., DD/2, the lower element of a pair taking a + b and
// the upper a - b, then one multiply by (float)(1 / sqrt(DD))): the same bits (the write path of H
// caches; the decode's query rotation of such caches)
template <int DD>
static __device__ __forceinline__ void oscar_wht_row(float (&x)[DD / 32], int lane) {
#pragma unroll
    for (int len = 1; len < 32 && len < DD; len <<= 1) { // partner: lane ^ len, same jj
        const bool up = (lane & len) != 0;
#pragma unroll
        for (int jj = 0; jj < DD / 32; jj++) {
            const float o = __shfl_xor_sync(0xffffffffu, x[jj], len);
            x[jj] = up ? __fsub_rn(o, x[jj]) : __fadd_rn(x[jj], o);
        }
    }
#pragma unroll
    for (int len = 32; len < DD; len <<= 1) { // partner: jj ^ (len / 32), same lane
#pragma unroll
        for (int jj = 0; jj < DD / 32; jj++)
            if (!(jj & (len / 32))) {
                const float a = x[jj], b = x[jj + len / 32];
                x[jj] = __fadd_rn(a, b);
                x[jj + len / 32] = __fsub_rn(a, b);
            }
    }
    const float sc = (float)(1.0 / sqrt((double)DD));
#pragma unroll
    for (int jj = 0; jj < DD / 32; jj++) x[jj] = __fmul_rn(x[jj], sc);
}

// round to nearest even; NaN stays NaN (quiet)
static __device__ __forceinline__ oscar_u16 oscar_f32_to_bf16(float f) {
    oscar_u32 x = __float_as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (oscar_u16)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (oscar_u16)(x >> 16);
}

static __device__ __forceinline__ oscar_u16 oscar_f32_to_f16(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

static __device__ __forceinline__ float oscar_f16_to_f32(oscar_u16 h) {
    float f;
    unsigned short hh = h;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(hh));
    return f;
}

// byte b of w (0..255, here 0..3) as a float: 0x4B0000bb is 2^23 + bb
static __device__ __forceinline__ float oscar_byte_f(oscar_u32 w, int b) {
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u | (oscar_u32)b)) - 8388608.0f;
}

// fp16 m16n8k16 MMA, fp32 accumulate (the decode's P.V and scores; the write path's rotation)
static __device__ __forceinline__ void oscar_mma_f16(float c[4], uint4 a, oscar_u32 b0, oscar_u32 b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}
// (x0, x1) -> fp16 pair hi (x0 low half) and the rounding remainders lo
static __device__ __forceinline__ void oscar_h2_split(float x0, float x1, oscar_u32 *hi, oscar_u32 *lo) {
    oscar_u32 h, l;
    float f0, f1;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(x1), "f"(x0));
    asm("{.reg .f16 a, b;\n mov.b32 {a, b}, %2;\n cvt.f32.f16 %0, a;\n cvt.f32.f16 %1, b;}" : "=f"(f0), "=f"(f1) : "r"(h));
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(l) : "f"(x1 - f1), "f"(x0 - f0));
    *hi = h;
    *lo = l;
}
// -DOSCAR_CPL2 (measurement switch): 1 / 2 ask L2 to fetch 128 / 256 bytes around each copy;
// 0 (default): plain copies (kernels/NOTES.md, v38: within 1% either way)
#ifndef OSCAR_CPL2
#define OSCAR_CPL2 0
#endif
static __device__ __forceinline__ void oscar_cp_async16(void *smem, const void *gmem) {
    oscar_u32 s = (oscar_u32)__cvta_generic_to_shared(smem);
#if OSCAR_CPL2 == 1
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#elif OSCAR_CPL2 == 2
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#endif
}
static __device__ __forceinline__ void oscar_cp_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
static __device__ __forceinline__ void oscar_cp_wait0(void) { asm volatile("cp.async.wait_group 0;\n" ::); }
static __device__ __forceinline__ void oscar_cp_wait1(void) { asm volatile("cp.async.wait_group 1;\n" ::); }

// programmatic dependent launch (sm_90+; no-ops before): the host launches the append kernels,
// oscar_rotate_q, oscar_decode_w and oscar_merge so that each may start while the previous kernel of
// the stream runs. A kernel calls oscar_pdl_wait before it reads anything the previous kernel wrote (that
// returns once the previous grid has finished and its writes are visible), and oscar_pdl_launch
// to let the next kernel start early; the merges, where the host passes split counts, poll the
// count of their KV head instead. The merges let the next kernel in only at their end: placed beside
// their blocks, a batch-1 decode grid takes the SMs unevenly (kernels/NOTES.md w41, run s33-8:
// 1 x 32K 17.0 against 14.8 us in a graph with the trigger after the merge's loads, 20.1 at its start).
static __device__ __forceinline__ void oscar_pdl_wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void oscar_pdl_launch(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
