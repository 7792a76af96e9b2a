/* oscar_cuda.h - v0.1.0 - GPU kernels for OSCAR INT2 KV-cache compression - MIT

   The GPU companion of oscar.h: a device-side paged KV cache with the same semantics and byte
   layout as oscar.h's CPU cache, its write path (rotate, clip, quantise, pack) and split-K decode
   attention over it, for INT2 and all-BF16 caches. Needs no CUDA SDK to build: the driver
   (libcuda) and NVRTC are loaded with dlopen at run time and the kernels, embedded below as
   CUDA C++ source, are compiled for the device on first use.

   DO THIS
       #define OSCAR_CUDA_IMPLEMENTATION  (in exactly one .c or .cpp file, before the include)
       #include "oscar_cuda.h"            (includes oscar.h: its declarations only)
   Link with -ldl (and oscar.h's implementation somewhere, for the CPU side).

   USAGE (one decode step of a batch, one layer)
       oscar_cuda cu; oscar_cuda_config cc = {0};
       if (oscar_cuda_init(&cu, &cc) != OSCAR_OK) { puts(cu.msg); return 1; }
       oscar_cuda_kv kv; oscar_kv_config cfg = {0};          // the CPU cache's config
       cfg.n_layers = 32; cfg.n_kv_heads = 8; cfg.head_dim = 128;
       cfg.mode = OSCAR_KV_INT2; cfg.rot = &rotations;
       if (oscar_cuda_kv_init(&kv, &cu, &cfg) != OSCAR_OK) { puts(kv.msg); return 1; }
       kv.stream = my_stream;                                 // or 0: the legacy default stream
       oscar_cuda_kv_seq_create(&kv, &seq[0]); ...
       oscar_cuda_kv_append_batch(&kv, layer, seq, B, k, v); // k, v: device [B][Hkv][d] fp32
       oscar_cuda_kv_attend(&kv, layer, seq, B, out, q, 32, 0.0f);  // out, q: device [B][Hq][d]
       oscar_cuda_kv_free(&kv); oscar_cuda_free(&cu);

   COMPILE-TIME OPTIONS (define before including)
       OSCAR_CUDA_USE_SDK_HEADERS  take CUresult, CUdeviceptr, nvrtcProgram... from <cuda.h> and
                                   <nvrtc.h> instead of this header's own minimal declarations
       OSCAR_CUDA_MALLOC(sz), OSCAR_CUDA_FREE(p)   host allocator (default: OSCAR_MALLOC/FREE if
                                   defined, else malloc/free)
       OSCAR_STATIC, OSCAR_API     as in oscar.h

   ENVIRONMENT
       OSCAR_LIBCUDA        driver library to load instead of libcuda.so.1, libcuda.so
       OSCAR_LIBNVRTC       NVRTC library instead of libnvrtc.so.13, .12, .11.2, libnvrtc.so (and
                            the same names under $CUDA_HOME/lib64, /usr/local/cuda/lib64)
       OSCAR_CUDA_CACHE_DIR directory of the disk cache of compiled kernels (off when unset)
       OSCAR_CUDA_VERBOSE   1: compile with -lineinfo and keep every NVRTC log
       OSCAR_CUDA_NVRTC_OPTIONS  extra NVRTC options for every kernel, space-separated (tuning
                            experiments, e.g. "-DOSCAR_MIN_BLOCKS=3"); part of the cache key

   API INDEX
     >>cuda-loader  oscar_cuda_init/_free, oscar_cuda_push/_pop, oscar_cuda_synchronize,
                    oscar_cuda_malloc/_mfree/_upload/_download/_memset
     >>nvrtc        oscar_cuda_compile_variant, oscar_cuda_compile_source, oscar_cuda_log
     >>cuda-kv      oscar_cuda_kv_init/_free, oscar_cuda_kv_seq_create/_fork/_release/_length,
                    oscar_cuda_kv_append, oscar_cuda_kv_append_batch, oscar_cuda_kv_errors,
                    oscar_cuda_kv_block_table, oscar_cuda_kv_page_ptr/_sink_ptr/_window_ptr
     >>cuda-attn    oscar_cuda_kv_attend

   THE DEVICE CACHE
     Same rules as oscar.h (sink S0, window W, page P, flush of the oldest P window tokens when the
     window reaches W + P, one block table per sequence for all layers, shared reference-counted
     pages after a fork) and the same bytes: a head page at oscar_cuda_kv_page_ptr() holds exactly
     what oscar_kv_page_ptr() holds on the CPU for the same appends (INT2 codes, fp16 scale/min,
     or BF16 rows), and so do the sink and the live window slots. Device arrays:
         pool  [L][max_pages][Hkv][head_page_bytes]
         sink  [max_seqs][L][Hkv][2][S0][d] bf16      (a sequence slot's part: oscar.h's seq.sink)
         win   [max_seqs][L][Hkv][2][W+P][d] bf16     (oscar.h's seq.win ring)
         bt    [max_seqs][max_pages] int32 block tables
     Codes are bit-identical to the CPU codec: the kernels repeat its fp32 operation sequence
     ((x - mn16) / scale16 + 0.5 with IEEE division, floorf, clip index floorf(c * d)) and are
     compiled with --fmad=false. Bookkeeping (page allocation, reference counts, lengths) stays on
     the host, so appends and attention launch without synchronising.
     Restrictions: d in {64, 128, 256}; INT2 group size >= 16; page size a multiple of 4;
     Hq / Hkv <= 32.
     Rows are rotated with the CPU cache's own definitions: the fast transform for H rotations,
     else the exact fixed-point product of oscar_rotate_row_q14 (integer tensor cores here).

   KERNELS (the .cu files in kernels/, embedded below: `make embed` after an edit; check-embed)
     oscar_append   grid (jobs / TR, Hkv * 2), 128 threads; TR = 64 rows (32 at d 256) of one
                    (KV head, K|V) per block: the tile is rotated in fixed point, each warp 16
                    rows on mma.m16n8k32.s8 (rows as int8 halves of 15-bit integers, R as int8
                    halves of 2^14-scaled integers in B fragments the host builds at init: four
                    products, exact int32 partials), then (sm_80+, group
                    >= d/8, flush tiles) d/32 threads per row run the packed-BF16 codec of
                    oscar_append_fwht below, or else one warp per row
                    rounds to BF16, stores the sink/window row, or for flushed positions clips
                    (exact k-th smallest |x|: the largest values taken one by one when at most
                    24 pass the clip, else a 31-step bisection on the bit patterns), quantises
                    and packs. Jobs come as runs of positions (one flush run and up to two
                    write runs per sequence, 32 bytes each; pages from the device block table),
                    in the launch's parameters where they fit, with the call's new pages, which
                    the flush launch writes into the block table (else uploaded before it).
                    A bulk append quantises flushed tokens straight from the input and writes
                    only the tokens still in the window at the end, in two ordered launches.
     oscar_append_wht  oscar_append for caches whose rotations are all H
                    (oscar_rotations_is_hadamard): one warp per row transforms it with the fast
                    Walsh-Hadamard butterflies in the CPU's order (oscar_wht), no tile buffers,
                    8 blocks per SM. Used where oscar_append_fwht is not (below) or with
                    kv->wht_warp = 1.
     oscar_append_fwht  both launches for those caches (sm_80+, group >= d/8, 16-byte aligned
                    input): d/32 threads per row, 32 values each, so most steps are per-thread
                    arithmetic; sink / window rows are stored as BF16, and the codec runs
                    on packed BF16 (clip threshold by bisection on packed counts, codes against
                    the three exact boundaries of each group). Same bytes as the CPU.
     oscar_decode   grid (splits, Hkv, batch), 128 threads. Walks a run of tiles (64 history
                    rows or up to 4096/d BF16 rows) staged by 16-byte cp.async into two shared
                    buffers; scores all G query heads of the KV head in one pass over the data,
                    online softmax, values accumulated in registers; writes (o, max, sum) per split.
                    Splits: one full wave of resident blocks over batch x Hkv.
     oscar_decode_w INT2 and BF16 caches with d 64 or 128 and G <= 8, or d 256 and G <= 4 (INT2:
                    16-row-aligned pages (d 256: 32-row), group >= 32 at d 64, >= 64 at d 256; others:
                    oscar_decode): each warp owns a run of 64-row INT2 /
                    8-row BF16 units with its own cp.async buffers; INT2 scores on s8 x u8 tensor
                    cores (the query as 4 base-256 digits), BF16 scores and all P.V on fp16 / bf16
                    tensor cores with hi/lo halves, online softmax in registers, one block barrier
                    at the end; launched so it overlaps the query rotation (sm_90). Options
                    (OSCAR_CUDA_NVRTC_OPTIONS): -DOSCAR_WARP=0 the block kernel for both,
                    -DOSCAR_WARP=1 the block kernel for BF16 caches only, -DOSCAR_WPV=0 / 1 INT2
                    P.V on fp16 / u8 tensor cores (u8, weights as 23-bit fixed point, is the
                    default at G <= 4). G > 8 (d 64 or 128): the G query heads of a KV head are
                    split into the fewest groups of 3-8 heads (G 16: 2 x 8, G 32: 4 x 8), a block
                    per group, each group's blocks reading the KV head (the repeat mostly from L2);
                    the kernels are the group's (oscar_cuda_kv.hsplit; measured in kernels/NOTES.md v36).
     oscar_rotate_q, oscar_merge   q . R_k before; log-sum-exp merge of the splits and . R_v^T
                    (skipped with absorb_v) after. Where a batch holds >= 64 KV heads the merge
                    starts each KV head once its splits are counted done (oscar_decode_w keeps the
                    counts) instead of waiting for the whole decode grid (on sm_90 only caches with
                    fitted R_v: the others merge inside clusters there, below); -DOSCAR_MPOLL=0: never.
                    Caches whose rotations are all H launch no oscar_rotate_q (oscar_decode_w
                    applies q . H itself), and where the merge grid is one wave (batch 1-4 at Hq
                    32) oscar_merge_h applies o . H by the same fast transform.
     oscar_decode_wc, oscar_decode_w_ilc (sm_90+): the warp decodes with the merge inside: launched as
                    thread block clusters of a (sequence, KV head)'s splits, each block keeps its
                    partial in shared memory and block r merges query head r of the group from the
                    cluster's shared memory (o / L, o . H where the rotations are H, the V mean),
                    so no merge launch. Automatic where a batch holds >= 64 KV heads and the splits
                    fit one cluster (<= 16, or 8 where the driver allows no more), for outputs that
                    need no R_v^T product (oscar_cuda_kv.cmerge; measured in kernels/NOTES.md v55).
                    Specialised by -D for d, group, G, page tile; each specialisation is compiled
                    once per context (about a second) and kept.
   CENTERED ROWS (oscar_kv_config.center 1) run on the GPU as on the CPU: the append module built with
     -DOSCAR_CENTER=1 (oscar_cuda_variant.center; the other caches keep their modules) subtracts the
     layer's K / V mean from each input row (one fp32 subtract) before anything else, so the pages
     are the CPU's bytes; the merge adds the V mean (through R_v with absorb_v) to the outputs.
     center 2 (K centered before RoPE) is refused by name.
   THE GAIN ENCODER (oscar_kv_config.k_gain / v_gain): append modules built with -DOSCAR_GAIN (bit 0 K,
     bit 1 V; oscar_cuda_variant.gain) sum each group's x^2 and x . x^ in double in column order, as
     the CPU's encoder does, and scale the group's (scale, min) the same way: the CPU's bytes.

   ERRORS
     Every function returns an oscar_result. Detail (which library was tried, the driver's error
     name, the whole NVRTC log) stays in the object: cu.msg, kv.msg, oscar_cuda_log(&cu). Nothing
     prints, nothing exits. OSCAR_ERR_NO_DRIVER (no libcuda), OSCAR_ERR_DRIVER_STUB (the toolkit's
     stub libcuda), OSCAR_ERR_NO_NVRTC, OSCAR_ERR_NO_DEVICE, OSCAR_ERR_COMPILE (log kept),
     OSCAR_ERR_DEVICE_OOM, OSCAR_ERR_CUDA (any other driver failure).
     Non-finite input rows (or, in INT2 mode, rows whose norm exceeds 32768) cannot be refused
     without a synchronisation: the kernel stores them as zero rows, touching nothing else, and sets
     a sticky flag that oscar_cuda_kv_errors() reads (and clears) with OSCAR_ERR_NONFINITE or
     OSCAR_ERR_RANGE. Pool exhaustion is checked on the host: all-or-nothing, OSCAR_ERR_POOL_FULL.

   THREAD SAFETY AND STREAMS
     No global state. Every call makes the device's primary context current for its duration
     (push/pop), so pointers from the CUDA runtime or PyTorch on the same device work with ours.
     All work of a cache goes to kv.stream (default 0); change it only when the previous stream
     is idle. One oscar_cuda or oscar_cuda_kv must not be used by two threads at once.
*/
#ifndef OSCAR_CUDA_H
#define OSCAR_CUDA_H

#include "oscar.h"
#include <stddef.h>
#include <stdint.h>

#define OSCAR_CUDA_MSG_SIZE 1024

#ifdef OSCAR_CUDA_USE_SDK_HEADERS
#include <cuda.h>
#include <nvrtc.h>
typedef CUresult oscar_cu_result;
typedef CUdevice oscar_cu_device;
typedef CUcontext oscar_cu_context;
typedef CUmodule oscar_cu_module;
typedef CUfunction oscar_cu_function;
typedef CUstream oscar_cu_stream;
typedef CUevent oscar_cu_event;
typedef CUdeviceptr oscar_cu_ptr;
typedef nvrtcResult oscar_nvrtc_result;
typedef nvrtcProgram oscar_nvrtc_program;
#else
typedef int oscar_cu_result;                       /* CUresult (0 = CUDA_SUCCESS) */
typedef int oscar_cu_device;                       /* CUdevice */
typedef struct oscar_cu_ctx_st *oscar_cu_context;  /* CUcontext */
typedef struct oscar_cu_mod_st *oscar_cu_module;   /* CUmodule */
typedef struct oscar_cu_func_st *oscar_cu_function;/* CUfunction */
typedef struct oscar_cu_stream_st *oscar_cu_stream;/* CUstream */
typedef struct oscar_cu_event_st *oscar_cu_event;  /* CUevent */
typedef unsigned long long oscar_cu_ptr;           /* CUdeviceptr */
typedef int oscar_nvrtc_result;                    /* nvrtcResult (0 = NVRTC_SUCCESS) */
typedef struct oscar_nvrtc_prog_st *oscar_nvrtc_program; /* nvrtcProgram */
#endif

/* cuLaunchKernelEx's CUlaunchConfig and CUlaunchAttribute, field for field (the SDK build checks
   sizes and offsets); the programmatic-stream-serialization and cluster-dimension attributes are used */
typedef struct oscar__cu_launch_attr {
    int id;                 /* CUlaunchAttributeID */
    char pad[4];
    union {
        char pad[64];
        int programmaticStreamSerializationAllowed;
        unsigned int cluster_dim[3]; /* clusterDim x, y, z */
        int cluster_policy;          /* clusterSchedulingPolicyPreference: 0 default, 1 spread, 2 load balancing */
        void *align;
    } value;
} oscar__cu_launch_attr;
typedef struct oscar__cu_launch_config {
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    oscar_cu_stream hStream;
    oscar__cu_launch_attr *attrs;
    unsigned int numAttrs;
} oscar__cu_launch_config;
#define OSCAR__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION 6
#define OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
#define OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY 5
#define OSCAR__CU_FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED 14
#ifdef OSCAR_CUDA_USE_SDK_HEADERS
typedef char oscar__chk_launch_attr[sizeof(oscar__cu_launch_attr) == sizeof(CUlaunchAttribute) && offsetof(oscar__cu_launch_attr, value) == offsetof(CUlaunchAttribute, value) ? 1 : -1];
typedef char oscar__chk_launch_config[sizeof(oscar__cu_launch_config) == sizeof(CUlaunchConfig) && offsetof(oscar__cu_launch_config, hStream) == offsetof(CUlaunchConfig, hStream) &&
                                      offsetof(oscar__cu_launch_config, attrs) == offsetof(CUlaunchConfig, attrs) && offsetof(oscar__cu_launch_config, numAttrs) == offsetof(CUlaunchConfig, numAttrs) ? 1 : -1];
typedef char oscar__chk_launch_pss[OSCAR__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION == (int)CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION ? 1 : -1];
typedef char oscar__chk_launch_cluster[OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION == (int)CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
                                       OSCAR__CU_FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED == (int)CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED &&
                                       OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY == (int)CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE &&
                                       (int)CU_CLUSTER_SCHEDULING_POLICY_SPREAD == 1 && (int)CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING == 2 &&
                                       offsetof(oscar__cu_launch_attr, value.cluster_dim) == offsetof(CUlaunchAttribute, value.clusterDim.x) ? 1 : -1];
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* X(field, "exact symbol", (arguments)): every driver entry point we use. All return CUresult.
   Versioned symbols are spelt out: the unsuffixed names resolve to the legacy ABI. */
#define OSCAR_CUDA_DRIVER_LIST(X)                                                                  \
    X(cuInit, "cuInit", (unsigned int flags))                                                      \
    X(cuDriverGetVersion, "cuDriverGetVersion", (int *version))                                    \
    X(cuGetErrorName, "cuGetErrorName", (oscar_cu_result err, const char **name))                  \
    X(cuGetErrorString, "cuGetErrorString", (oscar_cu_result err, const char **text))              \
    X(cuDeviceGetCount, "cuDeviceGetCount", (int *count))                                          \
    X(cuDeviceGet, "cuDeviceGet", (oscar_cu_device * dev, int ordinal))                            \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *value, int attrib, oscar_cu_device dev)) \
    X(cuDeviceGetName, "cuDeviceGetName", (char *name, int len, oscar_cu_device dev))              \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t * bytes, oscar_cu_device dev))              \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (oscar_cu_context * ctx, oscar_cu_device dev)) \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (oscar_cu_device dev))            \
    X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", (oscar_cu_context ctx))                             \
    X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", (oscar_cu_context * ctx))                             \
    X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                                \
    X(cuModuleLoadData, "cuModuleLoadData", (oscar_cu_module * mod, const void *image))            \
    X(cuModuleUnload, "cuModuleUnload", (oscar_cu_module mod))                                     \
    X(cuModuleGetFunction, "cuModuleGetFunction", (oscar_cu_function * fn, oscar_cu_module mod, const char *name)) \
    X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", (oscar_cu_ptr * ptr, size_t * bytes, oscar_cu_module mod, const char *name)) \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", (oscar_cu_function fn, int attrib, int value))    \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *value, int attrib, oscar_cu_function fn))   \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",  \
      (int *blocks, oscar_cu_function fn, int block_size, size_t smem))                            \
    X(cuLaunchKernel, "cuLaunchKernel",                                                            \
      (oscar_cu_function fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,      \
       unsigned bz, unsigned smem, oscar_cu_stream stream, void **params, void **extra))           \
    X(cuMemGetInfo, "cuMemGetInfo_v2", (size_t * free_bytes, size_t * total_bytes))               \
    X(cuMemAlloc, "cuMemAlloc_v2", (oscar_cu_ptr * ptr, size_t bytes))                             \
    X(cuMemFree, "cuMemFree_v2", (oscar_cu_ptr ptr))                                               \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (oscar_cu_ptr dst, const void *src, size_t bytes))          \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, oscar_cu_ptr src, size_t bytes))                \
    X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", (oscar_cu_ptr dst, oscar_cu_ptr src, size_t bytes))         \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (oscar_cu_ptr dst, const void *src, size_t bytes, oscar_cu_stream s)) \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void *dst, oscar_cu_ptr src, size_t bytes, oscar_cu_stream s)) \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (oscar_cu_ptr dst, oscar_cu_ptr src, size_t bytes, oscar_cu_stream s)) \
    X(cuMemsetD8Async, "cuMemsetD8Async", (oscar_cu_ptr dst, unsigned char value, size_t n, oscar_cu_stream s)) \
    X(cuMemsetD32Async, "cuMemsetD32Async", (oscar_cu_ptr dst, unsigned int value, size_t n, oscar_cu_stream s)) \
    X(cuStreamSynchronize, "cuStreamSynchronize", (oscar_cu_stream s))                             \
    X(cuEventCreate, "cuEventCreate", (oscar_cu_event * ev, unsigned int flags))                   \
    X(cuEventRecord, "cuEventRecord", (oscar_cu_event ev, oscar_cu_stream s))                      \
    X(cuEventSynchronize, "cuEventSynchronize", (oscar_cu_event ev))                               \
    X(cuEventElapsedTime, "cuEventElapsedTime", (float *ms, oscar_cu_event start, oscar_cu_event end)) \
    X(cuEventDestroy, "cuEventDestroy_v2", (oscar_cu_event ev))

/* X(field, "exact symbol", return type, (arguments)) */
#define OSCAR_CUDA_NVRTC_LIST(X)                                                                   \
    X(nvrtcVersion, "nvrtcVersion", oscar_nvrtc_result, (int *major, int *minor))                  \
    X(nvrtcGetErrorString, "nvrtcGetErrorString", const char *, (oscar_nvrtc_result r))            \
    X(nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs", oscar_nvrtc_result, (int *n))        \
    X(nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs", oscar_nvrtc_result, (int *archs))          \
    X(nvrtcCreateProgram, "nvrtcCreateProgram", oscar_nvrtc_result,                                \
      (oscar_nvrtc_program * prog, const char *src, const char *name, int n_headers,              \
       const char *const *headers, const char *const *include_names))                              \
    X(nvrtcDestroyProgram, "nvrtcDestroyProgram", oscar_nvrtc_result, (oscar_nvrtc_program * prog)) \
    X(nvrtcCompileProgram, "nvrtcCompileProgram", oscar_nvrtc_result,                              \
      (oscar_nvrtc_program prog, int n_options, const char *const *options))                       \
    X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", oscar_nvrtc_result, (oscar_nvrtc_program prog, size_t *n)) \
    X(nvrtcGetProgramLog, "nvrtcGetProgramLog", oscar_nvrtc_result, (oscar_nvrtc_program prog, char *log)) \
    X(nvrtcGetPTXSize, "nvrtcGetPTXSize", oscar_nvrtc_result, (oscar_nvrtc_program prog, size_t *n)) \
    X(nvrtcGetPTX, "nvrtcGetPTX", oscar_nvrtc_result, (oscar_nvrtc_program prog, char *ptx))       \
    X(nvrtcGetCUBINSize, "nvrtcGetCUBINSize", oscar_nvrtc_result, (oscar_nvrtc_program prog, size_t *n)) \
    X(nvrtcGetCUBIN, "nvrtcGetCUBIN", oscar_nvrtc_result, (oscar_nvrtc_program prog, char *cubin))

#define OSCAR__CU_FIELD(field, sym, args) oscar_cu_result(*field) args;
typedef struct oscar_cuda_driver {
    OSCAR_CUDA_DRIVER_LIST(OSCAR__CU_FIELD)
} oscar_cuda_driver;
#undef OSCAR__CU_FIELD
#define OSCAR__RTC_FIELD(field, sym, ret, args) ret(*field) args;
typedef struct oscar_cuda_nvrtc {
    OSCAR_CUDA_NVRTC_LIST(OSCAR__RTC_FIELD)
} oscar_cuda_nvrtc;
#undef OSCAR__RTC_FIELD

typedef struct oscar_cuda_config {
    int device;             /* CUDA device ordinal (default 0) */
    int compile_only;       /* 1: load NVRTC only (no driver, no GPU): for oscar_cuda_compile_* */
    int arch;               /* 0: the device's (compile_only: 90); e.g. 80, 90 */
    int ptx;                /* 1: compile to PTX and let the driver finish (default: CUBIN) */
    const char *cache_dir;  /* disk cache of compiled kernels: NULL: $OSCAR_CUDA_CACHE_DIR, "": off */
    int verbose;            /* 1: -lineinfo, keep logs (also $OSCAR_CUDA_VERBOSE=1) */
} oscar_cuda_config;

typedef struct oscar_cuda_module {
    char *key;              /* program name and options */
    oscar_cu_module mod;
} oscar_cuda_module;

typedef struct oscar_cuda {
    oscar_cuda_config cfg;
    void *lib_cuda, *lib_nvrtc;
    oscar_cuda_driver drv;  /* driver function table (valid when have_device) */
    oscar_cu_result (*cuLaunchKernelEx)(const oscar__cu_launch_config *cfg, oscar_cu_function fn, void **params, void **extra); /* optional (driver >= 12.0), else NULL */
    oscar_cu_result (*cuOccupancyMaxActiveClusters)(int *n, oscar_cu_function fn, const oscar__cu_launch_config *cfg); /* optional (driver >= 12.0), else NULL */
    oscar_cuda_nvrtc rtc;   /* NVRTC function table */
    int have_device;
    oscar_cu_device dev;
    oscar_cu_context ctx;   /* the device's primary context */
    int cc;                 /* compute capability, 10 * major + minor (e.g. 90) */
    int sm_count, smem_optin, l2_bytes;
    int smem_sm, smem_reserved; /* shared memory per SM, and reserved by the driver per block (0 where not said) */
    size_t total_mem;
    char name[128];         /* device name */
    int driver_version, nvrtc_major, nvrtc_minor;
    int arch, ptx;          /* what kernels are compiled for */
    int archs[64], n_archs; /* NVRTC's supported architectures */
    oscar_cuda_module *mods;
    int n_mods, cap_mods;
    char *log;              /* the last NVRTC log, "" if none */
    char cache_dir[512];
    char extra_options[256]; /* $OSCAR_CUDA_NVRTC_OPTIONS */
    int verbose;
    char msg[OSCAR_CUDA_MSG_SIZE];
} oscar_cuda;

/* >>cuda-loader */
OSCAR_API int oscar_cuda_init(oscar_cuda *cu, const oscar_cuda_config *cfg);
OSCAR_API void oscar_cuda_free(oscar_cuda *cu);
/* make the primary context current / restore the previous one (for direct driver calls) */
OSCAR_API int oscar_cuda_push(oscar_cuda *cu);
OSCAR_API void oscar_cuda_pop(oscar_cuda *cu);
OSCAR_API int oscar_cuda_synchronize(oscar_cuda *cu);
OSCAR_API int oscar_cuda_malloc(oscar_cuda *cu, oscar_cu_ptr *ptr, size_t bytes);
OSCAR_API void oscar_cuda_mfree(oscar_cuda *cu, oscar_cu_ptr ptr);
OSCAR_API int oscar_cuda_upload(oscar_cuda *cu, oscar_cu_ptr dst, const void *src, size_t bytes);
OSCAR_API int oscar_cuda_download(oscar_cuda *cu, void *dst, oscar_cu_ptr src, size_t bytes);
OSCAR_API int oscar_cuda_memset(oscar_cuda *cu, oscar_cu_ptr dst, unsigned char value, size_t bytes);

/* >>nvrtc */
typedef enum oscar_cuda_program {
    OSCAR_CUDA_PROG_APPEND = 0, /* oscar_append.cu: the write path */
    OSCAR_CUDA_PROG_DECODE = 1  /* oscar_decode.cu: rotate_q, decode attention, merge */
} oscar_cuda_program;

/* what a kernel is specialised for */
typedef struct oscar_cuda_variant {
    int head_dim, group_size, gqa, int2, page_size;
    int hsplit; /* decode: blocks take one of hsplit groups of gqa query heads per KV head (0 or 1: none) */
    int center; /* append: 1 = the input rows less the cache's means (oscar_kv_config.center 1) */
    int gain;   /* append: bit 0 / 1 = K / V history rows through the gain encoder (k_gain / v_gain) */
} oscar_cuda_variant;

/* compile (without loading) one specialisation for arch (0: cu->arch) as CUBIN, or PTX when
   ptx != 0; *image_bytes gets the size of the result. Works with compile_only contexts. */
OSCAR_API int oscar_cuda_compile_variant(oscar_cuda *cu, int program, const oscar_cuda_variant *v, int arch, int ptx, size_t *image_bytes);
/* compile any source (name is used in the log) with extra options; for tests and tools */
OSCAR_API int oscar_cuda_compile_source(oscar_cuda *cu, const char *name, const char *source, const char *const *options, int n_options, int arch, int ptx, size_t *image_bytes);
/* the last NVRTC log ("" if none) */
OSCAR_API const char *oscar_cuda_log(const oscar_cuda *cu);
/* the embedded source of a file under kernels/ (e.g. "oscar_decode.cu"), or NULL; malloc'd */
OSCAR_API char *oscar_cuda_source(const char *file);

/* >>cuda-kv */
typedef struct oscar_cuda_seq {
    int used;
    int *n_tok;             /* [L] tokens held per layer */
    int *pages;             /* [max_pages] block table (host copy) */
    int n_pages;
} oscar_cuda_seq;

typedef struct oscar_cuda_kv {
    oscar_cuda *cu;
    oscar_kv_config cfg;    /* with defaults filled in (rot: not owned, not used after init) */
    int d, g, S0, W, P, L, Hkv, ring, int2, max_pages, max_seqs, rot_heads, absorb_v;
    float k_clip, v_clip;   /* <= 0: no clip */
    size_t head_page_bytes, page_bytes;
    oscar_cu_ptr pool, sink, win, bt, err;
    oscar_cu_ptr krot, vrot, vrot_t; /* [L][rot_heads][d][d] fp32 (vrot_t: R_v transposed) or 0 */
    oscar_cu_ptr kfrag, vfrag;       /* dense rotations for the write path: [L][rot_heads] d*d*2 bytes of
                                        int8 MMA B fragments of oscar_rotation_q14 (oscar_append), or 0 */
    oscar_cu_ptr kmean, vmean, vmo;  /* cfg.center 1: [L][Hkv][d] fp32, the means rows are stored less (kmean,
                                        vmean) and the V mean added back to the outputs (vmo: vmean, through
                                        R_v where cfg.absorb_v), as the CPU cache; else 0 */
    float *h_kbal;                   /* cfg.k_balance, during init: host [2][L][rot_heads][d][d], the rows'
                                        matrix A (-> kfrag) then the queries' B (-> krot), oscar_balance_matrices */
    oscar_cu_ptr jobs; size_t jobs_cap;  /* device scratch: append jobs */
    oscar_cu_ptr work; size_t work_cap;  /* device scratch: attention partials */
    int *h_jobs; size_t h_jobs_cap;      /* host scratch */
    int *refcount, *free_list, n_free;
    oscar_cuda_seq *seqs;
    oscar_cu_module mod_append;
    oscar_cu_module mod_decode[33];      /* by GQA group */
    oscar_cu_function fn_append, fn_decode[33][9]; /* oscar_decode, oscar_rotate_q, oscar_merge, oscar_merge_g, oscar_rotate_q1, oscar_merge_h,
                                                      oscar_decode_w_il, oscar_decode_wc, oscar_decode_w_ilc (NULL where not built) */
    int cmax_decode[33];                 /* the largest cluster of oscar_decode_wc the device takes (16 or 8), 0: none */
    int smem_append;                 /* oscar_append's dynamic shared memory (bytes) */
    oscar_cu_function fn_append_wht; /* oscar_append for caches whose rotations are all H (no tile buffers); NULL otherwise */
    oscar_cu_function fn_append_fwht; /* both append launches for such caches, d / 32 threads per row (group >= d / 8, sm_80+); NULL where not built */
    oscar_cu_function fn_append_w;    /* oscar_append for long flush launches (8 blocks per SM; append_wide); NULL where not built */
    int occ_append_w;                 /* its resident blocks per SM (the driver's occupancy; 8 where unknown) */
    oscar_cu_function fn_append_s;    /* oscar_append for launches of few jobs (append_small); NULL where not built */
    int smem_decode[33], occ_decode[33]; /* dynamic shared memory, resident blocks per SM */
    int thr_decode[33], wk_decode[33];   /* threads per block; 1: fn_decode[G][0] is oscar_decode_w */
    int rqh_decode[33];                  /* query heads per block of oscar_rotate_q (divides G) */
    int rqc_decode[33][2];               /* column chunks (blocks per rqh heads) of oscar_rotate_q, oscar_rotate_q1 */
    int rqt_decode[33][2];               /* their threads per block */
    int poll_decode[33];                 /* 1: oscar_decode_w counts its splits, the merge polls the counts */
    int hs_decode[33];                   /* query-head groups per KV head: the decode module of group G is
                                           compiled for G / hs_decode[G] heads and each block takes one group */
    oscar_cu_ptr counts;                 /* int [max_seqs][Hkv][OSCAR__MAX_HSPLIT]: splits done per (batch
                                           entry, query-head group) of a call, 0 between calls */
    oscar_cu_stream stream;             /* where all work of this cache goes */
    oscar_cu_event prof_ev[4];          /* profiling (bench --diag): when prof_ev[0] is set, attend records
                                           events before the query rotation, the decode, the merge, and after */
    int splits;                         /* 0 (init): attend picks the splits per sequence and KV head;
                                           > 0: use this many (clamped to the work), for tuning */
    int merge;                          /* 0 (init): attend picks the merge kernel by batch; 1: one query
                                           head per block (for caches whose rotations are all H,
                                           oscar_merge_h at every batch); 2: the query heads of a
                                           KV head per block (tests, tuning) */
    int merge_threads;                  /* 0 (init): oscar_merge_h (caches whose rotations are all H, small
                                           batches) runs 256 threads per block where its splits fit one round
                                           of loads (at most 48), else 512 (measured: 1 x 8K 0.3-0.4 us faster
                                           in a graph, run s34-6, kernels/NOTES.md v61); > 0: this many where it is a multiple
                                           of the head dimension up to 512, else as 0 (tests, tuning) */
    int poll;                           /* 0 (init): the merge polls per-KV-head split counts instead of
                                           waiting for the whole decode grid where the batch holds >= 64
                                           KV heads (measured: faster at batch 8-32, slower at batch 1,
                                           kernels/NOTES.md v32); 1: wherever the kernel counts; 2: never
                                           (tests, tuning) */
    int l2pf;                           /* 0 (init): where the batch holds >= 64 (sequence, KV head) pairs of an
                                           INT2 cache and the kernels are built for sm_90+, each decode warp
                                           prefetches its first 2 units into L2 while its block waits for the
                                           previous kernel (measured on the H100: 0-1.2% faster in a graph at
                                           batch 8-32, slower at batch 1-2, kernels/NOTES.md v57); 1: wherever
                                           built; 2: never */
    int wig;                            /* 0 (init): where the module has oscar_decode_w_il (INT2, d 128, 4
                                           query heads per KV head), the decode's warps take their block's
                                           units in turn where the batch holds >= 64 KV heads (measured:
                                           0.5-2% faster at batch 8-32, 3% slower at batch 1, kernels/NOTES.md
                                           v51); 1: wherever built; 2: never (tests, tuning) */
    int cmerge;                         /* 0 (init): where the device takes thread block clusters (sm_90+), the
                                           outputs need no rotation or o . H, and the batch holds >= 64
                                           (sequence, KV head) pairs, a decode of at most 16 (or 8) splits per
                                           pair runs as clusters of its splits that merge through distributed
                                           shared memory: no merge launch (measured: 8 x 32K 4.5% faster,
                                           kernels/NOTES.md v55); 1: wherever built, the splits capped at the
                                           largest cluster; 2: never (tests, tuning) */
    int cluster_cap;                    /* 0 (init): a cluster launch asks for enough shared memory that no SM
                                           takes more of its blocks than an even spread gives it; 2: the
                                           kernel's own (tuning) */
    int cluster_max;                    /* 0 (init): the decode's clusters as large as the device takes (16
                                           where the driver allows clusters beyond the portable 8, else 8);
                                           n >= 2: at most n blocks (other values: as 0). 8 for compute-sanitizer
                                           synccheck (2025.3), which reports barrier errors in correct kernels
                                           launched in clusters of more than 8 blocks
                                           (tools/issue5/s44/csync_repro.cu) */
    int cluster_policy;                 /* the cluster launches' scheduling preference: 0 (init) load balancing;
                                           1 the driver's default; 3 spread (tuning) */
    int decode_pdl;                     /* 0 (init) or 1: the decode kernel is launched to start while the
                                           query rotation runs (programmatic dependent launch); 2: after it
                                           (tests, tuning) */
    int append_pdl;                     /* 0 (init) or 1: the append kernels are launched to start while the
                                           stream's previous kernel runs and let the next one start early
                                           (a decode step's attend during its append; sm_90+); 2: after it
                                           (tests, tuning) */
    int qwht;                           /* 0 (init): where every rotation is H, the decode kernel rotates the
                                           queries itself by the fast transform (no oscar_rotate_q launch);
                                           2: never (tests, tuning) */
    int rotate_q1;                      /* 0 (init): the query rotation runs as oscar_rotate_q1 (256-thread
                                           blocks, which leave room for two decode blocks on their SMs) where
                                           the decode takes 2 blocks per SM (one INT2 sequence of >= 12K
                                           tokens), else as oscar_rotate_q; 1: always oscar_rotate_q1; 2:
                                           never (tests, tuning) */
    int hsplit;                         /* 0 (init): caches with d 64 or 128 decode a group of G > 8 query
                                           heads as the fewest groups of 3-8 heads (G 16: 2 x 8; d 256:
                                           G > 4 in groups of 3-4), each
                                           group's blocks reading the KV head (again mostly from L2) with
                                           the warp-owned kernel, which takes at most 8 heads; 1: never;
                                           n >= 2 dividing G: n groups (tests, tuning; at G 8, 2 x 4 was
                                           slower than one group, kernels/NOTES.md v36). Read when attend
                                           first meets a group size */
    int append_inline;                  /* 0 (init): an append launch takes its runs (one per sequence and kind)
                                           in its parameters where they fit (OSCAR__INLINE_INTS), and the flush
                                           launch the call's new pages too (at most 16 sequences; the kernel
                                           writes them into the block tables): no upload before them on the
                                           stream; 2: both uploaded (tests) */
    int append_wide;                    /* 0 (init): a flush launch of at least OSCAR__WIDE_WAVES waves of tiles
                                           goes through oscar_append_w (dense rotations, d 128, sm_90+: 8
                                           blocks per SM) where it is built; 1: every flush launch there; 2:
                                           never (tests, benchmarks). The same bytes either way */
    int append_wlate;                   /* 0 (init): where an append call's flush reads no window row (a
                                           sequence's first append: a prefill) and goes through oscar_append_w
                                           (a long one), its sink / window write launch (dense rotations, under
                                           PDL, sm_90+) waits for the flush launch at its end instead of its
                                           start, so it runs beside the flush's last blocks and still completes
                                           after them (it takes an epoch the flush's block (0, 0) publishes after
                                           its own wait: the input rows are complete); 1: behind every flush
                                           launch that reads no window row (tests); 2: at its start (tests,
                                           benchmarks). Not behind short flushes: after it, every later append
                                           on the stream took ~1.5 us more (not understood), so a chunked
                                           prefill's 64 2,048-token appends took 2.50-2.68 ms with it against
                                           2.44 without (H200, runs s41-4/5/7); a single prefill under ~17K
                                           tokens gives up 13-16 us for that (run s41-6) */
    int append_epoch;                   /* the last epoch an append call published (append_wlate) */
    int append_wsplit;                  /* 0 (init): that write launch (append_wlate) in blocks of 16 jobs through
                                           oscar_append_s (4 warps on one MMA tile at d 128), so that its blocks
                                           end within the flush launch's drain (back to back, d 128: 0.771 /
                                           0.776 ms against 0.773 / 0.784 on an H100, run s39-8; 0.761-0.762
                                           against 0.764-0.765 on an H200, run s40-1), and so is any write launch
                                           through oscar_append whose whole tiles would leave SMs without a block
                                           (a chunked prefill's window rows, w49: 64 appends of 2,048 tokens 2.18
                                           against 2.43 ms on an H200, run s42-2), or through oscar_append_s with
                                           17-32 jobs per (KV head, K|V) (a decode step of 17-32 sequences, w49b);
                                           1: every write launch through oscar_append (tests); 2: whole tiles
                                           (tests, benchmarks). The same bytes either way */
    int append_stagger;                 /* 0 (init): a flush launch through oscar_append_w of at least two waves
                                           starts its first wave's blocks of one SM 1.5 us apart by their rank there
                                           (w47: on an H200 the launch 4 us shorter, 0.753 against 0.757 ms back to
                                           back, run s40-2); 1: every launch through it (tests); 2: all at once
                                           (tests, benchmarks). The same bytes */
    int append_small;                   /* 0 (init): an append launch of at most OSCAR__SMALL_JOBS jobs per (KV
                                           head, K|V) that oscar_append would take (dense rotations: a decode
                                           step's one-token appends) goes through oscar_append_s, whose warps
                                           share a tile's few rows; 1: every such launch; 2: never (tests,
                                           benchmarks). The same bytes either way */
    int wht_warp;                       /* 0 (init): caches whose rotations are all H append through
                                           oscar_append_fwht where it is built; 1: through oscar_append_wht, a
                                           warp per row (tests, benchmarks) */
    int wht;                            /* every rotation is H (oscar_rotations_is_hadamard): the append
                                           kernel rotates rows by the fast transform, as the CPU cache does */
    char msg[OSCAR_CUDA_MSG_SIZE];
} oscar_cuda_kv;

OSCAR_API int oscar_cuda_kv_init(oscar_cuda_kv *kv, oscar_cuda *cu, const oscar_kv_config *cfg);
OSCAR_API void oscar_cuda_kv_free(oscar_cuda_kv *kv);
OSCAR_API int oscar_cuda_kv_seq_create(oscar_cuda_kv *kv, int *seq);
/* dst gets a copy of src's sink and window (device to device); history pages are shared */
OSCAR_API int oscar_cuda_kv_seq_fork(oscar_cuda_kv *kv, int src, int *dst);
OSCAR_API int oscar_cuda_kv_seq_release(oscar_cuda_kv *kv, int seq);
OSCAR_API int oscar_cuda_kv_seq_length(const oscar_cuda_kv *kv, int seq, int layer);
/* k, v: device [n][Hkv][d] fp32 keys (post-RoPE) and values, unrotated */
OSCAR_API int oscar_cuda_kv_append(oscar_cuda_kv *kv, int seq, int layer, oscar_cu_ptr k, oscar_cu_ptr v, int n);
/* one token for each of n_seqs distinct sequences: k, v: device [n_seqs][Hkv][d] fp32 */
OSCAR_API int oscar_cuda_kv_append_batch(oscar_cuda_kv *kv, int layer, const int *seqs, int n_seqs, oscar_cu_ptr k, oscar_cu_ptr v);
/* synchronises; reads and clears the sticky flags of rejected rows (OSCAR_OK if none) */
OSCAR_API int oscar_cuda_kv_errors(oscar_cuda_kv *kv);
OSCAR_API const int *oscar_cuda_kv_block_table(const oscar_cuda_kv *kv, int seq, int *n_pages);
OSCAR_API oscar_cu_ptr oscar_cuda_kv_page_ptr(const oscar_cuda_kv *kv, int layer, int page, int kv_head);
/* [2][S0][d] bf16 and [2][W+P][d] bf16 of one (seq, layer, head), as in oscar.h */
OSCAR_API oscar_cu_ptr oscar_cuda_kv_sink_ptr(const oscar_cuda_kv *kv, int seq, int layer, int kv_head);
OSCAR_API oscar_cu_ptr oscar_cuda_kv_window_ptr(const oscar_cuda_kv *kv, int seq, int layer, int kv_head);

/* >>cuda-attn
   out: device [n_seqs][Hq][d] fp32, q: device [n_seqs][Hq][d] fp32 (unrotated, post-RoPE).
   scale 0: 1/sqrt(d). Query head h reads KV head h / (Hq / Hkv). In INT2 mode with rotations
   the query is rotated by R_k and the output un-rotated by R_v^T (not when absorb_v).
   CUDA graphs: for n_seqs <= 64, once a call of that batch and context has compiled the kernels
   and sized the scratch buffer, a call only launches kernels on kv->stream (no host copy, no
   allocation, no synchronisation), so it can be captured (`oscar bench --gpu` does: graph_us). A replay repeats
   the captured call: the sequences' lengths travel in the launch parameters, so after an append to one of them,
   capture again (test_cuda --gpu --only "graph capture" replays captured calls against the direct call's bits). */
OSCAR_API int oscar_cuda_kv_attend(oscar_cuda_kv *kv, int layer, const int *seqs, int n_seqs, oscar_cu_ptr out, oscar_cu_ptr q, int n_q_heads, float scale);

#ifdef __cplusplus
}
#endif
#endif /* OSCAR_CUDA_H */

/* ============================================================================================ */
#ifdef OSCAR_CUDA_IMPLEMENTATION
#ifndef OSCAR_CUDA_IMPLEMENTATION_DONE
#define OSCAR_CUDA_IMPLEMENTATION_DONE

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OSCAR_CUDA_MALLOC
#ifdef OSCAR_MALLOC
#define OSCAR_CUDA_MALLOC(sz) OSCAR_MALLOC(sz)
#define OSCAR_CUDA_FREE(p) OSCAR_FREE(p)
#else
#define OSCAR_CUDA_MALLOC(sz) malloc(sz)
#define OSCAR_CUDA_FREE(p) free(p)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* driver constants (cuda.h) */
#define OSCAR__CU_ERROR_OUT_OF_MEMORY 2
#define OSCAR__CU_ERROR_STUB_LIBRARY 34
#define OSCAR__CU_ERROR_NO_DEVICE 100
#define OSCAR__CU_ATTR_SM_COUNT 16
#define OSCAR__CU_ATTR_L2_BYTES 38
#define OSCAR__CU_ATTR_CC_MAJOR 75
#define OSCAR__CU_ATTR_CC_MINOR 76
#define OSCAR__CU_ATTR_SMEM_OPTIN 97
#define OSCAR__CU_ATTR_SMEM_PER_SM 81
#define OSCAR__CU_ATTR_SMEM_RESERVED 111
#define OSCAR__CU_FUNC_MAX_DYN_SMEM 8
#define OSCAR__CU_FUNC_PREFERRED_CARVEOUT 9 /* percent of the SM's unified memory as shared memory */

static void oscar__cuda_msg(char *msg, const char *fmt, const char *a, const char *b, const char *c) {
    snprintf(msg, OSCAR_CUDA_MSG_SIZE, fmt, a ? a : "", b ? b : "", c ? c : "");
}

/* >>cuda-loader ---- dlopen, function tables, device, primary context ---- */

static void oscar__append_tried(char *buf, size_t cap, const char *name, const char *why) {
    size_t n = strlen(buf);
    if (n + 8 >= cap) return;
    snprintf(buf + n, cap - n, "%s%s (%s)", n ? "; " : "", name, why ? why : "?");
}

/* tries env (only that, when set) or the names in order; records every failure in tried */
static void *oscar__dlopen_first(const char *env, const char *const *names, int n_names, const char *const *dirs, int n_dirs, char *tried, size_t cap) {
    const char *e = getenv(env);
    void *h;
    int i, k;
    char path[768];
    tried[0] = 0;
    if (e && e[0]) {
        h = dlopen(e, RTLD_NOW | RTLD_LOCAL);
        if (!h) oscar__append_tried(tried, cap, e, dlerror());
        return h;
    }
    for (i = 0; i < n_names; i++) {
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
        oscar__append_tried(tried, cap, names[i], "not found");
        (void)dlerror();
    }
    for (k = 0; k < n_dirs; k++) {
        if (!dirs[k] || !dirs[k][0]) continue;
        for (i = 0; i < n_names; i++) {
            snprintf(path, sizeof path, "%s/%s", dirs[k], names[i]);
            h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) return h;
            (void)dlerror();
        }
        oscar__append_tried(tried, cap, dirs[k], "not there");
    }
    return NULL;
}

typedef struct oscar__sym {
    const char *name;
    size_t offset;
} oscar__sym;

static const char *oscar__dlsym_table(void *lib, void *table, const oscar__sym *syms, int n) {
    int i;
    for (i = 0; i < n; i++) {
        void *p = dlsym(lib, syms[i].name);
        if (!p) return syms[i].name;
        memcpy((char *)table + syms[i].offset, &p, sizeof p);
    }
    return NULL;
}

#define OSCAR__CU_SYM(field, sym, args) {sym, offsetof(oscar_cuda_driver, field)},
static const oscar__sym oscar__cu_syms[] = {OSCAR_CUDA_DRIVER_LIST(OSCAR__CU_SYM)};
#undef OSCAR__CU_SYM
#define OSCAR__RTC_SYM(field, sym, ret, args) {sym, offsetof(oscar_cuda_nvrtc, field)},
static const oscar__sym oscar__rtc_syms[] = {OSCAR_CUDA_NVRTC_LIST(OSCAR__RTC_SYM)};
#undef OSCAR__RTC_SYM

/* a failed driver call: message with the driver's name for the error; result code */
static int oscar__cu_fail(oscar_cuda *cu, oscar_cu_result r, const char *call) {
    const char *name = NULL, *text = NULL;
    char num[32];
    if (cu->drv.cuGetErrorName) cu->drv.cuGetErrorName(r, &name);
    if (cu->drv.cuGetErrorString) cu->drv.cuGetErrorString(r, &text);
    snprintf(num, sizeof num, "%d", (int)r);
    snprintf(cu->msg, sizeof cu->msg, "%s failed: %s (%s): %s", call, name ? name : "CUDA error", num, text ? text : "");
    if ((int)r == OSCAR__CU_ERROR_OUT_OF_MEMORY) return OSCAR_ERR_DEVICE_OOM;
    if ((int)r == OSCAR__CU_ERROR_NO_DEVICE) return OSCAR_ERR_NO_DEVICE;
    if ((int)r == OSCAR__CU_ERROR_STUB_LIBRARY) return OSCAR_ERR_DRIVER_STUB;
    return OSCAR_ERR_CUDA;
}
#define OSCAR__CU(cu, call, name)                                 \
    do {                                                          \
        oscar_cu_result r_ = (call);                              \
        if ((int)r_ != 0) return oscar__cu_fail((cu), r_, name);  \
    } while (0)

static int oscar__load_nvrtc(oscar_cuda *cu) {
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"};
    const char *dirs[3];
    char tried[700], home[512], path[512];
    const char *missing;
    const char *h1 = getenv("CUDA_HOME"), *h2 = getenv("CUDA_PATH");
    home[0] = path[0] = 0;
    if (h1 && h1[0]) snprintf(home, sizeof home, "%s/lib64", h1);
    if (h2 && h2[0]) snprintf(path, sizeof path, "%s/lib64", h2);
    dirs[0] = home;
    dirs[1] = path;
    dirs[2] = "/usr/local/cuda/lib64";
    cu->lib_nvrtc = oscar__dlopen_first("OSCAR_LIBNVRTC", names, 4, dirs, 3, tried, sizeof tried);
    if (!cu->lib_nvrtc) {
        snprintf(cu->msg, sizeof cu->msg, "NVRTC not found; tried: %s", tried);
        return OSCAR_ERR_NO_NVRTC;
    }
    missing = oscar__dlsym_table(cu->lib_nvrtc, &cu->rtc, oscar__rtc_syms, (int)(sizeof oscar__rtc_syms / sizeof oscar__rtc_syms[0]));
    if (missing) {
        snprintf(cu->msg, sizeof cu->msg, "NVRTC library lacks %s (too old?)", missing);
        return OSCAR_ERR_NO_NVRTC;
    }
    cu->rtc.nvrtcVersion(&cu->nvrtc_major, &cu->nvrtc_minor);
    cu->n_archs = 0;
    {
        int n = 0;
        if (cu->rtc.nvrtcGetNumSupportedArchs(&n) == 0 && n > 0 && n <= 64 && cu->rtc.nvrtcGetSupportedArchs(cu->archs) == 0) cu->n_archs = n;
    }
    return OSCAR_OK;
}

static int oscar__load_driver(oscar_cuda *cu) {
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    char tried[700];
    const char *missing;
    oscar_cu_result r;
    int count = 0, v;
    cu->lib_cuda = oscar__dlopen_first("OSCAR_LIBCUDA", names, 2, NULL, 0, tried, sizeof tried);
    if (!cu->lib_cuda) {
        snprintf(cu->msg, sizeof cu->msg, "CUDA driver not found; tried: %s", tried);
        return OSCAR_ERR_NO_DRIVER;
    }
    missing = oscar__dlsym_table(cu->lib_cuda, &cu->drv, oscar__cu_syms, (int)(sizeof oscar__cu_syms / sizeof oscar__cu_syms[0]));
    if (missing) {
        snprintf(cu->msg, sizeof cu->msg, "CUDA driver library lacks %s (too old?)", missing);
        memset(&cu->drv, 0, sizeof cu->drv);
        return OSCAR_ERR_NO_DRIVER;
    }
    *(void **)&cu->cuLaunchKernelEx = dlsym(cu->lib_cuda, "cuLaunchKernelEx");
    *(void **)&cu->cuOccupancyMaxActiveClusters = dlsym(cu->lib_cuda, "cuOccupancyMaxActiveClusters");
    r = cu->drv.cuInit(0);
    if ((int)r == OSCAR__CU_ERROR_STUB_LIBRARY) {
        snprintf(cu->msg, sizeof cu->msg, "the CUDA toolkit's stub libcuda was loaded instead of the driver (no NVIDIA driver installed, or a stubs/ directory on the library path)");
        return OSCAR_ERR_DRIVER_STUB;
    }
    if ((int)r == OSCAR__CU_ERROR_NO_DEVICE) {
        snprintf(cu->msg, sizeof cu->msg, "cuInit: no CUDA-capable device");
        return OSCAR_ERR_NO_DEVICE;
    }
    if ((int)r != 0) return oscar__cu_fail(cu, r, "cuInit");
    cu->drv.cuDriverGetVersion(&cu->driver_version);
    OSCAR__CU(cu, cu->drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count <= 0 || cu->cfg.device < 0 || cu->cfg.device >= count) {
        snprintf(cu->msg, sizeof cu->msg, "no CUDA device %d (%d present)", cu->cfg.device, count);
        return OSCAR_ERR_NO_DEVICE;
    }
    OSCAR__CU(cu, cu->drv.cuDeviceGet(&cu->dev, cu->cfg.device), "cuDeviceGet");
    OSCAR__CU(cu, cu->drv.cuDeviceGetAttribute(&v, OSCAR__CU_ATTR_CC_MAJOR, cu->dev), "cuDeviceGetAttribute");
    cu->cc = 10 * v;
    OSCAR__CU(cu, cu->drv.cuDeviceGetAttribute(&v, OSCAR__CU_ATTR_CC_MINOR, cu->dev), "cuDeviceGetAttribute");
    cu->cc += v;
    OSCAR__CU(cu, cu->drv.cuDeviceGetAttribute(&cu->sm_count, OSCAR__CU_ATTR_SM_COUNT, cu->dev), "cuDeviceGetAttribute");
    OSCAR__CU(cu, cu->drv.cuDeviceGetAttribute(&cu->smem_optin, OSCAR__CU_ATTR_SMEM_OPTIN, cu->dev), "cuDeviceGetAttribute");
    OSCAR__CU(cu, cu->drv.cuDeviceGetAttribute(&cu->l2_bytes, OSCAR__CU_ATTR_L2_BYTES, cu->dev), "cuDeviceGetAttribute");
    if (cu->drv.cuDeviceGetAttribute(&cu->smem_sm, OSCAR__CU_ATTR_SMEM_PER_SM, cu->dev)) cu->smem_sm = 0;
    if (cu->drv.cuDeviceGetAttribute(&cu->smem_reserved, OSCAR__CU_ATTR_SMEM_RESERVED, cu->dev)) cu->smem_reserved = 0;
    OSCAR__CU(cu, cu->drv.cuDeviceTotalMem(&cu->total_mem, cu->dev), "cuDeviceTotalMem_v2");
    OSCAR__CU(cu, cu->drv.cuDeviceGetName(cu->name, (int)sizeof cu->name - 1, cu->dev), "cuDeviceGetName");
    OSCAR__CU(cu, cu->drv.cuDevicePrimaryCtxRetain(&cu->ctx, cu->dev), "cuDevicePrimaryCtxRetain");
    cu->have_device = 1;
    return OSCAR_OK;
}

/* the architecture to compile for: the device's if NVRTC knows it (CUBIN), else the newest older
   one NVRTC knows, as PTX for the driver to finish */
static int oscar__pick_arch(oscar_cuda *cu) {
    int want = cu->cfg.arch ? cu->cfg.arch : (cu->have_device ? cu->cc : 90);
    int i, best = 0, exact = 0;
    cu->ptx = cu->cfg.ptx ? 1 : 0;
    if (cu->n_archs == 0) {
        cu->arch = want;
        return OSCAR_OK;
    }
    for (i = 0; i < cu->n_archs; i++) {
        if (cu->archs[i] == want) exact = 1;
        if (cu->archs[i] <= want && cu->archs[i] > best) best = cu->archs[i];
    }
    if (exact) {
        cu->arch = want;
        return OSCAR_OK;
    }
    if (!best) {
        char a[16], b[16];
        snprintf(a, sizeof a, "%d", want);
        snprintf(b, sizeof b, "%d", cu->archs[0]);
        oscar__cuda_msg(cu->msg, "NVRTC cannot compile for sm_%s (oldest it supports: sm_%s)%s", a, b, "");
        return OSCAR_ERR_COMPILE;
    }
    cu->arch = best;
    cu->ptx = 1;
    return OSCAR_OK;
}

OSCAR_API int oscar_cuda_init(oscar_cuda *cu, const oscar_cuda_config *cfg) {
    oscar_cuda_config zero;
    const char *e;
    int rc;
    if (!cu) return OSCAR_ERR_NULL;
    memset(cu, 0, sizeof *cu);
    memset(&zero, 0, sizeof zero);
    cu->cfg = cfg ? *cfg : zero;
    cu->cfg.cache_dir = NULL;
    e = getenv("OSCAR_CUDA_VERBOSE");
    cu->verbose = cu->cfg.verbose || (e && e[0] && e[0] != '0');
    if (cfg && cfg->cache_dir) snprintf(cu->cache_dir, sizeof cu->cache_dir, "%s", cfg->cache_dir);
    else if ((e = getenv("OSCAR_CUDA_CACHE_DIR")) != NULL) snprintf(cu->cache_dir, sizeof cu->cache_dir, "%s", e);
    if ((e = getenv("OSCAR_CUDA_NVRTC_OPTIONS")) != NULL) snprintf(cu->extra_options, sizeof cu->extra_options, "%s", e);
    cu->log = (char *)OSCAR_CUDA_MALLOC(1);
    if (!cu->log) return OSCAR_ERR_NOMEM;
    cu->log[0] = 0;
    if (!cu->cfg.compile_only) {
        rc = oscar__load_driver(cu);
        if (rc != OSCAR_OK) return rc;
    }
    rc = oscar__load_nvrtc(cu);
    if (rc != OSCAR_OK) return rc;
    return oscar__pick_arch(cu);
}

OSCAR_API void oscar_cuda_free(oscar_cuda *cu) {
    int i;
    if (!cu) return;
    if (cu->have_device) {
        cu->drv.cuCtxPushCurrent(cu->ctx);
        for (i = 0; i < cu->n_mods; i++) cu->drv.cuModuleUnload(cu->mods[i].mod);
        {
            oscar_cu_context old;
            cu->drv.cuCtxPopCurrent(&old);
        }
        cu->drv.cuDevicePrimaryCtxRelease(cu->dev);
    }
    for (i = 0; i < cu->n_mods; i++) OSCAR_CUDA_FREE(cu->mods[i].key);
    OSCAR_CUDA_FREE(cu->mods);
    OSCAR_CUDA_FREE(cu->log);
    if (cu->lib_nvrtc) dlclose(cu->lib_nvrtc);
    if (cu->lib_cuda) dlclose(cu->lib_cuda);
    memset(cu, 0, sizeof *cu);
}

OSCAR_API int oscar_cuda_push(oscar_cuda *cu) {
    if (!cu || !cu->have_device) {
        if (cu) snprintf(cu->msg, sizeof cu->msg, "no device in this context (compile_only or failed init)");
        return OSCAR_ERR_NO_DEVICE;
    }
    OSCAR__CU(cu, cu->drv.cuCtxPushCurrent(cu->ctx), "cuCtxPushCurrent_v2");
    return OSCAR_OK;
}

OSCAR_API void oscar_cuda_pop(oscar_cuda *cu) {
    oscar_cu_context old;
    if (cu && cu->have_device) cu->drv.cuCtxPopCurrent(&old);
}

OSCAR_API int oscar_cuda_synchronize(oscar_cuda *cu) {
    int rc = oscar_cuda_push(cu);
    oscar_cu_result r;
    if (rc) return rc;
    r = cu->drv.cuCtxSynchronize();
    oscar_cuda_pop(cu);
    return r ? oscar__cu_fail(cu, r, "cuCtxSynchronize") : OSCAR_OK;
}

OSCAR_API int oscar_cuda_malloc(oscar_cuda *cu, oscar_cu_ptr *ptr, size_t bytes) {
    int rc = oscar_cuda_push(cu);
    oscar_cu_result r;
    if (rc) return rc;
    *ptr = 0;
    r = cu->drv.cuMemAlloc(ptr, bytes ? bytes : 16);
    oscar_cuda_pop(cu);
    return r ? oscar__cu_fail(cu, r, "cuMemAlloc_v2") : OSCAR_OK;
}

OSCAR_API void oscar_cuda_mfree(oscar_cuda *cu, oscar_cu_ptr ptr) {
    if (!ptr || oscar_cuda_push(cu)) return;
    cu->drv.cuMemFree(ptr);
    oscar_cuda_pop(cu);
}

OSCAR_API int oscar_cuda_upload(oscar_cuda *cu, oscar_cu_ptr dst, const void *src, size_t bytes) {
    int rc = oscar_cuda_push(cu);
    oscar_cu_result r;
    if (rc) return rc;
    r = bytes ? cu->drv.cuMemcpyHtoD(dst, src, bytes) : 0;
    oscar_cuda_pop(cu);
    return r ? oscar__cu_fail(cu, r, "cuMemcpyHtoD_v2") : OSCAR_OK;
}

OSCAR_API int oscar_cuda_download(oscar_cuda *cu, void *dst, oscar_cu_ptr src, size_t bytes) {
    int rc = oscar_cuda_push(cu);
    oscar_cu_result r;
    if (rc) return rc;
    r = cu->drv.cuCtxSynchronize();
    if (!r && bytes) r = cu->drv.cuMemcpyDtoH(dst, src, bytes);
    oscar_cuda_pop(cu);
    return r ? oscar__cu_fail(cu, r, "cuMemcpyDtoH_v2") : OSCAR_OK;
}

OSCAR_API int oscar_cuda_memset(oscar_cuda *cu, oscar_cu_ptr dst, unsigned char value, size_t bytes) {
    int rc = oscar_cuda_push(cu);
    oscar_cu_result r;
    if (rc) return rc;
    r = bytes ? cu->drv.cuMemsetD8Async(dst, value, bytes, (oscar_cu_stream)0) : 0;
    if (!r) r = cu->drv.cuCtxSynchronize();
    oscar_cuda_pop(cu);
    return r ? oscar__cu_fail(cu, r, "cuMemsetD8Async") : OSCAR_OK;
}

/* >>nvrtc ---- embedded sources, compilation, module cache (memory and disk) ---- */

/* >>embedded-kernels: generated by `make embed` from kernels/, do not edit */
/* kernels/oscar_common.cuh */
static const char *const oscar__src_oscar_common_cuh[] = {
    "// oscar_common.cuh - shared helpers and kernel parameter blocks for the OSCAR kernels.\n",
    "// Compiled by NVRTC only (embedded into oscar_cuda.h by `make embed`). The parameter structs\n",
    "// must match the host copies in oscar_cuda.h field for field: 8-byte fields first, then ints.\n",
    "#pragma once\n",
    "\n",
    "typedef unsigned char oscar_u8;\n",
    "typedef unsigned short oscar_u16;\n",
    "typedef unsigned int oscar_u32;\n",
    "typedef unsigned long long oscar_u64;\n",
    "\n",
    "// Append / flush jobs: one per token; each job covers all KV heads, K and V.\n",
    "#define OSCAR_INLINE_INTS 256\n",
    "struct oscar_append_params {\n",
    "    oscar_u64 k, v;        // const float [n][Hkv][D] unrotated input rows\n",
    "    oscar_u64 jobs;        // const int4 [n_runs][2] runs of consecutive positions of one sequence, or 0: in inl\n",
    "                           //   (launches whose runs fit: no upload before the launch):\n",
    "                           //   [0] x = first job of the run in this launch, y = its position,\n",
    "                           //   z = sequence slot, w = input row of position 0 (row = w + pos);\n",
    "                           //   [1] x = tokens held before the call (positions below come from\n",
    "                           //   the ring), y = 1: flush to the page of bt (0: BF16 sink/window write);\n",
    "                           //   runs in inl, flush: w = the sequence's first page new in this call (pages\n",
    "                           //   from w on are at inl[(z & 0xffff) + page - w], z >> 16 of them; 0x7fffffff: none)\n",
    "    oscar_u64 pool;        // u8 [L][max_pages][Hkv][head_page_bytes]\n",
    "    oscar_u64 sink;        // u16 [max_seqs][L][Hkv][2][S0][D]\n",
    "    oscar_u64 win;         // u16 [max_seqs][L][Hkv][2][ring][D]\n",
    "    oscar_u64 krot, vrot;  // const float [L][rot_heads][D][D] or 0\n",
    "    oscar_u64 err;         // u32 sticky error bits\n",
    "    oscar_u64 bt;          // const int [max_seqs][max_pages] block tables (page of a flushed position)\n",
    "    oscar_u64 kmean, vmean; // const float [L][Hkv][D] subtracted from the input rows before anything else\n",
    "                           //   (oscar_kv_config.center 1, as the CPU cache), or 0\n",
    "    int n_jobs, layer, L, Hkv, S0, ring, P, max_pages, rot_heads, head_page_bytes, n_runs;\n",
    "    int wht;               // every rotation is H: rows are rotated by the fast transform (the CPU's oscar_wht)\n",
    "    int wlate;             // the tiled kernels, launched under PDL behind their call's flush launch: 1: wait for it at\n",
    "                           //   the end instead of the start, and take epoch from err[OSCAR_ERR_EPOCH] before reading\n",
    "                           //   input rows (host: oscar_cuda_kv.append_wlate)\n",
    "    int epoch;             // > 0 with wlate 0 (that flush launch): block (0, 0) stores it to err[OSCAR_ERR_EPOCH] after\n",
    "                           //   its wait, before it lets the next launch in\n",
    "    int tr;                // oscar_append_s: jobs per block, 16 or 0 (a whole tile, 64 at d 128): 16 for write launches\n",
    "                           //   (sink / window rows) only: behind its call's flush (wlate), whose blocks then end within\n",
    "                           //   the flush's drain, or too few whole tiles for the SMs (host: append_wsplit). Not for a\n",
    "                           //   flush: its codec wants whole tiles (16-job flush blocks wrote other pages, run s42-6)\n",
    "    int sms;               // oscar_append_w: the device's SMs, whose first wave of blocks then starts by rank on the SM\n",
    "                           //   (OSCAR_APPEND_STAGGER), or 0: all at once (host: oscar_cuda_kv.append_stagger)\n",
    "    float k_clip, v_clip;  // <= 0: no clip\n",
    "    int inl[OSCAR_INLINE_INTS]; // where jobs is 0: the runs, then (flush) the new pages, which block (0, 0) writes to bt\n",
    "};\n",
    "\n",
    "// Decode attention (one launch per layer and batch).\n",
    "#define OSCAR_INLINE_SEQS 64\n",
    "struct oscar_attn_params {\n",
    "    oscar_u64 q;           // const float [B][Hq][D] rotated queries\n",
    "    oscar_u64 part_o;      // float [B][Hq][S][D] unnormalised partial outputs\n",
    "    oscar_u64 part_ml;     // float [B][Hq][S][2] running max (log2 domain) and sum\n",
    "    oscar_u64 seqinfo;     // const int [B][2]: sequence slot, tokens held by the layer; 0: inline\n",
    "    oscar_u64 pool, sink, win;\n",
    "    oscar_u64 bt;          // const int [max_seqs][max_blocks] block tables\n",
    "    oscar_u64 counts;      // int [B][Hkv * OSCAR_HSPLIT] or 0: oscar_decode_w adds 1 per split done (the merge polls it)\n",
    "    oscar_u64 y;           // the cluster-merge kernels (oscar_decode_wc): float [B][Hq][D] outputs\n",
    "    oscar_u64 vmo;         //   and const float [L][Hkv][D] added to them (cfg.center 1), or 0\n",
    "    int layer, L, Hkv, S0, W, P, ring, max_pages, max_blocks, n_splits, head_page_bytes;\n",
    "    int qwht;              // 1: q is not rotated and every rotation is H: oscar_decode_w applies q . H itself\n",
    "    int vwht;              // the cluster-merge kernels: 1: outputs . H (every rotation H, R_v not absorbed), 0: none\n",
    "    int l2pf;              // oscar_decode_w (INT2, sm_90+): each warp's first l2pf units prefetched into L2 before its wait\n",
    "    float scale_log2;      // softmax scale * log2(e)\n",
    "    int inline_info[2 * OSCAR_INLINE_SEQS]; // seqinfo for batches of up to OSCAR_INLINE_SEQS\n",
    "};\n",
    "\n",
    "// Query rotation and split merge (+ un-rotation).\n",
    "struct oscar_rot_params {\n",
    "    oscar_u64 x;           // const float [B][Hq][D]\n",
    "    oscar_u64 y;           // float [B][Hq][D]\n",
    "    oscar_u64 rot;         // const float [L][rot_heads][D][D] (for the merge: R_v transposed) or 0\n",
    "    oscar_u64 part_o, part_ml;\n",
    "    oscar_u64 counts;      // the merge: int [B][Hkv * hsplit] splits done (oscar_decode_w), or 0: wait for the whole grid\n",
    "    oscar_u64 vmo;         // the merge: const float [L][Hkv][D] added to the outputs (the V mean the rows were\n",
    "                           //   stored without, oscar_kv_config.center 1), or 0\n",
    "    int layer, Hq, gqa, rot_heads, n_splits;\n",
    "    int hsplit;            // >= 1: the decode ran hsplit groups of gqa / hsplit query heads per KV head\n",
    "};\n",
    "\n",
    "// the host's copies of these blocks (oscar__*_params in oscar_cuda.h) come with their sizes: a field added or removed\n",
    "// on one side only stops the compile here instead of shifting every later field\n",
    "#ifdef OSCAR_HOST_APPEND_PARAMS\n",
    "static_assert(sizeof(oscar_append_params) == OSCAR_HOST_APPEND_PARAMS, \"oscar_append_params: the host's copy (oscar__append_params in oscar_cuda.h) has another size\");\n",
    "static_assert(sizeof(oscar_attn_params) == OSCAR_HOST_ATTN_PARAMS, \"oscar_attn_params: the host's copy (oscar__attn_params in oscar_cuda.h) has another size\");\n",
    "static_assert(sizeof(oscar_rot_params) == OSCAR_HOST_ROT_PARAMS, \"oscar_rot_params: the host's copy (oscar__rot_params in oscar_cuda.h) has another size\");\n",
    "#endif\n",
    "\n",
    "#define OSCAR_ERR_BIT_NONFINITE 1u\n",
    "#define OSCAR_ERR_BIT_RANGE 2u\n",
    "#define OSCAR_ERR_EPOCH 24 // err[24]: the epoch a flush launch publishes for the write launch behind it (wlate)\n",
    "#define OSCAR_NEG_INF (__int_as_float(0xff800000))\n",
    "\n",
    "static __device__ __forceinline__ float oscar_bf16_to_f32(oscar_u16 h) {\n",
    "    return __uint_as_float(((oscar_u32)h) << 16);\n",
    "}\n",
    "\n",
    "// x . H of one row of DD values held by a warp in the lane layout x[jj] = element lane + 32 jj, with the CPU's operations\n",
    "// (oscar_wht: butterflies of length 1, 2, ..., DD/2, the lower element of a pair taking a + b and\n",
    "// the upper a - b, then one multiply by (float)(1 / sqrt(DD))): the same bits (the write path of H\n",
    "// caches; the decode's query rotation of such caches)\n",
    "template <int DD>\n",
    "static __device__ __forceinline__ void oscar_wht_row(float (&x)[DD / 32], int lane) {\n",
    "#pragma unroll\n",
    "    for (int len = 1; len < 32 && len < DD; len <<= 1) { // partner: lane ^ len, same jj\n",
    "        const bool up = (lane & len) != 0;\n",
    "#pragma unroll\n",
    "        for (int jj = 0; jj < DD / 32; jj++) {\n",
    "            const float o = __shfl_xor_sync(0xffffffffu, x[jj], len);\n",
    "            x[jj] = up \? __fsub_rn(o, x[jj]) : __fadd_rn(x[jj], o);\n",
    "        }\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int len = 32; len < DD; len <<= 1) { // partner: jj ^ (len / 32), same lane\n",
    "#pragma unroll\n",
    "        for (int jj = 0; jj < DD / 32; jj++)\n",
    "            if (!(jj & (len / 32))) {\n",
    "                const float a = x[jj], b = x[jj + len / 32];\n",
    "                x[jj] = __fadd_rn(a, b);\n",
    "                x[jj + len / 32] = __fsub_rn(a, b);\n",
    "            }\n",
    "    }\n",
    "    const float sc = (float)(1.0 / sqrt((double)DD));\n",
    "#pragma unroll\n",
    "    for (int jj = 0; jj < DD / 32; jj++) x[jj] = __fmul_rn(x[jj], sc);\n",
    "}\n",
    "\n",
    "// round to nearest even; NaN stays NaN (quiet)\n",
    "static __device__ __forceinline__ oscar_u16 oscar_f32_to_bf16(float f) {\n",
    "    oscar_u32 x = __float_as_uint(f);\n",
    "    if ((x & 0x7fffffffu) > 0x7f800000u) return (oscar_u16)((x >> 16) | 0x40u);\n",
    "    x += 0x7fffu + ((x >> 16) & 1u);\n",
    "    return (oscar_u16)(x >> 16);\n",
    "}\n",
    "\n",
    "static __device__ __forceinline__ oscar_u16 oscar_f32_to_f16(float f) {\n",
    "    unsigned short h;\n",
    "    asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f));\n",
    "    return h;\n",
    "}\n",
    "\n",
    "static __device__ __forceinline__ float oscar_f16_to_f32(oscar_u16 h) {\n",
    "    float f;\n",
    "    unsigned short hh = h;\n",
    "    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(hh));\n",
    "    return f;\n",
    "}\n",
    "\n",
    "// byte b of w (0..255, here 0..3) as a float: 0x4B0000bb is 2^23 + bb\n",
    "static __device__ __forceinline__ float oscar_byte_f(oscar_u32 w, int b) {\n",
    "    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u | (oscar_u32)b)) - 8388608.0f;\n",
    "}\n",
    "\n",
    "// fp16 m16n8k16 MMA, fp32 accumulate (the decode's P.V and scores; the write path's rotation)\n",
    "static __device__ __forceinline__ void oscar_mma_f16(float c[4], uint4 a, oscar_u32 b0, oscar_u32 b1) {\n",
    "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"\n",
    "                 : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n",
    "                 : \"r\"(a.x), \"r\"(a.y), \"r\"(a.z), \"r\"(a.w), \"r\"(b0), \"r\"(b1));\n",
    "}\n",
    "// (x0, x1) -> fp16 pair hi (x0 low half) and the rounding remainders lo\n",
    "static __device__ __forceinline__ void oscar_h2_split(float x0, float x1, oscar_u32 *hi, oscar_u32 *lo) {\n",
    "    oscar_u32 h, l;\n",
    "    float f0, f1;\n",
    "    asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(h) : \"f\"(x1), \"f\"(x0));\n",
    "    asm(\"{.reg .f16 a, b;\\n mov.b32 {a, b}, %2;\\n cvt.f32.f16 %0, a;\\n cvt.f32.f16 %1, b;}\" : \"=f\"(f0), \"=f\"(f1) : \"r\"(h));\n",
    "    asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(l) : \"f\"(x1 - f1), \"f\"(x0 - f0));\n",
    "    *hi = h;\n",
    "    *lo = l;\n",
    "}\n",
    "// -DOSCAR_CPL2 (measurement switch): 1 / 2 ask L2 to fetch 128 / 256 bytes around each copy;\n",
    "// 0 (default): plain copies (kernels/NOTES.md, v38: within 1% either way)\n",
    "#ifndef OSCAR_CPL2\n",
    "#define OSCAR_CPL2 0\n",
    "#endif\n",
    "static __device__ __forceinline__ void oscar_cp_async16(void *smem, const void *gmem) {\n",
    "    oscar_u32 s = (oscar_u32)__cvta_generic_to_shared(smem);\n",
    "#if OSCAR_CPL2 == 1\n",
    "    asm volatile(\"cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\\n\" ::\"r\"(s), \"l\"(gmem));\n",
    "#elif OSCAR_CPL2 == 2\n",
    "    asm volatile(\"cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\\n\" ::\"r\"(s), \"l\"(gmem));\n",
    "#else\n",
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" ::\"r\"(s), \"l\"(gmem));\n",
    "#endif\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_cp_commit(void) { asm volatile(\"cp.async.commit_group;\\n\" ::); }\n",
    "static __device__ __forceinline__ void oscar_cp_wait0(void) { asm volatile(\"cp.async.wait_group 0;\\n\" ::); }\n",
    "static __device__ __forceinline__ void oscar_cp_wait1(void) { asm volatile(\"cp.async.wait_group 1;\\n\" ::); }\n",
    "\n",
    "// programmatic dependent launch (sm_90+; no-ops before): the host launches the append kernels,\n",
    "// oscar_rotate_q, oscar_decode_w and oscar_merge so that each may start while the previous kernel of\n",
    "// the stream runs. A kernel calls oscar_pdl_wait before it reads anything the previous kernel wrote (that\n",
    "// returns once the previous grid has finished and its writes are visible), and oscar_pdl_launch\n",
    "// to let the next kernel start early; the merges, where the host passes split counts, poll the\n",
    "// count of their KV head instead. The merges let the next kernel in only at their end: placed beside\n",
    "// their blocks, a batch-1 decode grid takes the SMs unevenly (kernels/NOTES.md w41, run s33-8:\n",
    "// 1 x 32K 17.0 against 14.8 us in a graph with the trigger after the merge's loads, 20.1 at its start).\n",
    "static __device__ __forceinline__ void oscar_pdl_wait(void) {\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "    asm volatile(\"griddepcontrol.wait;\\n\" ::: \"memory\");\n",
    "#endif\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_pdl_launch(void) {\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "    asm volatile(\"griddepcontrol.launch_dependents;\\n\" ::: \"memory\");\n",
    "#endif\n",
    "}\n",
    0};
/* kernels/oscar_append.cu */
static const char *const oscar__src_oscar_append_cu[] = {
    "// oscar_append.cu - the write path of the device cache: rotate K/V rows, round to BF16, store\n",
    "// sink/window rows, and flush full pages (clip, quantise, pack) exactly like the CPU codec.\n",
    "//\n",
    "// Compile-time: OSCAR_D (head dim: 64, 128, 256), OSCAR_GS (group size, INT2 mode),\n",
    "// OSCAR_INT2 (1: INT2 history pages, 0: BF16 pages). Must be compiled with --fmad=false (the\n",
    "// fast transform and the fixed-point scaling round exactly as on the CPU).\n",
    "//\n",
    "// Grid (ceil(n_jobs / OSCAR_APPEND_TR), Hkv * 2), 128 threads: a block owns a tile of TR jobs of\n",
    "// one (KV head, K|V). When the tile holds input rows and the rotation is dense, the block rotates\n",
    "// the tile with the CPU's fixed-point definition (oscar_rotate_row_q14) on integer tensor cores:\n",
    "// each row is scaled by a power of two to 15-bit integers X = 256 Xh + Xl (int8 halves), the\n",
    "// host gives R as 2^14-scaled integers Rq = 256 Rh + Rl in int8 B fragments, and four\n",
    "// mma.m16n8k32.s8 products give the exact P = X Rq (int32 partials, combined in 64 bits); then\n",
    "// y = fp32(P) * 2^(e - 28) into shared memory (oscar__rotate_tile). Then each warp takes rows of\n",
    "// the tile: BF16 rounding, sink/window store or the INT2 codec (FT lanes per row where built,\n",
    "// else lane l owning channels c = l + 32*jj).\n",
    "#include \"oscar_common.cuh\"\n",
    "\n",
    "#ifndef OSCAR_D\n",
    "#error \"OSCAR_D must be defined\"\n",
    "#endif\n",
    "#ifndef OSCAR_INT2\n",
    "#define OSCAR_INT2 1\n",
    "#endif\n",
    "#ifndef OSCAR_GS\n",
    "#define OSCAR_GS OSCAR_D\n",
    "#endif\n",
    "#ifndef OSCAR_TOPK_MAX\n",
    "#define OSCAR_TOPK_MAX 24 // clip threshold by repeated warp max when at most this many values pass it\n",
    "#endif\n",
    "\n",
    "#define D OSCAR_D\n",
    "#define GS OSCAR_GS\n",
    "#define NC (D / 32)\n",
    "#define NGR (D / GS)\n",
    "#define AW 4                  // warps per block\n",
    "#define TR (D == 256 \? 32 : 64) // tile rows per block (must equal OSCAR__APPEND_TR(d) in oscar_cuda.h)\n",
    "#define WPT (64 / TR)           // warps per 16-row MMA tile (they split its columns)\n",
    "#define KS (D / 32)             // k steps of mma.m16n8k32\n",
    "#ifndef OSCAR_APPEND_CNT\n",
    "#define CNT (OSCAR_APPEND_WGMMA \? 4 : D >= 128 \? 2 : 4) // n-tiles per accumulator chunk of the rotation (d 128: 2, 3%\n",
    "                               // faster than 4 on 2048-token appends, level on one long call, run s31-1; wgmma: 4)\n",
    "#else\n",
    "#define CNT OSCAR_APPEND_CNT\n",
    "#endif\n",
    "\n",
    "#if (D % 32) != 0 || (D % GS) != 0 || GS < 4 || (D != 64 && D != 128 && D != 256)\n",
    "#error \"unsupported head dim / group size\"\n",
    "#endif\n",
    "#ifndef OSCAR_GAIN\n",
    "#define OSCAR_GAIN 0 // bit 0 / 1: K / V history rows through the gain encoder (OSCAR_INT2_GAIN; cfg.k_gain / v_gain)\n",
    "#endif\n",
    "#ifndef OSCAR_CENTER\n",
    "#define OSCAR_CENTER 0 // 1: the input rows less the cache's means (kmean / vmean), before anything else (cfg.center 1)\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_NR\n",
    "#define OSCAR_APPEND_NR 1 // rows a warp quantises at once (independent chains for the clip and codec)\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_CLIPS\n",
    "#define OSCAR_APPEND_CLIPS 1 // clip threshold: 1 = lanes sort their values, the warp pops heads; 0 = warp max over all values each round\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_WGMMA // 1: dense rotations by warpgroup MMAs (sm_90a, d <= 128: one warpgroup = the tile's\n",
    "#define OSCAR_APPEND_WGMMA 0 // 64 rows; B copied to shared memory per tile): correct, but 5% slower (kernels/NOTES.md w23)\n",
    "#endif\n",
    "#if OSCAR_APPEND_WGMMA && (!defined(__CUDA_ARCH_FEAT_SM90_ALL) || D > 128)\n",
    "#error \"OSCAR_APPEND_WGMMA needs sm_90a and d <= 128\"\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_PROF\n",
    "#define OSCAR_APPEND_PROF 0 // timing only (wrong results): 1 = dense tiles skip the MMAs, 2 = dense tiles skip the codec,\n",
    "                            // 3 = every k step uses step 0's B fragments (loaded once per chunk: a quarter of the\n",
    "                            // loads), 4 = no fixed-point epilogue, 6 = the B loads without the MMAs\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_Q3\n",
    "#define OSCAR_APPEND_Q3 0 // timing only (other bytes than the CPU's): the product without Xl.Rl, P = 2^8 (2^8 Xh.Rh + Xh.Rl + Xl.Rh) in 32 bits\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_A4\n",
    "#define OSCAR_APPEND_A4 0 // 1: Xl.Rh in its own accumulator (a4) instead of a2's, so no accumulator chains more than KS\n",
    "                          // IMMAs (a2 chained 2 KS); the same integers, so the same bytes (kernels/NOTES.md w36)\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_HOIST\n",
    "#define OSCAR_APPEND_HOIST 2 // the rotation loop's B pointer and Y store addresses from per-thread bases set before it\n",
    "                             // (oscar__ysw(row, 8 n + 2 t) = ys base + 4 (n ^ g / 2)), not rebuilt per chunk: 2 in\n",
    "                             // oscar_append_w only (2.6% faster on one long call, run s32-1), 1 in both kernels (level\n",
    "                             // to 1% slower on 2048-token appends through oscar_append), 0 in neither\n",
    "#endif\n",
    "#define WPS ((D / 8 / CNT) < 4 \? (D / 8 / CNT) : 4) // oscar_append_s: warps on one MMA tile at most (its n-tiles a multiple of CNT)\n",
    "#ifndef OSCAR_APPEND_STAGGER // oscar_append_w with p.sms: ns between the starts of the first wave's blocks of one SM, by\n",
    "#define OSCAR_APPEND_STAGGER 1500 // their rank there (linear block index / p.sms, below OSCAR_APPEND_WMINB); 0: none.\n",
    "#endif                            // The same bytes (w47, run s40-2)\n",
    "#ifndef OSCAR_APPEND_MINB // resident blocks per SM the register allocation must allow (0: no hint);\n",
    "#if OSCAR_APPEND_WGMMA      // the B matrices in shared memory (50 KB per block at d 128) allow 4\n",
    "#define OSCAR_APPEND_MINB 4\n",
    "#elif OSCAR_D >= 128         // d 128 and 256: 5 (96 registers, a few spilled; at d 128 5% faster than 4 with\n",
    "#define OSCAR_APPEND_MINB 5 // 128 registers and than 6 with 80, kernels/NOTES.md w22)\n",
    "#else\n",
    "#define OSCAR_APPEND_MINB 0\n",
    "#endif\n",
    "#endif\n",
    "\n",
    "\n",
    "// int4 i of the runs in the parameters (indexed there by value: no pointer into the parameter space)\n",
    "static __device__ __forceinline__ int4 oscar__inl_run(const oscar_append_params &p, int i) {\n",
    "    return make_int4(p.inl[4 * i], p.inl[4 * i + 1], p.inl[4 * i + 2], p.inl[4 * i + 3]);\n",
    "}\n",
    "// the flush launch before a write launch with p.wlate: block (0, 0) publishes p.epoch (release, after its wait) before\n",
    "// any of its threads lets the next launch in; the write launch's blocks take it (acquire) before they read input rows.\n",
    "// The next launch starts only once every block of this one has let it in, so the value is there by then\n",
    "static __device__ __forceinline__ void oscar__epoch_put(const oscar_append_params &p) {\n",
    "    if (p.epoch && !p.wlate && blockIdx.x == 0 && blockIdx.y == 0) {\n",
    "        if (threadIdx.x == 0)\n",
    "            asm volatile(\"st.release.gpu.global.u32 [%0], %1;\" ::\"l\"((unsigned *)p.err + OSCAR_ERR_EPOCH), \"r\"((unsigned)p.epoch) : \"memory\");\n",
    "        __syncthreads();\n",
    "    }\n",
    "}\n",
    "static __device__ __forceinline__ void oscar__epoch_take(const oscar_append_params &p) {\n",
    "    if (threadIdx.x == 0) {\n",
    "        unsigned v;\n",
    "        do asm volatile(\"ld.acquire.gpu.global.u32 %0, [%1];\" : \"=r\"(v) : \"l\"((const unsigned *)p.err + OSCAR_ERR_EPOCH) : \"memory\");\n",
    "        while (v != (unsigned)p.epoch);\n",
    "    }\n",
    "    __syncthreads();\n",
    "}\n",
    "// job j of this launch -> (input row or -1, sequence slot, position, page or -1), from the runs\n",
    "static __device__ __forceinline__ int4 oscar__job(const oscar_append_params &p, long long j) {\n",
    "    const int4 *runs = (const int4 *)p.jobs;\n",
    "    auto run = [&](int i) -> int4 { return runs \? runs[i] : oscar__inl_run(p, i); }; // from memory or the parameters\n",
    "    int lo = 0, hi = p.n_runs - 1;\n",
    "    while (lo < hi) { // the last run that starts at or before j\n",
    "        const int mid = (lo + hi + 1) >> 1;\n",
    "        if (run(2 * mid).x <= j) lo = mid;\n",
    "        else hi = mid - 1;\n",
    "    }\n",
    "    const int4 a = run(2 * lo), b = run(2 * lo + 1);\n",
    "    const int pos = a.y + (int)(j - a.x);\n",
    "    const int src = pos >= b.x \? a.w + pos : -1;\n",
    "    int page = -1;\n",
    "    if (b.y) {\n",
    "        const int pi = (pos - p.S0) / p.P; // this call's new pages from the parameters (bt gets them in this launch)\n",
    "        page = !runs && pi >= b.w \? p.inl[(b.z & 0xffff) + pi - b.w] : ((const int *)p.bt)[(size_t)a.z * p.max_pages + pi];\n",
    "    }\n",
    "    return make_int4(src, a.z, pos, page);\n",
    "}\n",
    "// a flush launch whose runs came in the parameters with the call's new pages: block (0, 0) writes those pages into\n",
    "// the block tables (the launch's blocks take them from the parameters; later kernels on the stream read bt)\n",
    "static __device__ __forceinline__ void oscar__bt_inline(const oscar_append_params &p) {\n",
    "    if (p.jobs || blockIdx.x != 0 || blockIdx.y != 0) return;\n",
    "    for (int r = 0; r < p.n_runs; r++) {\n",
    "        const int4 a = oscar__inl_run(p, 2 * r), b = oscar__inl_run(p, 2 * r + 1); // slot a.z; flush b.y; pages b.z, b.w\n",
    "        if (b.y)\n",
    "            for (int i = threadIdx.x; i < (b.z >> 16); i += blockDim.x) ((int *)p.bt)[(size_t)a.z * p.max_pages + b.w + i] = p.inl[(b.z & 0xffff) + i];\n",
    "    }\n",
    "}\n",
    "#if OSCAR_INT2\n",
    "// job j as oscar__job gives it, or (-1, 0, 0, 0) past the last job (the lanes of such a row take\n",
    "// part in the shuffles with zeros and store nothing)\n",
    "static __device__ __forceinline__ int4 oscar__fjob(const oscar_append_params &p, long long j) {\n",
    "    return j < p.n_jobs \? oscar__job(p, j) : make_int4(-1, 0, 0, 0);\n",
    "}\n",
    "#endif\n",
    "\n",
    "#if OSCAR_INT2\n",
    "// the CPU codec's clip index: thr = a[idx] of the ascending |x|; -1: no clip\n",
    "static __device__ __forceinline__ int oscar__clip_idx(float clip) {\n",
    "    if (!(clip > 0.0f)) return -1;\n",
    "    const int idx = (int)floorf(clip * (float)D);\n",
    "    return idx > D - 1 \? D - 1 : idx;\n",
    "}\n",
    "// an INT2 page row (codes) and its group scales of one (page, KV head, K|V, position)\n",
    "static __device__ __forceinline__ oscar_u8 *oscar__page_row(const oscar_append_params &p, int page, int head, int isv, int pos, oscar_u32 **sm) {\n",
    "    const int prow = (pos - p.S0) % p.P;\n",
    "    oscar_u8 *codes = (oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + head) * (size_t)p.head_page_bytes +\n",
    "                      (size_t)isv * p.P * (D / 4 + NGR * 4);\n",
    "    *sm = (oscar_u32 *)(codes + (size_t)p.P * (D / 4)) + (size_t)prow * NGR;\n",
    "    return codes + (size_t)prow * (D / 4);\n",
    "}\n",
    "// the gain encoder (OSCAR_INT2_GAIN, as the CPU's oscar_int2_quantize_row_ex): over a group, in column\n",
    "// order, xx += x0^2 and xh += x0 h in double (x0 the unclipped value, h = min + q scale in fp32: both\n",
    "// products exact, so the CPU's fused or unfused forms agree); then scale and min times gamma = xx / xh\n",
    "// clamped to [0.5, 2] where both sums are positive, unless either leaves the fp16 range\n",
    "static __device__ __forceinline__ void oscar__gain_acc(double &xx, double &xh, float x0, int q, float sc, float mn) {\n",
    "    const float h = __fadd_rn(mn, __fmul_rn((float)q, sc));\n",
    "    xx = __dadd_rn(xx, __dmul_rn((double)x0, (double)x0));\n",
    "    xh = __dadd_rn(xh, __dmul_rn((double)x0, (double)h));\n",
    "}\n",
    "static __device__ __forceinline__ oscar_u32 oscar__gain_sm(double xx, double xh, float sc, float mn, oscar_u32 smw) {\n",
    "    if (xh > 0.0 && xx > 0.0) {\n",
    "        double gam = __ddiv_rn(xx, xh);\n",
    "        gam = gam < 0.5 \? 0.5 : (gam > 2.0 \? 2.0 : gam);\n",
    "        const oscar_u16 hs = oscar_f32_to_f16(__double2float_rn(__dmul_rn((double)sc, gam)));\n",
    "        const oscar_u16 hm = oscar_f32_to_f16(__double2float_rn(__dmul_rn((double)mn, gam)));\n",
    "        if ((hs & 0x7c00u) != 0x7c00u && (hm & 0x7c00u) != 0x7c00u) return (oscar_u32)hs | ((oscar_u32)hm << 16);\n",
    "    }\n",
    "    return smw;\n",
    "}\n",
    "\n",
    "// the INT2 codec (SPEC section 4) for NR rows of one (head, K|V), all to pages; same fp32 operation\n",
    "// sequence as the CPU reference\n",
    "template <int NR>\n",
    "static __device__ __forceinline__ void oscar__codec(const oscar_append_params &p, float (&x)[NR][NC], int isv, int head,\n",
    "                                                    const int (&pos)[NR], const int (&page)[NR], oscar_u8 *cs, int lane) {\n",
    "    const int idx = oscar__clip_idx(isv \? p.v_clip : p.k_clip);\n",
    "    const bool gain = (OSCAR_GAIN & (isv \? 2 : 1)) != 0;\n",
    "    float x0[OSCAR_GAIN \? NR : 1][OSCAR_GAIN \? NC : 1]; // the unclipped values (gain encoder)\n",
    "    if (OSCAR_GAIN)\n",
    "#pragma unroll\n",
    "        for (int r = 0; r < NR; r++)\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) x0[OSCAR_GAIN \? r : 0][OSCAR_GAIN \? jj : 0] = x[r][jj];\n",
    "    if (idx >= 0) {\n",
    "        // thr = a[idx] of the ascending |x| = the (D - idx)-th largest, counted with multiplicity\n",
    "        // (bit patterns of non-negative floats order like the floats)\n",
    "        oscar_u32 a[NR][NC], thr[NR];\n",
    "#pragma unroll\n",
    "        for (int r = 0; r < NR; r++)\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) a[r][jj] = __float_as_uint(x[r][jj]) & 0x7fffffffu;\n",
    "        if (D - idx <= OSCAR_TOPK_MAX && OSCAR_APPEND_CLIPS) {\n",
    "            // each lane sorts its NC values, descending; then the warp takes the largest head k\n",
    "            // times: a lane whose head equals the maximum m shifts its list (a 0 comes in at the\n",
    "            // end); cnt counts the heads equal to m, so copies of m in one lane are counted in\n",
    "            // later rounds with the same m; m == 0: every value left is 0 and so is the threshold\n",
    "            int k[NR];\n",
    "            bool done[NR];\n",
    "#pragma unroll\n",
    "            for (int r = 0; r < NR; r++) {\n",
    "                k[r] = D - idx, done[r] = false, thr[r] = 0u;\n",
    "#pragma unroll\n",
    "                for (int i = 0; i < NC - 1; i++)\n",
    "#pragma unroll\n",
    "                    for (int jj = 0; jj < NC - 1 - i; jj++) {\n",
    "                        const oscar_u32 u = a[r][jj], v = a[r][jj + 1];\n",
    "                        a[r][jj] = max(u, v);\n",
    "                        a[r][jj + 1] = min(u, v);\n",
    "                    }\n",
    "            }\n",
    "            for (;;) {\n",
    "                bool all = true;\n",
    "#pragma unroll\n",
    "                for (int r = 0; r < NR; r++) {\n",
    "                    const oscar_u32 m = __reduce_max_sync(0xffffffffu, a[r][0]);\n",
    "                    const bool top = a[r][0] == m;\n",
    "                    const int cnt = __popc(__ballot_sync(0xffffffffu, top));\n",
    "                    if (!done[r]) {\n",
    "                        if (cnt >= k[r] || m == 0u) {\n",
    "                            thr[r] = m;\n",
    "                            done[r] = true;\n",
    "                        } else {\n",
    "                            k[r] -= cnt;\n",
    "                            if (top) {\n",
    "#pragma unroll\n",
    "                                for (int jj = 0; jj < NC - 1; jj++) a[r][jj] = a[r][jj + 1];\n",
    "                                a[r][NC - 1] = 0u;\n",
    "                            }\n",
    "                        }\n",
    "                    }\n",
    "                    all = all && done[r];\n",
    "                }\n",
    "                if (all) break;\n",
    "            }\n",
    "        } else if (D - idx <= OSCAR_TOPK_MAX) {\n",
    "            // take the largest value k times; a value taken is set to 0 (if the maximum left is 0,\n",
    "            // every value left is 0 and so is the threshold)\n",
    "            int k[NR];\n",
    "            bool done[NR];\n",
    "#pragma unroll\n",
    "            for (int r = 0; r < NR; r++) k[r] = D - idx, done[r] = false, thr[r] = 0u;\n",
    "            for (;;) {\n",
    "                oscar_u32 m[NR];\n",
    "                int cnt[NR];\n",
    "#pragma unroll\n",
    "                for (int r = 0; r < NR; r++) {\n",
    "                    m[r] = a[r][0];\n",
    "#pragma unroll\n",
    "                    for (int jj = 1; jj < NC; jj++) m[r] = max(m[r], a[r][jj]);\n",
    "                    m[r] = __reduce_max_sync(0xffffffffu, m[r]);\n",
    "                }\n",
    "#pragma unroll\n",
    "                for (int r = 0; r < NR; r++) {\n",
    "                    cnt[r] = 0;\n",
    "#pragma unroll\n",
    "                    for (int jj = 0; jj < NC; jj++) cnt[r] += a[r][jj] == m[r];\n",
    "                    cnt[r] = __reduce_add_sync(0xffffffffu, cnt[r]);\n",
    "                }\n",
    "                bool all = true;\n",
    "#pragma unroll\n",
    "                for (int r = 0; r < NR; r++) {\n",
    "                    if (!done[r]) {\n",
    "                        if (cnt[r] >= k[r] || m[r] == 0u) {\n",
    "                            thr[r] = m[r];\n",
    "                            done[r] = true;\n",
    "                        } else {\n",
    "                            k[r] -= cnt[r];\n",
    "#pragma unroll\n",
    "                            for (int jj = 0; jj < NC; jj++) a[r][jj] = a[r][jj] == m[r] \? 0u : a[r][jj];\n",
    "                        }\n",
    "                    }\n",
    "                    all = all && done[r];\n",
    "                }\n",
    "                if (all) break;\n",
    "            }\n",
    "        } else {\n",
    "            // smallest u with #{|x| <= u} > idx\n",
    "#pragma unroll\n",
    "            for (int r = 0; r < NR; r++) {\n",
    "                oscar_u32 lo = 0u, hi = 0x7f7fffffu;\n",
    "                while (lo < hi) {\n",
    "                    const oscar_u32 mid = lo + ((hi - lo) >> 1);\n",
    "                    int cnt = 0;\n",
    "#pragma unroll\n",
    "                    for (int jj = 0; jj < NC; jj++) cnt += a[r][jj] <= mid;\n",
    "                    cnt = __reduce_add_sync(0xffffffffu, cnt);\n",
    "                    if (cnt > idx) hi = mid;\n",
    "                    else lo = mid + 1u;\n",
    "                }\n",
    "                thr[r] = lo;\n",
    "            }\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int r = 0; r < NR; r++) {\n",
    "            const float t = __uint_as_float(thr[r]);\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) {\n",
    "                if (x[r][jj] > t) x[r][jj] = t;\n",
    "                if (x[r][jj] < -t) x[r][jj] = -t;\n",
    "            }\n",
    "        }\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int r = 0; r < NR; r++) {\n",
    "        float gmn[NC], gmx[NC];\n",
    "#if GS >= 32\n",
    "        // float order as signed integers (x ^ (sign \? 0x7fffffff : 0)); -0 sorts below +0 as in min.f32\n",
    "#pragma unroll\n",
    "        for (int j0 = 0; j0 < NC; j0 += GS / 32) {\n",
    "            int a = 0x7fffffff, b = (int)0x80000000;\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < GS / 32; t++) {\n",
    "                const int v = __float_as_int(x[r][j0 + t]), key = v ^ ((v >> 31) & 0x7fffffff);\n",
    "                a = min(a, key);\n",
    "                b = max(b, key);\n",
    "            }\n",
    "            a = __reduce_min_sync(0xffffffffu, a);\n",
    "            b = __reduce_max_sync(0xffffffffu, b);\n",
    "            a ^= (a >> 31) & 0x7fffffff;\n",
    "            b ^= (b >> 31) & 0x7fffffff;\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < GS / 32; t++) {\n",
    "                gmn[j0 + t] = __int_as_float(a);\n",
    "                gmx[j0 + t] = __int_as_float(b);\n",
    "            }\n",
    "        }\n",
    "#else\n",
    "#pragma unroll\n",
    "        for (int jj = 0; jj < NC; jj++) {\n",
    "            float a = x[r][jj], b = x[r][jj];\n",
    "#pragma unroll\n",
    "            for (int o = 1; o < GS; o <<= 1) {\n",
    "                a = fminf(a, __shfl_xor_sync(0xffffffffu, a, o));\n",
    "                b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));\n",
    "            }\n",
    "            gmn[jj] = a;\n",
    "            gmx[jj] = b;\n",
    "        }\n",
    "#endif\n",
    "        // a min or max that is zero takes the sign of the group's first zero in column order (the\n",
    "        // CPU's loop keeps the first of equal values; the reductions above order -0 below +0)\n",
    "        bool zero = false;\n",
    "#pragma unroll\n",
    "        for (int jj = 0; jj < NC; jj++) zero = zero || gmn[jj] == 0.0f || gmx[jj] == 0.0f;\n",
    "        if (__any_sync(0xffffffffu, zero)) {\n",
    "            oscar_u32 fz[NC]; // (column << 1 | sign) of this lane's zero, or ~0\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) {\n",
    "                const oscar_u32 b = __float_as_uint(x[r][jj]);\n",
    "                fz[jj] = (b & 0x7fffffffu) \? 0xffffffffu : ((oscar_u32)(lane + 32 * jj) << 1 | b >> 31);\n",
    "            }\n",
    "#if GS >= 32\n",
    "#pragma unroll\n",
    "            for (int j0 = 0; j0 < NC; j0 += GS / 32) {\n",
    "                oscar_u32 f = fz[j0];\n",
    "#pragma unroll\n",
    "                for (int tt = 1; tt < GS / 32; tt++) f = min(f, fz[j0 + tt]);\n",
    "                f = __reduce_min_sync(0xffffffffu, f);\n",
    "#pragma unroll\n",
    "                for (int tt = 0; tt < GS / 32; tt++) fz[j0 + tt] = f;\n",
    "            }\n",
    "#else\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++)\n",
    "#pragma unroll\n",
    "                for (int o = 1; o < GS; o <<= 1) fz[jj] = min(fz[jj], __shfl_xor_sync(0xffffffffu, fz[jj], o));\n",
    "#endif\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) {\n",
    "                const float z = (fz[jj] & 1u) \? -0.0f : 0.0f;\n",
    "                if (gmn[jj] == 0.0f) gmn[jj] = z;\n",
    "                if (gmx[jj] == 0.0f) gmx[jj] = z;\n",
    "            }\n",
    "        }\n",
    "        oscar_u32 *sm;\n",
    "        oscar_u8 *codes = oscar__page_row(p, page[r], head, isv, pos[r], &sm);\n",
    "        oscar_u8 *c8 = cs + r * D;\n",
    "        float gsv[NC], gmv[NC]; // this lane's columns' stored scale and min (gain encoder)\n",
    "#pragma unroll\n",
    "        for (int jj = 0; jj < NC; jj++) {\n",
    "            const int c = lane + 32 * jj;\n",
    "            const float scale = (gmx[jj] - gmn[jj]) / 3.0f;\n",
    "            const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[jj]);\n",
    "            const float s = oscar_f16_to_f32(s16), m = oscar_f16_to_f32(m16);\n",
    "            gsv[jj] = s, gmv[jj] = m;\n",
    "            int q = 0;\n",
    "            if (s != 0.0f) {\n",
    "                const float t = floorf((x[r][jj] - m) / s + 0.5f);\n",
    "                q = t < 0.0f \? 0 : (t > 3.0f \? 3 : (int)t);\n",
    "            }\n",
    "            c8[c] = (oscar_u8)q;\n",
    "            if (c % GS == 0) sm[c / GS] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);\n",
    "        }\n",
    "        __syncwarp();\n",
    "        if (OSCAR_GAIN && gain) { // every lane sums each group in column order (values by shuffle, codes from c8)\n",
    "            double xx = 0.0, xh = 0.0;\n",
    "#pragma unroll\n",
    "            for (int c = 0; c < D; c++) {\n",
    "                const float v = __shfl_sync(0xffffffffu, x0[OSCAR_GAIN \? r : 0][OSCAR_GAIN \? c / 32 : 0], c % 32);\n",
    "                const float sc = __shfl_sync(0xffffffffu, gsv[c / 32], c % 32), mn = __shfl_sync(0xffffffffu, gmv[c / 32], c % 32);\n",
    "                oscar__gain_acc(xx, xh, v, c8[c], sc, mn);\n",
    "                if (c % GS == GS - 1) {\n",
    "                    const oscar_u32 w = oscar__gain_sm(xx, xh, sc, mn, (oscar_u32)oscar_f32_to_f16(sc) | ((oscar_u32)oscar_f32_to_f16(mn) << 16));\n",
    "                    if (lane == 0) sm[c / GS] = w;\n",
    "                    xx = 0.0, xh = 0.0;\n",
    "                }\n",
    "            }\n",
    "        }\n",
    "        for (int b = lane; b < D / 4; b += 32)\n",
    "            codes[b] = (oscar_u8)(c8[b] | (c8[b + D / 4] << 2) | (c8[b + D / 2] << 4) | (c8[b + 3 * D / 4] << 6));\n",
    "    }\n",
    "    __syncwarp();\n",
    "}\n",
    "#endif\n",
    "\n",
    "// one row's lane values -> BF16 sink/window row, BF16 page row, or the INT2 codec\n",
    "static __device__ __forceinline__ void oscar__row_out(const oscar_append_params &p, float (&x)[NC], int isv, int head,\n",
    "                                                      int slot, int pos, int page, oscar_u16 *ringrow, oscar_u8 *cs, int lane) {\n",
    "    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;\n",
    "    if (page < 0) { // BF16 row for the sink or the window ring\n",
    "        oscar_u16 *dst = pos < p.S0 \? (oscar_u16 *)p.sink + ((slab * 2 + isv) * p.S0 + pos) * D : ringrow;\n",
    "#pragma unroll\n",
    "        for (int jj = 0; jj < NC; jj++) dst[lane + 32 * jj] = oscar_f32_to_bf16(x[jj]);\n",
    "        return;\n",
    "    }\n",
    "#if !OSCAR_INT2\n",
    "    const int prow = (pos - p.S0) % p.P;\n",
    "    oscar_u16 *dst = (oscar_u16 *)((oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + head) * (size_t)p.head_page_bytes) +\n",
    "                     ((size_t)isv * p.P + prow) * D;\n",
    "#pragma unroll\n",
    "    for (int jj = 0; jj < NC; jj++) dst[lane + 32 * jj] = oscar_f32_to_bf16(x[jj]);\n",
    "#else\n",
    "    float xr[1][NC];\n",
    "    const int pr[1] = {pos}, pg[1] = {page};\n",
    "#pragma unroll\n",
    "    for (int jj = 0; jj < NC; jj++) xr[0][jj] = x[jj];\n",
    "    oscar__codec<1>(p, xr, isv, head, pr, pg, cs, lane);\n",
    "#endif\n",
    "}\n",
    "\n",
    "#if OSCAR_INT2 && GS * 8 >= D && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)\n",
    "#define OSCAR__FCODEC 1\n",
    "#else\n",
    "#define OSCAR__FCODEC 0\n",
    "#endif\n",
    "#define OSCAR__APPEND_SMEM0 (TR * D * 2 + AW * OSCAR_APPEND_NR * D + TR * 8 + TR * 16)\n",
    "#define OSCAR__APPEND_SMEM (OSCAR__APPEND_SMEM0 + (OSCAR_APPEND_WGMMA \? 2 * D * D : 0))\n",
    "// oscar_append's dynamic shared memory in bytes (the host reads it)\n",
    "extern \"C\" __device__ int oscar_append_smem = OSCAR__APPEND_SMEM;\n",
    "// 1: the dense rotations are wgmma products and the host lays their B matrices out for them\n",
    "extern \"C\" __device__ int oscar_append_wgmma = OSCAR_APPEND_WGMMA;\n",
    "// ---- packed BF16 helpers (the FT-lanes codec; the rotated tile's store) ----\n",
    "#if OSCAR_INT2\n",
    "static __device__ __forceinline__ oscar_u32 oscar__bf2(float lo_half, float hi_half) { // round to nearest even\n",
    "    oscar_u32 d;\n",
    "    asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(d) : \"f\"(hi_half), \"f\"(lo_half));\n",
    "    return d;\n",
    "}\n",
    "#endif\n",
    "static __device__ __forceinline__ float oscar__bh(oscar_u32 w, int h) { return __uint_as_float(h \? (w & 0xffff0000u) : (w << 16)); }\n",
    "#if OSCAR__FCODEC\n",
    "static __device__ __forceinline__ oscar_u32 oscar__bmin2(oscar_u32 a, oscar_u32 b) {\n",
    "    oscar_u32 d;\n",
    "    asm(\"min.bf16x2 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b));\n",
    "    return d;\n",
    "}\n",
    "static __device__ __forceinline__ oscar_u32 oscar__bmax2(oscar_u32 a, oscar_u32 b) {\n",
    "    oscar_u32 d;\n",
    "    asm(\"max.bf16x2 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b));\n",
    "    return d;\n",
    "}\n",
    "// 0xffff in each half where a >= b (BF16 values; false against NaN). sm_80 has no BF16 compare: the\n",
    "// halves as floats\n",
    "static __device__ __forceinline__ oscar_u32 oscar__bge2(oscar_u32 a, oscar_u32 b) {\n",
    "#if __CUDA_ARCH__ >= 900\n",
    "    oscar_u32 d;\n",
    "    asm(\"set.ge.u32.bf16x2 %0, %1, %2;\" : \"=r\"(d) : \"r\"(a), \"r\"(b));\n",
    "    return d;\n",
    "#else\n",
    "    return (oscar__bh(a, 0) >= oscar__bh(b, 0) \? 0xffffu : 0u) | (oscar__bh(a, 1) >= oscar__bh(b, 1) \? 0xffff0000u : 0u);\n",
    "#endif\n",
    "}\n",
    "// the CPU's clamp to [-T, T] (T2: T's bits in both halves), on a packed pair and on one value;\n",
    "// the sign of a zero may differ from the CPU's (the zero min / max step does not rely on it)\n",
    "static __device__ __forceinline__ oscar_u32 oscar__clamp2(oscar_u32 w, oscar_u32 T2) { return oscar__bmax2(oscar__bmin2(w, T2), T2 | 0x80008000u); }\n",
    "// the CPU codec's code of value v for the stored (min, scale)\n",
    "static __device__ __forceinline__ int oscar__code(float v, float m, float s) {\n",
    "    if (s == 0.0f) return 0;\n",
    "    const float tq = floorf((v - m) / s + 0.5f);\n",
    "    return tq < 0.0f \? 0 : (tq > 3.0f \? 3 : (int)tq);\n",
    "}\n",
    "// BF16 bits <-> an order-preserving 16-bit key\n",
    "static __device__ __forceinline__ oscar_u32 oscar__ok16(oscar_u32 b) { return (b & 0x8000u) \? (~b & 0xffffu) : (b | 0x8000u); }\n",
    "static __device__ __forceinline__ oscar_u32 oscar__ik16(oscar_u32 k) { return (k & 0x8000u) \? (k & 0x7fffu) : (~k & 0xffffu); }\n",
    "static __device__ __forceinline__ float oscar__k16f(oscar_u32 k) { return __uint_as_float(oscar__ik16(k) << 16); }\n",
    "// the smallest BF16 value whose code is >= q (1..3), as bits; NaN (nothing reaches it) when the\n",
    "// scale is 0. Codes are monotone in the value, -inf has code 0 and +inf code 3: from the estimate\n",
    "// m + (q - 1/2) s: the estimate's key k and its neighbours are evaluated at once, and the boundary\n",
    "// is k or k + 1 in the common case; else a galloping search brackets the first key with code >= q,\n",
    "// then bisection (near 0, where BF16 values are dense, up to ~16 evaluations).\n",
    "static __device__ oscar_u32 oscar__bound(float m, float s, int q) {\n",
    "    if (s == 0.0f) return 0x7fc0u;\n",
    "    const int kmin = 0x007f, kmax = 0xff80; // -inf, +inf\n",
    "    float x0 = m + ((float)q - 0.5f) * s;\n",
    "    // below half an ulp of m, v - m rounds to -m: every such v has the code of 0, and the boundary\n",
    "    // lies at the edge of that window (a symmetric group puts the middle boundary there)\n",
    "    const float w = __int_as_float(__float_as_int(m) & 0x7f800000) * 5.9604645e-8f; // ulp(m) / 2\n",
    "    if (fabsf(x0) < 4.0f * w) x0 = oscar__code(0.0f, m, s) >= q \? -w : w;\n",
    "    int k = (int)oscar__ok16(oscar_f32_to_bf16(x0)), lo, hi, st = 1;\n",
    "    k = min(max(k, kmin), kmax);\n",
    "    // the common case, without branches: the boundary is k or k + 1 (codes are monotone in the key)\n",
    "    const int c0 = oscar__code(oscar__k16f((oscar_u32)k), m, s);\n",
    "    const int cm = oscar__code(oscar__k16f((oscar_u32)max(k - 1, kmin)), m, s);\n",
    "    const int cp = oscar__code(oscar__k16f((oscar_u32)min(k + 1, kmax)), m, s);\n",
    "    if (c0 >= q && (k == kmin || cm < q)) return oscar__ik16((oscar_u32)k);\n",
    "    if (c0 < q && k < kmax && cp >= q) return oscar__ik16((oscar_u32)(k + 1));\n",
    "    if (c0 >= q) {\n",
    "        hi = k, lo = k - 1;\n",
    "        while (lo > kmin && oscar__code(oscar__k16f((oscar_u32)lo), m, s) >= q) hi = lo, st *= 2, lo = max(hi - st, kmin);\n",
    "    } else {\n",
    "        lo = k, hi = k + 1;\n",
    "        while (hi < kmax && oscar__code(oscar__k16f((oscar_u32)hi), m, s) < q) lo = hi, st *= 2, hi = min(lo + st, kmax);\n",
    "    }\n",
    "    while (hi - lo > 1) {\n",
    "        const int mid = (lo + hi) >> 1;\n",
    "        if (oscar__code(oscar__k16f((oscar_u32)mid), m, s) >= q) hi = mid;\n",
    "        else lo = mid;\n",
    "    }\n",
    "    return oscar__ik16((oscar_u32)hi);\n",
    "}\n",
    "\n",
    "#endif\n",
    "\n",
    "#if OSCAR__FCODEC\n",
    "#define FT (D / 32)      // threads per row\n",
    "#define FR (128 / FT)    // rows per block (must equal OSCAR__FWHT_ROWS(d) in oscar_cuda.h)\n",
    "#define FIPG (8 * GS / D) // runs i per group\n",
    "#define FNG (D / GS)      // groups per row\n",
    "#ifndef OSCAR_FWHT_MINB\n",
    "#define OSCAR_FWHT_MINB 6 // resident blocks per SM the register allocation must allow\n",
    "#endif\n",
    "// reductions over the FT lanes of a row\n",
    "static __device__ __forceinline__ int oscar__rsum(int v) {\n",
    "#pragma unroll\n",
    "    for (int o = 1; o < FT; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);\n",
    "    return v;\n",
    "}\n",
    "static __device__ __forceinline__ oscar_u32 oscar__rmax(oscar_u32 v) {\n",
    "#pragma unroll\n",
    "    for (int o = 1; o < FT; o <<= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));\n",
    "    return v;\n",
    "}\n",
    "static __device__ __forceinline__ oscar_u32 oscar__rmin(oscar_u32 v) {\n",
    "#pragma unroll\n",
    "    for (int o = 1; o < FT; o <<= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));\n",
    "    return v;\n",
    "}\n",
    "// MM (sm_90, FT 4: lane 4 g + t holds a quarter of row g, as the rows of an m16n8k16 A fragment): set.ge gives\n",
    "// BF16 1.0 or 0 per half, and four MMAs against a B of ones sum them: C[g][.] counts words 4q, 4q + 2 of the\n",
    "// row's four lanes, C[g + 8][.] words 4q + 1, 4q + 3, so a lane's c0 + c2 is its row's count (exact: sums of at\n",
    "// most 128 ones in fp32), no shuffles. OSCAR_FCNT_MMA 2 (default): in the flush tiles of oscar_append only\n",
    "// (fitted rotations: 0.9-1.6% faster, runs s29-1/2), 1: in oscar_append_fwht too (H rotations: 5% slower there, whose\n",
    "// kernel has no other tensor work: the MMAs' latency sits on each count's chain), 0: never (kernels/NOTES.md w30)\n",
    "#ifndef OSCAR_FCNT_MMA\n",
    "#define OSCAR_FCNT_MMA 2\n",
    "#endif\n",
    "// #{|x| >= v} over the row (a: |x| as BF16 pairs, as oscar__fabs2 leaves them; v: a non-negative BF16\n",
    "// value's bits). sm_90: the masks of set.ge are subtracted: the low half of a sum counts A, the high\n",
    "// half B - A. sm_80 (no BF16 compare): oscar__fabs2 has set bit 15 of each half that is a number and\n",
    "// made each NaN half 0x7fff, so (a - v) keeps bit 15 of a half iff |x| >= v as floats (v < 0x8000: no\n",
    "// borrow crosses the halves); word w's two bits are shifted to 15 - w and 31 - w, distinct for the 16\n",
    "// words, and counted by one popc. A NaN v counts nothing, as the float compare does\n",
    "template <int MM>\n",
    "static __device__ __forceinline__ int oscar__fcnt(const oscar_u32 (&a)[16], oscar_u32 v) {\n",
    "    const oscar_u32 v2 = v * 0x10001u;\n",
    "#if __CUDA_ARCH__ >= 900\n",
    "    if (MM && FT == 4) {\n",
    "        float c[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};\n",
    "#pragma unroll\n",
    "        for (int q = 0; q < 4; q++) {\n",
    "            oscar_u32 m[4];\n",
    "#pragma unroll\n",
    "            for (int i = 0; i < 4; i++) asm(\"set.ge.bf16x2.bf16x2 %0, %1, %2;\" : \"=r\"(m[i]) : \"r\"(a[4 * q + i]), \"r\"(v2));\n",
    "            float *d = c[q & 1];\n",
    "            asm(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n",
    "                : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n",
    "                : \"r\"(m[0]), \"r\"(m[1]), \"r\"(m[2]), \"r\"(m[3]), \"r\"(0x3f803f80u), \"r\"(0x3f803f80u));\n",
    "        }\n",
    "        return (int)((c[0][0] + c[0][2]) + (c[1][0] + c[1][2]));\n",
    "    }\n",
    "    oscar_u32 s4[4] = {0u, 0u, 0u, 0u};\n",
    "#pragma unroll\n",
    "    for (int w = 0; w < 16; w++) s4[w & 3] -= oscar__bge2(a[w], v2);\n",
    "    const oscar_u32 acc = (s4[0] + s4[1]) + (s4[2] + s4[3]);\n",
    "    return oscar__rsum((int)(((acc >> 16) + 2u * (acc & 0xffffu)) & 0xffffu));\n",
    "#else\n",
    "    oscar_u32 acc = 0u;\n",
    "#pragma unroll\n",
    "    for (int w = 0; w < 16; w++) acc |= ((a[w] - v2) & 0x80008000u) >> w;\n",
    "    return oscar__rsum(v <= 0x7f80u \? __popc(acc) : 0);\n",
    "#endif\n",
    "}\n",
    "// |x| of a row's BF16 pairs w, as oscar__fcnt takes them\n",
    "static __device__ __forceinline__ oscar_u32 oscar__fabs2(oscar_u32 w) {\n",
    "#if __CUDA_ARCH__ >= 900\n",
    "    return w & 0x7fff7fffu;\n",
    "#else\n",
    "    const oscar_u32 a = w & 0x7fff7fffu, nm = (((a + 0x007f007fu) & 0x80008000u) >> 15) * 0xffffu; // 0xffff in each NaN half (> 0x7f80)\n",
    "    return ((a | 0x80008000u) & ~nm) | (0x7fff7fffu & nm);\n",
    "#endif\n",
    "}\n",
    "\n",
    "// this lane's runs of a window ring row (BF16, rotated when it was written) as the pairs w\n",
    "static __device__ __forceinline__ void oscar__fring(const oscar_append_params &p, oscar_u32 (&w)[16], int slot, int pos, int head, int isv, int t) {\n",
    "    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;\n",
    "    const uint2 *rr = (const uint2 *)((const oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D) + t;\n",
    "#pragma unroll\n",
    "    for (int i = 0; i < 8; i++) {\n",
    "        const uint2 u = rr[FT * i];\n",
    "        w[2 * i] = u.x, w[2 * i + 1] = u.y;\n",
    "    }\n",
    "}\n",
    "// the INT2 codec of one row held by its FT lanes as 16 BF16 pairs w (values 4 FT i + 4 t + 2 h and\n",
    "// + 1 in w[2 i + h]); every lane of the warp takes part (shuffles); store: write the codes and scales\n",
    "template <int MM>\n",
    "static __device__ __forceinline__ void oscar__fcodec(const oscar_append_params &p, oscar_u32 (&w)[16], bool store, int page, int head, int isv, int pos, int t, int lane) {\n",
    "    // ---- clip: thr = the (D - idx)-th largest |x|, with multiplicity ----\n",
    "    const int idx = oscar__clip_idx(isv \? p.v_clip : p.k_clip);\n",
    "    const bool gain = (OSCAR_GAIN & (isv \? 2 : 1)) != 0;\n",
    "    oscar_u32 w0[OSCAR_GAIN \? 16 : 1]; // the unclipped values (gain encoder)\n",
    "    if (OSCAR_GAIN)\n",
    "#pragma unroll\n",
    "        for (int j = 0; j < 16; j++) w0[OSCAR_GAIN \? j : 0] = w[j];\n",
    "    if (idx >= 0) {\n",
    "        const int k = D - idx;\n",
    "        oscar_u32 a[16], m2 = 0u;\n",
    "#pragma unroll\n",
    "        for (int j = 0; j < 16; j++) m2 = __vmaxu2(m2, w[j] & 0x7fff7fffu), a[j] = oscar__fabs2(w[j]);\n",
    "        const oscar_u32 M = oscar__rmax(max(m2 & 0xffffu, m2 >> 16));\n",
    "        // the largest key with #{>= key} >= k: first bracket the 128 keys from M - 127 up to the\n",
    "        // maximum M (the top octave), else the 128 below them; in either, seven halvings with\n",
    "        // steps fixed at compile time (count(>= lo) >= k holds throughout). Rows below both (the\n",
    "        // warp takes the search over [0, M - 255) then) are rare.\n",
    "        int lo = M >= 127u \? (int)M - 127 : 0;\n",
    "        const bool below = oscar__fcnt<MM>(a, (oscar_u32)lo) < k;\n",
    "        bool far = false;\n",
    "        if (below) lo = max(lo - 128, 0);\n",
    "        if (__any_sync(0xffffffffu, below)) { // warp-uniform: every lane takes part in the count\n",
    "            const bool lo_below = oscar__fcnt<MM>(a, (oscar_u32)lo) < k; // (not under the && : the count shuffles)\n",
    "            far = below && lo_below;\n",
    "            if (__any_sync(0xffffffffu, far)) {\n",
    "                int l2 = 0, h2 = lo;\n",
    "                for (;;) {\n",
    "                    const bool open = far && h2 - l2 > 1;\n",
    "                    if (!__any_sync(0xffffffffu, open)) break;\n",
    "                    const int mid = open \? (l2 + h2) >> 1 : l2;\n",
    "                    const bool ge = oscar__fcnt<MM>(a, (oscar_u32)mid) >= k;\n",
    "                    if (open) {\n",
    "                        if (ge) l2 = mid;\n",
    "                        else h2 = mid;\n",
    "                    }\n",
    "                }\n",
    "                if (far) lo = l2;\n",
    "            }\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int h = 64; h >= 1; h >>= 1) {\n",
    "            const int mid = lo + h;\n",
    "            const bool ge = oscar__fcnt<MM>(a, (oscar_u32)mid) >= k; // every lane counts (shuffles)\n",
    "            if (ge && !far) lo = mid;\n",
    "        }\n",
    "        if (lo) {\n",
    "            const oscar_u32 T2 = (oscar_u32)lo * 0x10001u;\n",
    "#pragma unroll\n",
    "            for (int j = 0; j < 16; j++) w[j] = oscar__clamp2(w[j], T2);\n",
    "        } else { // clamp to [-0, +0]: positive values to +0, negative to -0, zeros keep their sign\n",
    "#pragma unroll\n",
    "            for (int j = 0; j < 16; j++) w[j] &= 0x80008000u;\n",
    "        }\n",
    "    }\n",
    "    // ---- per group: min / max, fp16 scale and min, the three code boundaries ----\n",
    "    oscar_u32 bnd[FNG][3], smw[FNG];\n",
    "    float gmn[FNG], gmx[FNG];\n",
    "    bool zero = false;\n",
    "#pragma unroll\n",
    "    for (int g = 0; g < FNG; g++) {\n",
    "        oscar_u32 mn2 = w[2 * g * FIPG], mx2 = mn2;\n",
    "#pragma unroll\n",
    "        for (int j = 2 * g * FIPG + 1; j < 2 * (g + 1) * FIPG; j++) mn2 = oscar__bmin2(mn2, w[j]), mx2 = oscar__bmax2(mx2, w[j]);\n",
    "        mn2 = oscar__bmin2(mn2, __byte_perm(mn2, 0u, 0x1032u));\n",
    "        mx2 = oscar__bmax2(mx2, __byte_perm(mx2, 0u, 0x1032u));\n",
    "#pragma unroll\n",
    "        for (int o = 1; o < FT; o <<= 1) {\n",
    "            mn2 = oscar__bmin2(mn2, __shfl_xor_sync(0xffffffffu, mn2, o));\n",
    "            mx2 = oscar__bmax2(mx2, __shfl_xor_sync(0xffffffffu, mx2, o));\n",
    "        }\n",
    "        gmn[g] = oscar__bh(mn2, 0), gmx[g] = oscar__bh(mx2, 0);\n",
    "        zero = zero || gmn[g] == 0.0f || gmx[g] == 0.0f;\n",
    "    }\n",
    "    if (__any_sync(0xffffffffu, zero)) { // a zero min or max: the sign of the group's first zero\n",
    "#pragma unroll\n",
    "        for (int g = 0; g < FNG; g++) {\n",
    "            oscar_u32 fm = 0xffffffffu; // (column << 1 | sign) of the first zero in the group\n",
    "#pragma unroll\n",
    "            for (int i = g * FIPG; i < (g + 1) * FIPG; i++)\n",
    "#pragma unroll\n",
    "                for (int e = 0; e < 4; e++) {\n",
    "                    const oscar_u32 b = (w[2 * i + (e >> 1)] >> (16 * (e & 1))) & 0xffffu;\n",
    "                    const oscar_u32 c = (oscar_u32)(4 * FT * i + 4 * t + e);\n",
    "                    if (!(b & 0x7fffu)) fm = min(fm, c << 1 | b >> 15);\n",
    "                }\n",
    "            fm = oscar__rmin(fm);\n",
    "            const float z = (fm & 1u) \? -0.0f : 0.0f;\n",
    "            if (gmn[g] == 0.0f) gmn[g] = z;\n",
    "            if (gmx[g] == 0.0f) gmx[g] = z;\n",
    "        }\n",
    "    }\n",
    "    oscar_u32 mine[(3 * FNG + FT - 1) / FT];\n",
    "    float gm[FNG], gs[FNG]; // the stored (fp16) min and scale as floats\n",
    "#pragma unroll\n",
    "    for (int g = 0; g < FNG; g++) {\n",
    "        const float scale = __fdiv_rn(__fsub_rn(gmx[g], gmn[g]), 3.0f);\n",
    "        const oscar_u16 s16 = oscar_f32_to_f16(scale), m16 = oscar_f32_to_f16(gmn[g]);\n",
    "        smw[g] = (oscar_u32)s16 | ((oscar_u32)m16 << 16);\n",
    "        gs[g] = oscar_f16_to_f32(s16), gm[g] = oscar_f16_to_f32(m16);\n",
    "    }\n",
    "    // boundary qi = 3 g + (q - 1) of the row is lane qi % FT's, round qi / FT: the lanes of a row\n",
    "    // search theirs at once (one inlined search per round, not one per boundary)\n",
    "#pragma unroll\n",
    "    for (int i = 0; i < (3 * FNG + FT - 1) / FT; i++) {\n",
    "        const int qi = t + FT * i;\n",
    "        float m = gm[0], s = gs[0];\n",
    "#pragma unroll\n",
    "        for (int g = 1; g < FNG; g++)\n",
    "            if (qi >= 3 * g) m = gm[g], s = gs[g];\n",
    "        mine[i] = qi < 3 * FNG \? oscar__bound(m, s, qi % 3 + 1) : 0u;\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int q = 0; q < 3 * FNG; q++) {\n",
    "        const oscar_u32 b = __shfl_sync(0xffffffffu, mine[q / FT], (lane & ~(FT - 1)) | (q % FT));\n",
    "        bnd[q / 3][q % 3] = b * 0x10001u;\n",
    "    }\n",
    "    // ---- codes: q = #{boundaries <= x}: bit 0 = m1 ^ m2 ^ m3, bit 1 = m2; bytes quarter-interleaved ----\n",
    "    oscar_u32 pb0[8], pb1[8];\n",
    "#pragma unroll\n",
    "    for (int i = 0; i < 8; i++) {\n",
    "        const int g = i / FIPG;\n",
    "        oscar_u32 b0[2], b1[2];\n",
    "#pragma unroll\n",
    "        for (int h = 0; h < 2; h++) {\n",
    "            const oscar_u32 m1 = oscar__bge2(w[2 * i + h], bnd[g][0]), m2 = oscar__bge2(w[2 * i + h], bnd[g][1]), m3 = oscar__bge2(w[2 * i + h], bnd[g][2]);\n",
    "            b0[h] = m1 ^ m2 ^ m3, b1[h] = m2;\n",
    "        }\n",
    "        pb0[i] = __byte_perm(b0[0], b0[1], 0x6420u); // byte e: 0xff where bit 0 of value e's code is set\n",
    "        pb1[i] = __byte_perm(b1[0], b1[1], 0x6420u);\n",
    "    }\n",
    "    if (OSCAR_GAIN && gain) {\n",
    "        // the row's columns in order: run i of lane t holds columns 4 FT i + 4 t + e (e < 4); each lane of\n",
    "        // the row sums every group (the run's values and code bits by shuffle from the row's lane t)\n",
    "        double xx = 0.0, xh = 0.0;\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++)\n",
    "#pragma unroll\n",
    "            for (int tt = 0; tt < FT; tt++) {\n",
    "                const int src = (lane & ~(FT - 1)) | tt;\n",
    "                const oscar_u32 v01 = __shfl_sync(0xffffffffu, w0[OSCAR_GAIN \? 2 * i : 0], src), v23 = __shfl_sync(0xffffffffu, w0[OSCAR_GAIN \? 2 * i + 1 : 0], src);\n",
    "                const oscar_u32 cb = __shfl_sync(0xffffffffu, (pb0[i] & 0x01010101u) | (pb1[i] & 0x02020202u), src); // byte e: code of value e\n",
    "                const int c0 = 4 * FT * i + 4 * tt, g = c0 / GS;\n",
    "#pragma unroll\n",
    "                for (int e = 0; e < 4; e++) {\n",
    "                    const float v = oscar__bh(e < 2 \? v01 : v23, e & 1);\n",
    "                    oscar__gain_acc(xx, xh, v, (int)((cb >> (8 * e)) & 3u), gs[g], gm[g]);\n",
    "                }\n",
    "                if ((c0 + 4) % GS == 0) {\n",
    "                    smw[g] = oscar__gain_sm(xx, xh, gs[g], gm[g], smw[g]);\n",
    "                    xx = 0.0, xh = 0.0;\n",
    "                }\n",
    "            }\n",
    "    }\n",
    "    if (store) {\n",
    "        oscar_u32 *sm;\n",
    "        oscar_u32 *codes = (oscar_u32 *)oscar__page_row(p, page, head, isv, pos, &sm);\n",
    "#pragma unroll\n",
    "        for (int i0 = 0; i0 < 2; i0++) {\n",
    "            oscar_u32 o = 0u;\n",
    "#pragma unroll\n",
    "            for (int j = 0; j < 4; j++) o |= (pb0[i0 + 2 * j] & (0x01010101u << (2 * j))) | (pb1[i0 + 2 * j] & (0x02020202u << (2 * j)));\n",
    "            codes[FT * i0 + t] = o;\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int g = 0; g < FNG; g++)\n",
    "            if (g % FT == t) sm[g] = smw[g];\n",
    "    }\n",
    "}\n",
    "#endif\n",
    "\n",
    "// the word of ys (BF16 pairs, [TR][D / 2]) holding columns col, col + 1 (col even) of a row: 4-column\n",
    "// units (8 bytes) XOR-swizzled by row & 7, so that the MMA layout's stores and the codec's row\n",
    "// reads spread over the banks\n",
    "static __device__ __forceinline__ int oscar__ysw(int row, int col) { return row * (D / 2) + ((((col >> 2) ^ (row & 7))) << 1) + ((col >> 1) & 1); }\n",
    "// cfg.center 1 modules: the mean of (layer, head, K|V) the input rows are stored less (0 in other modules)\n",
    "static __device__ __forceinline__ const float *oscar__mean_row(const oscar_append_params &p, int isv, int head) {\n",
    "    return OSCAR_CENTER \? (const float *)(isv \? p.vmean : p.kmean) + ((size_t)p.layer * p.Hkv + head) * D : (const float *)0;\n",
    "}\n",
    "#if OSCAR_INT2\n",
    "static __device__ __forceinline__ float4 oscar__ld4(const float *a, bool aligned) {\n",
    "    return aligned \? *(const float4 *)a : make_float4(a[0], a[1], a[2], a[3]);\n",
    "}\n",
    "// input elements o .. o + 3 of a row, less the row mean mu in modules built for cfg.center 1 (one fp32\n",
    "// subtract each, as the CPU cache; mu: a 16-byte aligned [D] of the means buffer)\n",
    "static __device__ __forceinline__ float4 oscar__ld4c(const float *x, const float *mu, int o, bool aligned) {\n",
    "    float4 a = oscar__ld4(x + o, aligned);\n",
    "    if (OSCAR_CENTER) {\n",
    "        const float4 m = __ldg((const float4 *)(mu + o));\n",
    "        a = make_float4(__fsub_rn(a.x, m.x), __fsub_rn(a.y, m.y), __fsub_rn(a.z, m.z), __fsub_rn(a.w, m.w));\n",
    "    }\n",
    "    return a;\n",
    "}\n",
    "// max(a, b), NaN if either is NaN (fmaxf drops a NaN)\n",
    "static __device__ __forceinline__ float oscar__fmaxn(float a, float b) {\n",
    "    float d;\n",
    "    asm(\"max.NaN.f32 %0, %1, %2;\" : \"=f\"(d) : \"f\"(a), \"f\"(b));\n",
    "    return d;\n",
    "}\n",
    "static __device__ __forceinline__ float oscar__pow2(int e) { return __int_as_float((e + 127) << 23); } // -126 <= e <= 127\n",
    "#if !OSCAR_APPEND_WGMMA\n",
    "// c += a . b for one m16n8k32 tile of int8 (exact int32 sums; sm_80+, as the rest of this file)\n",
    "static __device__ __forceinline__ void oscar__imma(int (&c)[4], const oscar_u32 (&a)[4], oscar_u32 b0, oscar_u32 b1) {\n",
    "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n",
    "                 : \"+r\"(c[0]), \"+r\"(c[1]), \"+r\"(c[2]), \"+r\"(c[3])\n",
    "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b0), \"r\"(b1));\n",
    "}\n",
    "#endif\n",
    "#if OSCAR_APPEND_WGMMA\n",
    "// the shared-memory descriptor of a K-major int8 B operand without swizzle: 8-row x 16-byte core\n",
    "// matrices, 128 bytes apart along k (LBO) and 256 bytes apart along n (SBO)\n",
    "static __device__ __forceinline__ unsigned long long oscar__wdesc(const void *smem) {\n",
    "    const oscar_u32 a = (oscar_u32)__cvta_generic_to_shared(smem);\n",
    "    return (unsigned long long)((a & 0x3ffffu) >> 4) | (128ull >> 4 << 16) | (256ull >> 4 << 32);\n",
    "}\n",
    "// c (+)= a . B for the warpgroup's 64 rows and 32 columns (m64n32k32, s8 in, s32 accumulators in\n",
    "// the mma.m16n8k32 layout of four n-tiles per warp); acc 0 overwrites c\n",
    "template <int CN>\n",
    "static __device__ __forceinline__ void oscar__wgmma(int (&c)[CN][4], const oscar_u32 (&a)[4], unsigned long long bd, int acc) {\n",
    "    static_assert(CN == 4, \"the warpgroup product takes four n-tiles per chunk\");\n",
    "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %21, 0;\\n\"\n",
    "                 \"wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p;\\n}\"\n",
    "                 : \"+r\"(c[0][0]), \"+r\"(c[0][1]), \"+r\"(c[0][2]), \"+r\"(c[0][3]), \"+r\"(c[1][0]), \"+r\"(c[1][1]), \"+r\"(c[1][2]), \"+r\"(c[1][3]),\n",
    "                   \"+r\"(c[2][0]), \"+r\"(c[2][1]), \"+r\"(c[2][2]), \"+r\"(c[2][3]), \"+r\"(c[3][0]), \"+r\"(c[3][1]), \"+r\"(c[3][2]), \"+r\"(c[3][3])\n",
    "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(bd), \"r\"(acc));\n",
    "}\n",
    "#endif\n",
    "// f(a) over the quad's float4s of a flush tile's input row xr (none for a row past the launch's last\n",
    "// job), lane t of the quad, in the order pass 2 reads them\n",
    "template <bool A16, class F>\n",
    "static __device__ __forceinline__ void oscar__row_fold(const float *xr, const float *mu, int t, F f) {\n",
    "    if (xr)\n",
    "#pragma unroll\n",
    "        for (int s = 0; s < KS; s++)\n",
    "#pragma unroll\n",
    "            for (int u = 0; u < 2; u++) f(oscar__ld4c(xr, mu, 32 * s + 16 * u + 4 * t, A16));\n",
    "}\n",
    "// Y = X . R for the tile's input rows, as the CPU's oscar_rotate_row_q14 computes it, rounded to\n",
    "// BF16 into ys (oscar__ysw: [TR][D / 2] words, 4-column units swizzled by row); per row the sum of\n",
    "// squares and a non-finite flag into s_ss / s_bad. Warp w takes rows 16 (w / wpt) .. +16 and\n",
    "// n-tiles (w % wpt) nnt .. +nnt (wpt = WPT but in oscar_append_s's small tiles, nnt = D / 8 / wpt); lane (g, t) holds rows g and g + 8 (the mma layouts: A elements\n",
    "// (row, 4 t + i) and (row, 16 + 4 t + i) per k step; accumulators (row, 8 n + 2 t + {0, 1})). Rows\n",
    "// past the launch or without input (window rows; s_job: the tile's jobs) are zeros. Rf: the B fragments in global memory,\n",
    "// [KS][D / 8][32 lanes] uint4 {Rh k 4t.., Rh k 16+4t.., Rl k 4t.., Rl k 16+4t..} of column 8 n + g\n",
    "// (built by the host from oscar_rotation_q14), read through L1: the blocks of one (head, K|V) are\n",
    "// adjacent in the grid and share them there (5% faster at d 128 than a copy to shared memory per\n",
    "// tile, kernels/NOTES.md w21).\n",
    "template <bool A16, int CN, bool HS, bool SW> // 16-byte aligned input rows (else one float at a time); CN n-tiles per accumulator chunk;\n",
    "                                              // HS: the B pointer and Y store base hoisted out of the loop (OSCAR_APPEND_HOIST);\n",
    "                                              // SW: a tile whose jobs fill only mt of its 16-row MMA tiles (block-uniform) splits\n",
    "                                              // each of those MMA tiles' columns over up to WPS warps (oscar_append_s)\n",
    "static __device__ __forceinline__ void oscar__rotate_tile_t(const oscar_append_params &p, const float *X, const float *mu, const uint4 *Rf, int head,\n",
    "                                                            oscar_u32 *ys, float *s_ss, int *s_bad, const int4 *s_job, oscar_u8 *sb, int mt) {\n",
    "    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;\n",
    "    // warps per 16-row MMA tile and its n-tiles per warp: the build's WPT, or where the jobs fill 1 or 2 MMA tiles\n",
    "    // (one-token appends of 1-32 sequences, a chunk's last tile) 4 / mt warps each, at most WPS: the chain of a\n",
    "    // warp's product 4 / mt times shorter at d 128\n",
    "    int wpt = WPT;\n",
    "    if (SW && 4 / mt > WPT) wpt = 4 / mt < WPS \? 4 / mt : WPS;\n",
    "    const int nnt = D / 8 / wpt;\n",
    "#if OSCAR_APPEND_WGMMA\n",
    "    // Rh and Rl into shared memory as the host laid them out for wgmma (oscar__kv_upload_frag):\n",
    "    // [Rh | Rl][k step][n / 8][k half][8 rows n][16 bytes k], in flight while the rows load\n",
    "    for (int i = threadIdx.x; i < 2 * D * D / 16; i += AW * 32) oscar_cp_async16(sb + 16 * i, Rf + i);\n",
    "    oscar_cp_commit();\n",
    "#else\n",
    "    (void)sb;\n",
    "#endif\n",
    "    const int r0 = 16 * (warp / wpt) + g, nt0 = (warp % wpt) * nnt;\n",
    "    const float *xr[2];\n",
    "    float up[2], dn[2], mxs[2];\n",
    "#pragma unroll\n",
    "    for (int h = 0; h < 2; h++) {\n",
    "        const int src = s_job[r0 + 8 * h].x; // -1 past the launch's last job\n",
    "        xr[h] = src >= 0 \? X + ((size_t)src * p.Hkv + head) * D : 0;\n",
    "        // pass 1: max |x| over the row (the quad's four lanes), NaN kept (max.NaN): the row is\n",
    "        // non-finite exactly when mx is inf or NaN (one check per row, not per element)\n",
    "        float mx = 0.0f;\n",
    "        oscar__row_fold<A16>(xr[h], mu, t, [&](const float4 &a) {\n",
    "            mx = oscar__fmaxn(mx, oscar__fmaxn(oscar__fmaxn(fabsf(a.x), fabsf(a.y)), oscar__fmaxn(fabsf(a.z), fabsf(a.w))));\n",
    "        });\n",
    "#pragma unroll\n",
    "        for (int o = 1; o < 4; o <<= 1) mx = oscar__fmaxn(mx, __shfl_xor_sync(0xffffffffu, mx, o));\n",
    "        mxs[h] = mx;\n",
    "        // the CPU's scale: e = max(E - 126, -98), E the biased exponent of max |x| (NaN / inf\n",
    "        // rows give e = 129: finite scales, and such rows are discarded)\n",
    "        const int e = max((int)((__float_as_uint(mx) >> 23) & 0xffu) - 126, -98);\n",
    "        up[h] = oscar__pow2(14 - e);\n",
    "        dn[h] = oscar__pow2(e - 28);\n",
    "    }\n",
    "    // the sum of squares, for the range check (norm > 32768) only: a finite row with D mx^2 below\n",
    "    // 0.9 * 2^30 is inside it whatever the summation order, so ss is summed only where a row of the\n",
    "    // warp could be beyond (rare: the whole warp sums, for the shuffles; the loads hit L1)\n",
    "    float ssv[2] = {0.0f, 0.0f};\n",
    "    if (__any_sync(0xffffffffu, (mxs[0] <= 3.4028235e38f && mxs[0] * mxs[0] * (float)D >= 0.9f * 1073741824.0f) ||\n",
    "                                    (mxs[1] <= 3.4028235e38f && mxs[1] * mxs[1] * (float)D >= 0.9f * 1073741824.0f))) {\n",
    "#pragma unroll\n",
    "        for (int h = 0; h < 2; h++) {\n",
    "            float ss = 0.0f;\n",
    "            oscar__row_fold<A16>(xr[h], mu, t, [&](const float4 &a) { ss += a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w; });\n",
    "#pragma unroll\n",
    "            for (int o = 1; o < 4; o <<= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);\n",
    "            ssv[h] = ss;\n",
    "        }\n",
    "    }\n",
    "    if (t == 0 && warp % wpt == 0)\n",
    "#pragma unroll\n",
    "        for (int h = 0; h < 2; h++) {\n",
    "            s_ss[r0 + 8 * h] = ssv[h];\n",
    "            s_bad[r0 + 8 * h] = !(mxs[h] <= 3.4028235e38f);\n",
    "        }\n",
    "    // pass 2: A fragments, X = rint(x * 2^(14 - e)) split into 256 Xh + Xl (the loads hit L1).\n",
    "    // |X| <= 2^14, and x * 2^(14 - e) is exact (or below 2^-126, where X = 0 either way), so one\n",
    "    // FFMA with 1.5 * 2^23 + 128 rounds like rint and leaves Y = X + 128 in the low 23 bits:\n",
    "    // Xh = Y >> 8 is byte 1 (two's complement, |Xh| <= 64) and Xl = (Y & 255) - 128 is byte 0 ^ 0x80\n",
    "    oscar_u32 ah[KS][4], al[KS][4];\n",
    "#pragma unroll\n",
    "    for (int s = 0; s < KS; s++)\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 4; i++) {\n",
    "            const int h = i & 1, u = i >> 1;\n",
    "            float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n",
    "            if (xr[h]) a = oscar__ld4c(xr[h], mu, 32 * s + 16 * u + 4 * t, A16);\n",
    "            const float M = 12583040.0f; // 1.5 * 2^23 + 128\n",
    "            const oscar_u32 b0 = __float_as_uint(__fmaf_rn(a.x, up[h], M)), b1 = __float_as_uint(__fmaf_rn(a.y, up[h], M));\n",
    "            const oscar_u32 b2 = __float_as_uint(__fmaf_rn(a.z, up[h], M)), b3 = __float_as_uint(__fmaf_rn(a.w, up[h], M));\n",
    "            const oscar_u32 t01 = __byte_perm(b0, b1, 0x5410u), t23 = __byte_perm(b2, b3, 0x5410u); // bytes 0, 1 of each\n",
    "            ah[s][i] = __byte_perm(t01, t23, 0x7531u);\n",
    "            al[s][i] = __byte_perm(t01, t23, 0x6420u) ^ 0x80808080u;\n",
    "        }\n",
    "    // P = 2^16 Xh.Rh + 2^8 (Xh.Rl + Xl.Rh) + Xl.Rl, exact; y = fp32(P) * 2^(e - 28)\n",
    "    // (HS: this lane's B fragments of n-tile nt0, and its Y word of row r0 for n-tile 0 before the swizzle:\n",
    "    // row & 7 is g, so oscar__ysw(r0 + 8 h, 8 n + 2 t) = yb + 8 h D / 2 + 4 (n ^ g / 2))\n",
    "    const uint4 *const Rb = Rf + (size_t)nt0 * 32 + lane;\n",
    "    oscar_u32 *const yb = ys + r0 * (D / 2) + 2 * ((t >> 1) ^ (g & 1)) + (t & 1);\n",
    "#if OSCAR_APPEND_WGMMA\n",
    "    oscar_cp_wait0();\n",
    "    asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\"); // the copies, seen by the tensor cores\n",
    "    __syncthreads();\n",
    "#endif\n",
    "#pragma unroll 1\n",
    "    for (int c0 = 0; c0 < nnt; c0 += CN) {\n",
    "        int a1[CN][4], a2[CN][4], a3[CN][4], a4[OSCAR_APPEND_A4 \? CN : 1][4];\n",
    "#pragma unroll\n",
    "        for (int j = 0; j < CN; j++)\n",
    "#pragma unroll\n",
    "            for (int c = 0; c < 4; c++) a1[j][c] = a2[j][c] = a3[j][c] = a4[OSCAR_APPEND_A4 \? j : 0][c] = 0;\n",
    "#if OSCAR_APPEND_WGMMA\n",
    "        if (OSCAR_APPEND_PROF != 1) {\n",
    "            asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n",
    "#pragma unroll\n",
    "            for (int s = 0; s < KS; s++) {\n",
    "                const unsigned long long bh = oscar__wdesc(sb + (s * (D / 8) + c0) * 256), bl = oscar__wdesc(sb + ((KS + s) * (D / 8) + c0) * 256);\n",
    "                oscar__wgmma(a1, ah[s], bh, s);\n",
    "                oscar__wgmma(a2, ah[s], bl, s);\n",
    "                oscar__wgmma(a2, al[s], bh, 1);\n",
    "                oscar__wgmma(a3, al[s], bl, s);\n",
    "            }\n",
    "            asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");\n",
    "            asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n",
    "        }\n",
    "#else\n",
    "#pragma unroll\n",
    "        for (int s = 0; s < (OSCAR_APPEND_PROF == 1 \? 0 : KS); s++)\n",
    "#pragma unroll\n",
    "            for (int j = 0; j < CN; j++) {\n",
    "                const uint4 b = HS \? __ldg(Rb + ((size_t)(OSCAR_APPEND_PROF == 3 \? 0 : s) * (D / 8) + c0 + j) * 32)\n",
    "                                   : __ldg(Rf + ((size_t)(OSCAR_APPEND_PROF == 3 \? 0 : s) * (D / 8) + nt0 + c0 + j) * 32 + lane);\n",
    "#if OSCAR_APPEND_PROF == 6\n",
    "                a1[j][0] ^= b.x, a1[j][1] ^= b.y, a2[j][2] ^= b.z, a3[j][3] ^= b.w ^ ah[s][j & 3] ^ al[s][j & 3];\n",
    "                continue;\n",
    "#endif\n",
    "                oscar__imma(a1[j], ah[s], b.x, b.y);\n",
    "                oscar__imma(a2[j], ah[s], b.z, b.w);\n",
    "                oscar__imma(OSCAR_APPEND_A4 \? a4[OSCAR_APPEND_A4 \? j : 0] : a2[j], al[s], b.x, b.y);\n",
    "#if !OSCAR_APPEND_Q3\n",
    "                oscar__imma(a3[j], al[s], b.z, b.w);\n",
    "#endif\n",
    "            }\n",
    "#endif\n",
    "#pragma unroll\n",
    "        for (int j = 0; j < CN; j++)\n",
    "#pragma unroll\n",
    "            for (int h = 0; h < 2; h++) {\n",
    "                float y[2];\n",
    "#pragma unroll\n",
    "                for (int q = 0; q < 2; q++) {\n",
    "                    const int c = 2 * h + q;\n",
    "#if OSCAR_APPEND_PROF == 1\n",
    "                    a1[j][c] = (int)(ah[j % KS][c] ^ al[(j + 1) % KS][c]) >> 12;\n",
    "#endif\n",
    "                    const int a24 = OSCAR_APPEND_A4 \? a2[j][c] + a4[OSCAR_APPEND_A4 \? j : 0][c] : a2[j][c]; // |a2 + a4| < 2^21\n",
    "#if OSCAR_APPEND_PROF == 4\n",
    "                    y[q] = __int_as_float(a1[j][c] ^ a24 ^ a3[j][c]);\n",
    "#elif OSCAR_APPEND_Q3\n",
    "                    y[q] = __fmul_rn(__int2float_rn((a1[j][c] << 8) + a24), dn[h] * 256.0f);\n",
    "#else\n",
    "                    const long long P = ((long long)a1[j][c] << 16) + (long long)((a24 << 8) + a3[j][c]);\n",
    "                    y[q] = __fmul_rn(__ll2float_rn(P), dn[h]);\n",
    "#endif\n",
    "                }\n",
    "                const int row = r0 + 8 * h, col = 8 * (nt0 + c0 + j) + 2 * t;\n",
    "                if (HS) yb[8 * h * (D / 2) + 4 * ((nt0 + c0 + j) ^ (g >> 1))] = oscar__bf2(y[0], y[1]);\n",
    "                else ys[oscar__ysw(row, col)] = oscar__bf2(y[0], y[1]);\n",
    "            }\n",
    "    }\n",
    "}\n",
    "template <int CN, bool HS, bool SW>\n",
    "static __device__ __forceinline__ void oscar__rotate_tile(const oscar_append_params &p, const float *X, const float *mu, const uint4 *Rf, int head,\n",
    "                                                          oscar_u32 *ys, float *s_ss, int *s_bad, const int4 *s_job, oscar_u8 *sb, int mt) {\n",
    "    if (((p.k | p.v) & 15u) == 0u) oscar__rotate_tile_t<true, CN, HS, SW>(p, X, mu, Rf, head, ys, s_ss, s_bad, s_job, sb, mt);\n",
    "    else oscar__rotate_tile_t<false, CN, HS, SW>(p, X, mu, Rf, head, ys, s_ss, s_bad, s_job, sb, mt);\n",
    "}\n",
    "#endif\n",
    "\n",
    "#if OSCAR__FCODEC\n",
    "// the codec of a flush tile, FT lanes per row (oscar__fcodec): input rows from ys (rotated; s_ss /\n",
    "// s_bad their checks), window rows leaving the ring from it\n",
    "static __device__ __forceinline__ void oscar__flush_tile(const oscar_append_params &p, long long job0, int head, int isv, const oscar_u32 *ys, const float *s_ss,\n",
    "                                                         const int *s_bad, const int4 *s_job) {\n",
    "    const int tid = threadIdx.x, lane = tid & 31, t = tid % FT;\n",
    "#pragma unroll 1\n",
    "    for (int r = tid / FT; r < TR; r += FR) {\n",
    "        const long long job = job0 + r;\n",
    "        const bool valid = job < p.n_jobs;\n",
    "        const int4 jb = s_job[r];\n",
    "        const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;\n",
    "        oscar_u32 w[16];\n",
    "#pragma unroll\n",
    "        for (int j = 0; j < 16; j++) w[j] = 0u;\n",
    "        if (valid && src >= 0) {\n",
    "            const float ss = s_ss[r];\n",
    "            const int bad = s_bad[r];\n",
    "            unsigned int ebits = bad \? OSCAR_ERR_BIT_NONFINITE : 0u;\n",
    "            if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;\n",
    "            if (ebits) { // stored as zeros; the host learns of it through oscar_cuda_kv_errors()\n",
    "                if (t == 0) atomicOr((unsigned int *)p.err, ebits);\n",
    "            } else {\n",
    "                // oscar__ysw(r, 4 FT i + 4 t) = r D / 2 + 2 (t ^ x % FT) + 2 FT (i ^ x / FT), x = r & 7: one\n",
    "                // base per class i % (8 / FT), the rest immediate offsets\n",
    "                const int x = r & 7, base = r * (D / 2) + 2 * (t ^ (x % FT));\n",
    "                int cb[8 / FT];\n",
    "#pragma unroll\n",
    "                for (int c = 0; c < 8 / FT; c++) cb[c] = base + 2 * FT * ((c ^ (x / FT)) - c);\n",
    "#pragma unroll\n",
    "                for (int i = 0; i < 8; i++) {\n",
    "                    const uint2 a = *(const uint2 *)&ys[cb[i % (8 / FT)] + 2 * FT * i];\n",
    "                    w[2 * i] = a.x, w[2 * i + 1] = a.y;\n",
    "                }\n",
    "            }\n",
    "        } else if (valid) { // a window row leaving the ring: rotated when it was written\n",
    "            oscar__fring(p, w, slot, pos, head, isv, t);\n",
    "        }\n",
    "        oscar__fcodec<OSCAR_FCNT_MMA != 0>(p, w, valid, page, head, isv, pos, t, lane);\n",
    "    }\n",
    "}\n",
    "#endif\n",
    "\n",
    "#if OSCAR_APPEND_MINB > 0\n",
    "#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32, OSCAR_APPEND_MINB)\n",
    "#else\n",
    "#define OSCAR_APPEND_BOUNDS __launch_bounds__(AW * 32)\n",
    "#endif\n",
    "// KW 0: oscar_append (ys: Y [TR][D] in BF16, the rotated rows of a tile with input rows (oscar__ysw);\n",
    "// rs: the warps' code bytes); KW 1: oscar_append_wht, H rotations only (rows transformed per warp, no\n",
    "// tile: xs, s_ss, s_bad unused, rs holds just the code bytes)\n",
    "template <int KW, int CN, bool HS = false, bool SW = false>\n",
    "static __device__ __forceinline__ void oscar__append_impl(const oscar_append_params &p, oscar_u32 *ys, float *rs, float *s_ss, int *s_bad, int4 *s_job, oscar_u8 *sb) {\n",
    "    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;\n",
    "    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;\n",
    "    const int trb = SW && p.tr \? p.tr : TR; // the block's jobs (oscar_append_s: p.tr, 16 or a whole tile)\n",
    "    const long long job0 = (long long)blockIdx.x * trb;\n",
    "    const float *X = (const float *)(isv \? p.v : p.k);\n",
    "    const float *MU = oscar__mean_row(p, isv, head); // subtracted from the input rows before anything else\n",
    "    // launched to start while the previous kernel runs (oscar_cuda_kv.append_pdl): nothing it wrote (input rows,\n",
    "    // block tables, ring rows) is read or written before the wait; then the next kernel may start. p.wlate (a\n",
    "    // write launch behind its call's flush launch, which reads no ring row, so nothing this launch writes is read\n",
    "    // by the flush): it takes the epoch that the flush's block (0, 0) published after its own wait, by a load with\n",
    "    // acquire (the input rows' producer is done and its rows visible), and waits for the flush at its end\n",
    "    // (oscar__append_tiled), so it still completes after it\n",
    "    if (!p.wlate) oscar_pdl_wait();\n",
    "    else oscar__epoch_take(p);\n",
    "    oscar__epoch_put(p);\n",
    "    oscar_pdl_launch();\n",
    "    oscar__bt_inline(p);\n",
    "#if OSCAR_INT2\n",
    "    // the B fragments of the layer's (head's) fixed-point rotation, D * D * 2 bytes (H caches: the\n",
    "    // fp32 matrices, only tested for presence)\n",
    "    const oscar_u8 *R = (const oscar_u8 *)(isv \? p.vrot : p.krot);\n",
    "    if (R) R += ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 \? head : 0)) * D * D * 2;\n",
    "#endif\n",
    "    bool tiled = false;\n",
    "#if OSCAR_INT2\n",
    "    if (!KW && R && !p.wht) { // (H rotations: each warp transforms its rows in row_in, no tile)\n",
    "        // ---- the tile's jobs, looked up once into s_job (oscar__fjob); does the tile hold input\n",
    "        // rows (else it only moves window rows, rotated before) ----\n",
    "        bool any = false;\n",
    "        if (tid < TR) { // (past the block's jobs: none, for the warps that oscar__rotate_tile gives the tile's other MMA tiles)\n",
    "            const int4 jb = tid < trb \? oscar__fjob(p, job0 + tid) : make_int4(-1, 0, 0, 0);\n",
    "            s_job[tid] = jb;\n",
    "            any = jb.x >= 0;\n",
    "        }\n",
    "        tiled = __syncthreads_or(any) != 0; // block-uniform; s_job visible to all\n",
    "        if (tiled) {\n",
    "            // the MMA tiles that hold the tile's jobs (the jobs past the launch's last are none)\n",
    "            const int mt = p.n_jobs - job0 >= trb \? trb / 16 : (int)(p.n_jobs - job0 + 15) / 16;\n",
    "            oscar__rotate_tile<CN, HS, SW>(p, X, MU, (const uint4 *)R, head, ys, s_ss, s_bad, s_job, sb, mt);\n",
    "            __syncthreads();\n",
    "        }\n",
    "#if OSCAR_APPEND_PROF == 2\n",
    "        if (tiled && s_job[0].w >= 0) {\n",
    "            if (ys[threadIdx.x * 3] == 0x12345u) atomicOr((unsigned int *)p.err, 4u);\n",
    "            return;\n",
    "        }\n",
    "#endif\n",
    "    }\n",
    "#endif\n",
    "#if OSCAR__FCODEC && OSCAR_INT2\n",
    "    // a flush tile (the launch's rows all go to pages; input rows rotated into ys, or, when the\n",
    "    // tile has none, only window rows leaving the ring): the codec with FT lanes per row\n",
    "    // (oscar__fcodec) instead of a warp per row; the same bytes\n",
    "    if (!KW && R && !p.wht && s_job[0].w >= 0) {\n",
    "        oscar__flush_tile(p, job0, head, isv, ys, s_ss, s_bad, s_job);\n",
    "        return;\n",
    "    }\n",
    "#endif\n",
    "    oscar_u8 *cs = (oscar_u8 *)rs + warp * OSCAR_APPEND_NR * D;\n",
    "    // row r of the tile -> lane values (rotated, BF16-rounded); false past the last job\n",
    "    auto row_in = [&](int r, float(&x)[NC], int &slot, int &pos, int &page, oscar_u16 *&ringrow) -> bool {\n",
    "        const long long job = job0 + r;\n",
    "        if (job >= p.n_jobs) return false;\n",
    "        const int4 jb = oscar__job(p, job);\n",
    "        const int src = jb.x;\n",
    "        slot = jb.y, pos = jb.z, page = jb.w;\n",
    "        const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;\n",
    "        ringrow = 0;\n",
    "        if (pos >= p.S0)\n",
    "            ringrow = (oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D;\n",
    "        if (src >= 0) {\n",
    "            int bad = 0;\n",
    "            float ss = 0.0f;\n",
    "            if (tiled) {\n",
    "                ss = s_ss[r];\n",
    "                bad = s_bad[r];\n",
    "#pragma unroll\n",
    "                for (int jj = 0; jj < NC; jj++) {\n",
    "                    const int c = lane + 32 * jj;\n",
    "                    x[jj] = oscar__bh(ys[oscar__ysw(r, c & ~1)], c & 1);\n",
    "                }\n",
    "            } else {\n",
    "                const float *row = X + ((size_t)src * p.Hkv + head) * D;\n",
    "#pragma unroll\n",
    "                for (int jj = 0; jj < NC; jj++) {\n",
    "                    const float v = OSCAR_CENTER \? __fsub_rn(row[lane + 32 * jj], MU[lane + 32 * jj]) : row[lane + 32 * jj];\n",
    "                    x[jj] = v;\n",
    "                    if (!isfinite(v)) bad = 1;\n",
    "                    ss += v * v;\n",
    "                }\n",
    "                bad = __any_sync(0xffffffffu, bad);\n",
    "#pragma unroll\n",
    "                for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);\n",
    "            }\n",
    "            unsigned int ebits = bad \? OSCAR_ERR_BIT_NONFINITE : 0u;\n",
    "#if OSCAR_INT2\n",
    "            if (!bad && ss > 32768.0f * 32768.0f) ebits |= OSCAR_ERR_BIT_RANGE;\n",
    "            if (R && p.wht && !tiled && !ebits) oscar_wht_row<D>(x, lane);\n",
    "#endif\n",
    "            if (ebits) {\n",
    "                // the row is stored as zeros; the host learns of it through oscar_cuda_kv_errors()\n",
    "#pragma unroll\n",
    "                for (int jj = 0; jj < NC; jj++) x[jj] = 0.0f;\n",
    "                if (lane == 0) atomicOr((unsigned int *)p.err, ebits);\n",
    "            }\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) x[jj] = oscar_bf16_to_f32(oscar_f32_to_bf16(x[jj]));\n",
    "        } else {\n",
    "#pragma unroll\n",
    "            for (int jj = 0; jj < NC; jj++) x[jj] = oscar_bf16_to_f32(ringrow[lane + 32 * jj]);\n",
    "        }\n",
    "        return true;\n",
    "    };\n",
    "    for (int r0 = warp * OSCAR_APPEND_NR; r0 < trb; r0 += AW * OSCAR_APPEND_NR) {\n",
    "        if (job0 + r0 >= p.n_jobs) break; // warp-uniform; no block barriers below\n",
    "        float x[OSCAR_APPEND_NR][NC];\n",
    "        int slot[OSCAR_APPEND_NR], pos[OSCAR_APPEND_NR], page[OSCAR_APPEND_NR];\n",
    "        oscar_u16 *ringrow[OSCAR_APPEND_NR];\n",
    "        bool valid[OSCAR_APPEND_NR], all = true;\n",
    "#pragma unroll\n",
    "        for (int rr = 0; rr < OSCAR_APPEND_NR; rr++) {\n",
    "            valid[rr] = row_in(r0 + rr, x[rr], slot[rr], pos[rr], page[rr], ringrow[rr]);\n",
    "            all = all && valid[rr] && page[rr] >= 0;\n",
    "        }\n",
    "#if OSCAR_INT2 && OSCAR_APPEND_NR > 1\n",
    "        if (all) { // rows to pages: NR independent chains\n",
    "            oscar__codec<OSCAR_APPEND_NR>(p, x, isv, head, pos, page, cs, lane);\n",
    "            continue;\n",
    "        }\n",
    "#endif\n",
    "#pragma unroll\n",
    "        for (int rr = 0; rr < OSCAR_APPEND_NR; rr++)\n",
    "            if (valid[rr]) oscar__row_out(p, x[rr], isv, head, slot[rr], pos[rr], page[rr], ringrow[rr], cs, lane);\n",
    "    }\n",
    "}\n",
    "\n",
    "#ifndef OSCAR_APPEND_BREC\n",
    "#define OSCAR_APPEND_BREC 0 // timing only: the tiled append kernels record each block (start, length, SM, kernel) in oscar_abrec\n",
    "#endif\n",
    "#if OSCAR_APPEND_BREC\n",
    "#define OSCAR__ABREC_CAP 131072\n",
    "__device__ unsigned long long oscar_abrec[2 * OSCAR__ABREC_CAP]; // [2 i]: start ns (globaltimer); [2 i + 1]: ns | SM << 40 | kernel << 56\n",
    "__device__ unsigned oscar_abrec_n;                                // records taken (blocks past the capacity are not recorded)\n",
    "static __device__ __forceinline__ unsigned long long oscar__gtime() {\n",
    "    unsigned long long t;\n",
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n",
    "    return t;\n",
    "}\n",
    "static __device__ __forceinline__ void oscar__brec_end(unsigned long long t0, int kid) {\n",
    "    if (threadIdx.x == 0) {\n",
    "        const unsigned i = atomicAdd(&oscar_abrec_n, 1u);\n",
    "        unsigned sm;\n",
    "        asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(sm));\n",
    "        if (i < OSCAR__ABREC_CAP) {\n",
    "            oscar_abrec[2 * i] = t0;\n",
    "            oscar_abrec[2 * i + 1] = (oscar__gtime() - t0) | (unsigned long long)sm << 40 | (unsigned long long)kid << 56;\n",
    "        }\n",
    "    }\n",
    "}\n",
    "#define OSCAR__BREC_BEGIN const unsigned long long brec_t0 = oscar__gtime();\n",
    "#define OSCAR__BREC_END(kid) oscar__brec_end(brec_t0, kid);\n",
    "#define OSCAR__BREC_MARK(kid) oscar__brec_end(oscar__gtime(), kid); // a point in time: length 0\n",
    "#else\n",
    "#define OSCAR__BREC_BEGIN\n",
    "#define OSCAR__BREC_END(kid)\n",
    "#endif\n",
    "// the tiled kernels' body with CN n-tiles per accumulator chunk; dynamic shared memory, OSCAR__APPEND_SMEM bytes\n",
    "// (oscar_append_smem, for the host): Y [TR][D] BF16 | code bytes | s_ss [TR] | s_bad [TR] | s_job [TR] | (wgmma) Rh, Rl\n",
    "template <int CN, bool HS, bool SW>\n",
    "static __device__ __forceinline__ void oscar__append_tiled(const oscar_append_params &p) {\n",
    "    extern __shared__ __align__(16) oscar_u8 dsm[];\n",
    "    oscar_u32 *ys = (oscar_u32 *)dsm;\n",
    "    float *rs = (float *)(dsm + TR * D * 2);\n",
    "    float *s_ss = rs + AW * OSCAR_APPEND_NR * D / 4;\n",
    "    oscar__append_impl<0, CN, HS, SW>(p, ys, rs, s_ss, (int *)(s_ss + TR), (int4 *)(s_ss + 2 * TR), dsm + OSCAR__APPEND_SMEM0);\n",
    "    if (p.wlate) {\n",
    "#if OSCAR_APPEND_BREC\n",
    "        __syncthreads(); // (timing only: every warp's own work done, recorded before the block waits for the flush)\n",
    "        OSCAR__BREC_MARK(4)\n",
    "#endif\n",
    "        oscar_pdl_wait(); // (every thread: the block exits only once the flush launch is done)\n",
    "    }\n",
    "}\n",
    "extern \"C\" __global__ void OSCAR_APPEND_BOUNDS oscar_append(const oscar_append_params p) {\n",
    "    OSCAR__BREC_BEGIN\n",
    "    oscar__append_tiled<CNT, OSCAR_APPEND_HOIST == 1, false>(p);\n",
    "    OSCAR__BREC_END(2)\n",
    "}\n",
    "\n",
    "// oscar_append for launches of few jobs per (head, K|V) (the host takes it where a launch has at most 32, the one-token\n",
    "// appends of a decode step: oscar_cuda_kv.append_small): a tile whose jobs fill 1 or 2 of its 16-row MMA tiles rotates\n",
    "// them with 4 or 2 warps (at most WPS) splitting each MMA tile's columns, where oscar_append gives a warp each MMA tile\n",
    "// and the warps past the jobs rotate zeros: the product's chain a quarter as long for one row at d 128. A kernel of its\n",
    "// own: the run-time split in oscar_append cost 1.4% on 2,048-token appends and 3% on long d 256 flushes (run s33-4).\n",
    "// With p.tr 16 a block takes 16 jobs instead of a whole tile (grid ceil(n_jobs / 16)): write launches only, the one behind\n",
    "// its call's flush, whose blocks start only in the flush's drain, and those of too few whole tiles for the SMs\n",
    "// (oscar_cuda_kv.append_wsplit).\n",
    "// The same bytes. Built for INT2 caches without the warpgroup product (oscar_append_s_built says)\n",
    "#if OSCAR_INT2 && !OSCAR_APPEND_WGMMA\n",
    "#define OSCAR_APPEND_SMALL 1\n",
    "extern \"C\" __global__ void OSCAR_APPEND_BOUNDS oscar_append_s(const oscar_append_params p) {\n",
    "    OSCAR__BREC_BEGIN\n",
    "    oscar__append_tiled<CNT, OSCAR_APPEND_HOIST == 1, true>(p);\n",
    "    OSCAR__BREC_END(3)\n",
    "}\n",
    "#else\n",
    "#define OSCAR_APPEND_SMALL 0\n",
    "#endif\n",
    "extern \"C\" __device__ int oscar_append_s_built = OSCAR_APPEND_SMALL;\n",
    "\n",
    "// oscar_append for long flush launches (the host takes it where a launch has many waves of tiles,\n",
    "// oscar_cuda_kv.append_wide): one n-tile per accumulator chunk and 8 blocks per SM (64 registers), where\n",
    "// the default's bound trades occupancy for the short launches' latency (kernels/NOTES.md w37). The same bytes.\n",
    "// Built at d 128 for INT2 caches on sm_90+, without the warpgroup product (oscar_append_w_built says)\n",
    "#ifndef OSCAR_APPEND_WIDE\n",
    "#if OSCAR_INT2 && D == 128 && !OSCAR_APPEND_WGMMA && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "#define OSCAR_APPEND_WIDE 1\n",
    "#else\n",
    "#define OSCAR_APPEND_WIDE 0\n",
    "#endif\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_WCNT\n",
    "#define OSCAR_APPEND_WCNT 1\n",
    "#endif\n",
    "#ifndef OSCAR_APPEND_WMINB\n",
    "#define OSCAR_APPEND_WMINB 8\n",
    "#endif\n",
    "extern \"C\" __device__ int oscar_append_w_built = OSCAR_APPEND_WIDE;\n",
    "#if OSCAR_APPEND_WIDE\n",
    "#if OSCAR_APPEND_STAGGER > 0\n",
    "// the first wave's blocks of one SM start OSCAR_APPEND_STAGGER ns apart by their rank there (the block scheduler hands\n",
    "// out the first wave in linear order, one block per SM in turn), so that the SM has a tile to work on while the later\n",
    "// ranks' rows load, instead of 8 blocks that wait for their 34.6 MB together and then compete for the SM: on an H200\n",
    "// the first wave's blocks took 29.2 instead of 34.3 us and the launch 4 us less (run s40-2). Not inlined: the kernel's\n",
    "// register allocation stays as without it. The sleeps are also bounded in number (each lasts 0 to 2 x 200 ns by the\n",
    "// PTX rules), so that a timer that does not advance cannot hold a block for good\n",
    "static __device__ __noinline__ void oscar__stagger(unsigned sms) {\n",
    "    const unsigned lin = blockIdx.x + gridDim.x * blockIdx.y, rk = lin / sms;\n",
    "    if (rk > 0 && rk < OSCAR_APPEND_WMINB) {\n",
    "        unsigned long long t0, t1;\n",
    "        const unsigned long long wait = (unsigned long long)rk * OSCAR_APPEND_STAGGER;\n",
    "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n",
    "        for (unsigned i = 0; i < 4u * (unsigned)(wait / 200u + 1u); i++) {\n",
    "            __nanosleep(200);\n",
    "            asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t1));\n",
    "            if (t1 - t0 >= wait) break;\n",
    "        }\n",
    "    }\n",
    "}\n",
    "#endif\n",
    "extern \"C\" __global__ void __launch_bounds__(AW * 32, OSCAR_APPEND_WMINB) oscar_append_w(const oscar_append_params p) {\n",
    "    OSCAR__BREC_BEGIN\n",
    "#if OSCAR_APPEND_STAGGER > 0\n",
    "    if (p.sms > 0) oscar__stagger((unsigned)p.sms);\n",
    "#endif\n",
    "    oscar__append_tiled<OSCAR_APPEND_WCNT, OSCAR_APPEND_HOIST != 0, false>(p);\n",
    "    OSCAR__BREC_END(1)\n",
    "}\n",
    "#endif\n",
    "\n",
    "#ifndef OSCAR_APPEND_WHT_MINB // blocks per SM for the H-rotation kernel (no tile buffers: registers decide)\n",
    "#define OSCAR_APPEND_WHT_MINB 8\n",
    "#endif\n",
    "// caches whose rotations are all H (the host launches it when p.wht): 512 B of shared memory per block\n",
    "extern \"C\" __global__ void __launch_bounds__(AW * 32, OSCAR_APPEND_WHT_MINB) oscar_append_wht(const oscar_append_params p) {\n",
    "    __shared__ __align__(16) float cb[AW * OSCAR_APPEND_NR * D / 4];\n",
    "    oscar__append_impl<1, CNT>(p, (oscar_u32 *)0, cb, (float *)0, (int *)0, (int4 *)0, (oscar_u8 *)0);\n",
    "}\n",
    "\n",
    "// ---------------------------------------------------------------------------------------------\n",
    "// oscar_append_fwht: both launches of an append (the flush: every row to an INT2 page; the\n",
    "// write: sink and window rows in BF16) for caches whose rotations are all H, with the CPU's bits. The warp-per-row kernels spend most of their\n",
    "// instructions on warp-wide steps that serve one row at a time (the shuffled butterflies, one\n",
    "// redux per clip round, one division per element); here FT = D / 32 threads own a row, 32 values\n",
    "// each, so a warp works on 32 / FT rows at once and most steps are per-thread arithmetic:\n",
    "// - thread t of a row holds the 4-value runs c = 4 FT i + 4 t + {0..3}, i = 0..7 (one float4\n",
    "//   load per i); the transform's butterflies of lengths 1, 2 and 4 FT .. D / 2 stay in the\n",
    "//   thread, lengths 4 .. 2 FT are shuffles inside the row's FT lanes (butterflies in the CPU's\n",
    "//   order of lengths, so the same bits);\n",
    "// - values are then BF16 pairs (the cache's rounding), and the codec runs on packed BF16:\n",
    "//   the clip threshold is the k-th largest |x| by bisection on BF16 keys over packed counts\n",
    "//   (one set + one add per two values and step; the first step brackets the top octave),\n",
    "//   clamp and group min / max by min/max.bf16x2, codes by comparing with the three exact BF16\n",
    "//   boundaries of the group (oscar__bound: the smallest value whose code by the CPU's formula\n",
    "//   reaches 1, 2, 3), the code bytes assembled from the compare masks by byte permutes.\n",
    "// - a group's min or max that is zero takes the sign of its first zero in column order (the\n",
    "//   CPU's loop keeps the first of equal values); a zero threshold clamps to signed zeros.\n",
    "// Needs sm_80 (min / max on bf16x2; sm_90's set on bf16x2 where it has it, integer and fp32 compares\n",
    "// on sm_80) and groups of at least D / 8 channels (a run of 4 FT values lies in one group).\n",
    "// Grid (ceil(n_jobs / FR), Hkv * 2), 128 threads.\n",
    "// ---------------------------------------------------------------------------------------------\n",
    "#if OSCAR__FCODEC\n",
    "extern \"C\" __global__ void __launch_bounds__(128, OSCAR_FWHT_MINB) oscar_append_fwht(const oscar_append_params p) {\n",
    "    const int tid = threadIdx.x, t = tid % FT, lane = tid & 31;\n",
    "    const int hv = blockIdx.y, head = hv % p.Hkv, isv = hv / p.Hkv;\n",
    "    const long long job = (long long)blockIdx.x * FR + tid / FT;\n",
    "    oscar_pdl_wait(); // as oscar__append_impl\n",
    "    oscar_pdl_launch();\n",
    "    oscar__bt_inline(p);\n",
    "    const bool valid = job < p.n_jobs;\n",
    "    const int4 jb = oscar__fjob(p, job);\n",
    "    const int src = jb.x, slot = jb.y, pos = jb.z, page = jb.w;\n",
    "    // ---- the row: fp32 input (rotated here) or the BF16 ring row (rotated when it was written) ----\n",
    "    float x[8][4];\n",
    "    float ss = 0.0f;\n",
    "    if (valid && src >= 0) {\n",
    "        // this lane's elements 4 (t + FT i) .. + 3 (compile-time offsets from the lane's base)\n",
    "        const float *row = (const float *)((const float4 *)((const float *)(isv \? p.v : p.k) + ((size_t)src * p.Hkv + head) * D) + t);\n",
    "        const float *mu = OSCAR_CENTER \? (const float *)((const float4 *)oscar__mean_row(p, isv, head) + t) : (const float *)0;\n",
    "        float4 v4[8];\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++) v4[i] = oscar__ld4c(row, mu, 4 * FT * i, true);\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++) {\n",
    "            x[i][0] = v4[i].x, x[i][1] = v4[i].y, x[i][2] = v4[i].z, x[i][3] = v4[i].w;\n",
    "#pragma unroll\n",
    "            for (int e = 0; e < 4; e++) ss = __fmaf_rn(x[i][e], x[i][e], ss);\n",
    "        }\n",
    "    } else {\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++)\n",
    "#pragma unroll\n",
    "            for (int e = 0; e < 4; e++) x[i][e] = 0.0f;\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int o = 1; o < FT; o <<= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);\n",
    "    // a non-finite row, or one whose norm exceeds 32768, is stored as zeros and reported\n",
    "    const bool bad = valid && src >= 0 && !(ss <= 32768.0f * 32768.0f);\n",
    "    int nf = 0;\n",
    "    if (bad) {\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++)\n",
    "#pragma unroll\n",
    "            for (int e = 0; e < 4; e++) nf |= !isfinite(x[i][e]);\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int o = 1; o < FT; o <<= 1) nf |= __shfl_xor_sync(0xffffffffu, nf, o);\n",
    "    if (bad && t == 0) atomicOr((unsigned int *)p.err, nf \? OSCAR_ERR_BIT_NONFINITE : OSCAR_ERR_BIT_RANGE);\n",
    "    // ---- x . H: butterflies of length 1, 2 (in the thread), 4 .. 2 FT (lanes), 4 FT .. D / 2 (runs) ----\n",
    "#pragma unroll\n",
    "    for (int i = 0; i < 8; i++) {\n",
    "        float a = x[i][0], b = x[i][1], c = x[i][2], d = x[i][3];\n",
    "        x[i][0] = __fadd_rn(a, b), x[i][1] = __fsub_rn(a, b), x[i][2] = __fadd_rn(c, d), x[i][3] = __fsub_rn(c, d);\n",
    "        a = x[i][0], b = x[i][1], c = x[i][2], d = x[i][3];\n",
    "        x[i][0] = __fadd_rn(a, c), x[i][1] = __fadd_rn(b, d), x[i][2] = __fsub_rn(a, c), x[i][3] = __fsub_rn(b, d);\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int o = 1; o < FT; o <<= 1) { // the upper lane of a pair takes partner - own, the lower own + partner\n",
    "        const float sg = (t & o) \? -1.0f : 1.0f;\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++)\n",
    "#pragma unroll\n",
    "            for (int e = 0; e < 4; e++) x[i][e] = __fmaf_rn(x[i][e], sg, __shfl_xor_sync(0xffffffffu, x[i][e], o));\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int l = 1; l < 8; l <<= 1)\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++)\n",
    "            if (!(i & l)) {\n",
    "#pragma unroll\n",
    "                for (int e = 0; e < 4; e++) {\n",
    "                    const float a = x[i][e], b = x[i + l][e];\n",
    "                    x[i][e] = __fadd_rn(a, b), x[i + l][e] = __fsub_rn(a, b);\n",
    "                }\n",
    "            }\n",
    "    const float hs = (float)(1.0 / sqrt((double)D));\n",
    "    oscar_u32 w[16]; // w[2 i + h]: values 4 FT i + 4 t + 2 h (low half) and + 1 (high half)\n",
    "#pragma unroll\n",
    "    for (int i = 0; i < 8; i++)\n",
    "#pragma unroll\n",
    "        for (int h = 0; h < 2; h++) w[2 * i + h] = bad \? 0u : oscar__bf2(__fmul_rn(x[i][2 * h], hs), __fmul_rn(x[i][2 * h + 1], hs));\n",
    "    if (valid && src < 0) oscar__fring(p, w, slot, pos, head, isv, t);\n",
    "    // ---- the write launch: sink / window rows are stored as BF16 (no codec) ----\n",
    "    if (valid && page < 0) {\n",
    "        const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + head;\n",
    "        oscar_u16 *dst = pos < p.S0 \? (oscar_u16 *)p.sink + ((slab * 2 + isv) * p.S0 + pos) * D\n",
    "                                    : (oscar_u16 *)p.win + ((slab * 2 + isv) * p.ring + (size_t)((pos - p.S0) % p.ring)) * D;\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 8; i++) ((uint2 *)dst)[FT * i + t] = make_uint2(w[2 * i], w[2 * i + 1]);\n",
    "    }\n",
    "    if (__all_sync(0xffffffffu, !valid || page < 0)) return; // (a launch is all page rows or none)\n",
    "    oscar__fcodec<OSCAR_FCNT_MMA == 1>(p, w, valid && page >= 0, page, head, isv, pos, t, lane);\n",
    "}\n",
    "#undef FT\n",
    "#undef FR\n",
    "#undef FIPG\n",
    "#undef FNG\n",
    "#define OSCAR__APPEND_FWHT_BUILT 1\n",
    "#endif\n",
    "#ifndef OSCAR__APPEND_FWHT_BUILT\n",
    "#define OSCAR__APPEND_FWHT_BUILT 0\n",
    "#endif\n",
    "// whether this build has oscar_append_fwht\n",
    "extern \"C\" __device__ int oscar_append_fwht_built = OSCAR__APPEND_FWHT_BUILT;\n",
    0};
/* kernels/oscar_decode.cu */
static const char *const oscar__src_oscar_decode_cu[] = {
    "// oscar_decode.cu - split-K decode attention over the paged cache (INT2 or BF16 history), the\n",
    "// query rotation and the log-sum-exp merge with the V un-rotation.\n",
    "//\n",
    "// Compile-time: OSCAR_D (64, 128, 256), OSCAR_G (query heads per KV head), OSCAR_GS (group size),\n",
    "// OSCAR_INT2 (1: INT2 history pages, 0: BF16 pages), OSCAR_TH (history rows per tile; divides the\n",
    "// page size), OSCAR_TB (BF16 rows per tile for the sink and the window).\n",
    "//\n",
    "// oscar_decode: grid (splits, Hkv, B), 128 threads. A block walks a contiguous run of tiles of one\n",
    "// sequence and one KV head (sink tiles, history tiles, window tiles, in token order); each tile is\n",
    "// staged in shared memory with 16-byte cp.async copies (double buffered), scored for all G query\n",
    "// heads at once (one pass over the KV data serves the whole GQA group), folded into a running\n",
    "// softmax, and accumulated into registers. The block writes its unnormalised output with its max\n",
    "// and sum; oscar_merge combines the splits.\n",
    "#include \"oscar_common.cuh\"\n",
    "\n",
    "// thread block clusters (sm_90+; the cluster-merge decode kernels are built there only). oscar_cluster_sync:\n",
    "// every thread of every block of the cluster arrives, then waits (release / acquire: the shared-memory writes\n",
    "// before it are visible to the whole cluster after it). oscar_ld_cluster: the float of block `rank`'s shared\n",
    "// memory at the address `a` has in this block's\n",
    "// oscar_cluster_arrive / oscar_cluster_wait: its two halves, for a thread that has work between its arrival and its wait\n",
    "static __device__ __forceinline__ void oscar_cluster_arrive(void) {\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "    asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\" ::: \"memory\");\n",
    "#endif\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_cluster_wait(void) {\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "    asm volatile(\"barrier.cluster.wait.acquire.aligned;\\n\" ::: \"memory\");\n",
    "#endif\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_cluster_sync(void) {\n",
    "    oscar_cluster_arrive();\n",
    "    oscar_cluster_wait();\n",
    "}\n",
    "static __device__ __forceinline__ float oscar_ld_cluster(const float *a, unsigned rank) {\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "    unsigned r;\n",
    "    float v;\n",
    "    asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(r) : \"r\"((unsigned)__cvta_generic_to_shared(a)), \"r\"(rank));\n",
    "    asm volatile(\"ld.shared::cluster.f32 %0, [%1];\" : \"=f\"(v) : \"r\"(r) : \"memory\");\n",
    "    return v;\n",
    "#else\n",
    "    (void)rank;\n",
    "    return *a;\n",
    "#endif\n",
    "}\n",
    "\n",
    "// -DOSCAR_WPROF (diagnostics only, see oscar_decode_w): oscar_rotate_q and the merges record each\n",
    "// block's start, the end of its wait for the previous grid and its end (globaltimer ns)\n",
    "#ifdef OSCAR_WPROF\n",
    "extern \"C\" {\n",
    "__device__ unsigned long long oscar_rprof[1024 * 3], oscar_mprof[4096 * 3];\n",
    "// phases in cycles from the block's start (clock64): decode blocks [0] the query in shared memory, [1] its\n",
    "// transform done, [2] its normalisers done, [3] the split's weights done (epilogue), [4] thread 0's BF16 fragments\n",
    "// done, [5] its INT2 fragments done, [6] the barrier after them; merge blocks [0] the wait done, [1] the partials\n",
    "// summed, [2] the slices summed, [3] the end, [4] thread 0's partial loads arrived, [5] its split weights done\n",
    "__device__ unsigned long long oscar_wph[OSCAR_WPROF * 8], oscar_mph[4096 * 8];\n",
    "}\n",
    "static __device__ __forceinline__ unsigned long long oscar_gtime(void) {\n",
    "    unsigned long long t;\n",
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n",
    "    return t;\n",
    "}\n",
    "#define OSCAR_TSTAMP(arr, cap, k)                                                          \\\n",
    "    do {                                                                                   \\\n",
    "        const unsigned bi_ = blockIdx.x + gridDim.x * blockIdx.y;                          \\\n",
    "        if (threadIdx.x == 0 && bi_ < (cap)) arr[3 * bi_ + (k)] = oscar_gtime();           \\\n",
    "    } while (0)\n",
    "#define OSCAR_PHASE(arr, cap, k, c0)                                                       \\\n",
    "    do {                                                                                   \\\n",
    "        const unsigned bi_ = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); \\\n",
    "        if (threadIdx.x == 0 && bi_ < (cap)) arr[8 * bi_ + (k)] = (unsigned long long)(clock64() - (c0)); \\\n",
    "    } while (0)\n",
    "#else\n",
    "#define OSCAR_TSTAMP(arr, cap, k)\n",
    "#define OSCAR_PHASE(arr, cap, k, c0)\n",
    "#endif\n",
    "\n",
    "#ifndef OSCAR_D\n",
    "#error \"OSCAR_D must be defined\"\n",
    "#endif\n",
    "#ifndef OSCAR_G\n",
    "#define OSCAR_G 1\n",
    "#endif\n",
    "#ifndef OSCAR_HSPLIT // query-head groups of G heads per KV head: blockIdx.y of the decode = KV head * OSCAR_HSPLIT + group\n",
    "#define OSCAR_HSPLIT 1\n",
    "#endif\n",
    "#ifndef OSCAR_INT2\n",
    "#define OSCAR_INT2 1\n",
    "#endif\n",
    "#ifndef OSCAR_GS\n",
    "#define OSCAR_GS OSCAR_D\n",
    "#endif\n",
    "#ifndef OSCAR_TB\n",
    "#define OSCAR_TB (4096 / OSCAR_D < 64 \? 4096 / OSCAR_D : 64)\n",
    "#endif\n",
    "#ifndef OSCAR_TH\n",
    "#define OSCAR_TH (OSCAR_INT2 \? 64 : OSCAR_TB)\n",
    "#endif\n",
    "\n",
    "#ifndef OSCAR_MIN_BLOCKS // resident blocks per SM the register allocation must allow (0: no hint)\n",
    "#define OSCAR_MIN_BLOCKS 0\n",
    "#endif\n",
    "\n",
    "#define D OSCAR_D\n",
    "#define G OSCAR_G\n",
    "#define GS OSCAR_GS\n",
    "#define TB OSCAR_TB\n",
    "#define TH OSCAR_TH\n",
    "#ifdef OSCAR_P\n",
    "#define PP OSCAR_P // the page size the module was compiled for (the host launches it for caches of that page size only)\n",
    "#else\n",
    "#define PP p.P\n",
    "#endif\n",
    "#define NT 128\n",
    "#define NGR (D / GS)\n",
    "\n",
    "#if (D % 64) != 0 || (D % GS) != 0 || GS < 16 || TH < 4 || TB < 4 || TH > 64 || TB > 64\n",
    "#error \"unsupported decode configuration\"\n",
    "#endif\n",
    "\n",
    "// head sets for the value accumulation: HPT heads per thread, HS sets\n",
    "#if G % 4 == 0\n",
    "#define HPT 4\n",
    "#elif G % 3 == 0\n",
    "#define HPT 3\n",
    "#elif G % 2 == 0\n",
    "#define HPT 2\n",
    "#else\n",
    "#define HPT 1\n",
    "#endif\n",
    "#define HS (G / HPT)\n",
    "\n",
    "// OSCAR_MMA (default 1 on sm_80+): INT2 history tiles on tensor cores (mma.sync m16n8k16, f16 in,\n",
    "// fp32 accumulate). Codes 0..3 are exact in fp16; queries and softmax weights are split into\n",
    "// hi + lo fp16 halves after a power-of-two scaling, so products keep fp32-level accuracy.\n",
    "#ifndef OSCAR_MMA\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n",
    "#define OSCAR_MMA 1\n",
    "#else\n",
    "#define OSCAR_MMA 0\n",
    "#endif\n",
    "#endif\n",
    "#if OSCAR_MMA && OSCAR_INT2 && (OSCAR_TH % 16) == 0 && OSCAR_GS >= OSCAR_D / 4\n",
    "#define I2MMA 1\n",
    "#else\n",
    "#define I2MMA 0\n",
    "#endif\n",
    "#define NH8 ((G + 7) / 8)     // head tiles of 8 (score MMA: N = heads)\n",
    "#define MT16 ((G + 15) / 16)  // head tiles of 16 (value MMA: M = heads)\n",
    "#define NTQ (D / 32)          // value MMA n-tiles per quarter of the channels\n",
    "#define WPR (D / 16)               // threads across a row: each owns 4 channels per quarter\n",
    "#define NTG (NT / (WPR * HS))      // token groups\n",
    "#if NTG < 1\n",
    "#error \"GQA group too large for this head dim\"\n",
    "#endif\n",
    "\n",
    "// shared-memory layout of one stage\n",
    "#define RSB (D * 2 + 16)                                   // BF16 row stride (padded)\n",
    "#define CSB (((D / 4) % 32) == 0 \? D / 4 + 16 : D / 4)    // INT2 code row stride (padded)\n",
    "#define BF_STAGE (2 * TB * RSB)\n",
    "#if OSCAR_INT2\n",
    "#define HCAP TH                                            // history tile rows\n",
    "#define I2_KC 0\n",
    "#define I2_KS (TH * CSB)\n",
    "#define I2_VC (I2_KS + TH * NGR * 4)\n",
    "#define I2_VS (I2_VC + TH * CSB)\n",
    "#define I2_STAGE (I2_VS + TH * NGR * 4)\n",
    "#define STAGE0 (I2_STAGE > BF_STAGE \? I2_STAGE : BF_STAGE)\n",
    "#else\n",
    "#define HCAP TB\n",
    "#define STAGE0 BF_STAGE\n",
    "#endif\n",
    "#define STAGE ((STAGE0 + 15) / 16 * 16)\n",
    "#define SCAP (HCAP > TB \? HCAP : TB)\n",
    "#define RED_BYTES (NTG * G * D * 4)\n",
    "#if RED_BYTES > 2 * STAGE\n",
    "#error \"reduction buffer does not fit\"\n",
    "#endif\n",
    "\n",
    "// tile kinds\n",
    "#define TK_SINK 0\n",
    "#define TK_HIST 1\n",
    "#define TK_WIN 2\n",
    "\n",
    "struct oscar_tile {\n",
    "    int kind, n, tok0; // tok0: first token inside its segment\n",
    "};\n",
    "\n",
    "// dynamic shared memory the host must pass to oscar_decode (read with cuModuleGetGlobal)\n",
    "#if I2MMA\n",
    "// + qfrag [NH8][D/16][32] uint4, qmul/qinv [G], whi/wlo [NGR][G][TH] halves, winv [NGR][G], accmn [G][NGR]\n",
    "#define WST (TH + 8)\n",
    "#define SMEM_FLOATS (G * D + G * SCAP + 3 * G + G * NGR + 4 + NH8 * (D / 16) * 32 * 4 + 2 * G + NGR * G * WST + 2 * NGR * G)\n",
    "#elif OSCAR_INT2\n",
    "#define SMEM_FLOATS (G * D + G * SCAP + 3 * G + G * NGR)\n",
    "#else\n",
    "#define SMEM_FLOATS (G * D + G * SCAP + 3 * G)\n",
    "#endif\n",
    "extern \"C\" __device__ int oscar_decode_smem_bytes = 2 * STAGE + SMEM_FLOATS * 4;\n",
    "\n",
    "#if I2MMA\n",
    "// codes (bytes 0..3 of x, values 0..3) sel 0x4140: bytes 0,1 -> half2; 0x4342: bytes 2,3\n",
    "static __device__ __forceinline__ oscar_u32 oscar_h2_codes(oscar_u32 x, oscar_u32 sel) {\n",
    "    const oscar_u32 r = __byte_perm(x, 0x64646464u, sel); // halves 1024 + code\n",
    "    oscar_u32 o;\n",
    "    asm(\"sub.f16x2 %0, %1, %2;\" : \"=r\"(o) : \"r\"(r), \"r\"(0x64006400u));\n",
    "    return o;\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_mma16816(float c[4], oscar_u32 a0, oscar_u32 a1, oscar_u32 a2, oscar_u32 a3, oscar_u32 b0, oscar_u32 b1) {\n",
    "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"\n",
    "                 : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n",
    "                 : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1));\n",
    "}\n",
    "// a power of two m such that |x| * m lies in [2^14, 2^15) (x > 0 finite normal); *inv = 1 / m\n",
    "static __device__ __forceinline__ float oscar_pow2_norm(float x, float *inv) {\n",
    "    int e = (int)((__float_as_uint(x) >> 23) & 0xffu);\n",
    "    int k = 268 - e;\n",
    "    k = k < 1 \? 1 : (k > 253 \? 253 : k);\n",
    "    *inv = __uint_as_float((oscar_u32)(254 - k) << 23);\n",
    "    return __uint_as_float((oscar_u32)k << 23);\n",
    "}\n",
    "static __device__ __forceinline__ oscar_u32 oscar_f16_split(float v, oscar_u16 *lo) {\n",
    "    const oscar_u16 h = oscar_f32_to_f16(v);\n",
    "    *lo = oscar_f32_to_f16(v - oscar_f16_to_f32(h));\n",
    "    return h;\n",
    "}\n",
    "#endif\n",
    "\n",
    "#if OSCAR_MIN_BLOCKS > 0\n",
    "#define OSCAR_DECODE_BOUNDS __launch_bounds__(NT, OSCAR_MIN_BLOCKS)\n",
    "#else\n",
    "#define OSCAR_DECODE_BOUNDS __launch_bounds__(NT)\n",
    "#endif\n",
    "extern \"C\" __global__ void OSCAR_DECODE_BOUNDS oscar_decode(const oscar_attn_params p) {\n",
    "    extern __shared__ __align__(16) oscar_u8 smem[];\n",
    "    float *qs = (float *)(smem + 2 * STAGE);  // [G][D]\n",
    "    float *sc = qs + G * D;                   // [G][SCAP] scores, then probabilities\n",
    "    float *mrun = sc + G * SCAP;              // [G]\n",
    "    float *lrun = mrun + G;                   // [G]\n",
    "    float *corr = lrun + G;                   // [G]\n",
    "#if OSCAR_INT2\n",
    "    float *qsum = corr + G;                   // [G][NGR] sum of q over each group\n",
    "#endif\n",
    "#if I2MMA\n",
    "    uint4 *qfrag = (uint4 *)(smem + 2 * STAGE + ((G * D + G * SCAP + 3 * G + G * NGR) * 4 + 15) / 16 * 16); // [NH8][D/16][32]\n",
    "    float *qmul = (float *)(qfrag + NH8 * (D / 16) * 32); // [G]\n",
    "    float *qinv = qmul + G;                               // [G]\n",
    "    oscar_u16 *whi = (oscar_u16 *)(qinv + G);             // [NGR][G][WST] (rows padded: no bank conflicts)\n",
    "    oscar_u16 *wlo = whi + NGR * G * WST;                 // [NGR][G][WST]\n",
    "    float *winv = (float *)(wlo + NGR * G * WST);         // [NGR][G]\n",
    "    float *accmn = winv + NGR * G;                        // [G][NGR] running sum of p * min\n",
    "#endif\n",
    "    const int tid = threadIdx.x;\n",
    "#if I2MMA\n",
    "    const int warp = tid >> 5, lane = tid & 31, lg = lane >> 2, lt = lane & 3;\n",
    "#endif\n",
    "    const int split = blockIdx.x, j = blockIdx.y, b = blockIdx.z, jk = j / OSCAR_HSPLIT; // j: query-head group, jk: its KV head\n",
    "    const int Hq = p.Hkv * OSCAR_HSPLIT * G;\n",
    "    const int slot = p.seqinfo \? ((const int *)p.seqinfo)[2 * b] : p.inline_info[2 * b];\n",
    "    const int n = p.seqinfo \? ((const int *)p.seqinfo)[2 * b + 1] : p.inline_info[2 * b + 1];\n",
    "    const int ns = n < p.S0 \? n : p.S0;\n",
    "    const int H = n >= p.S0 + p.W \? p.P * ((n - p.S0 - p.W) / p.P) : 0;\n",
    "    const int nw = n - ns - H;\n",
    "    const int ts = (ns + TB - 1) / TB, th = H / TH, tw = (nw + TB - 1) / TB;\n",
    "    const int T = ts + th + tw;\n",
    "    const int per = (T + p.n_splits - 1) / p.n_splits;\n",
    "    const int t0 = split * per, t1 = (t0 + per < T) \? t0 + per : T;\n",
    "\n",
    "    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + jk;\n",
    "    const oscar_u8 *sinkK = (const oscar_u8 *)p.sink + slab * 2 * p.S0 * (D * 2);\n",
    "    const oscar_u8 *sinkV = sinkK + (size_t)p.S0 * (D * 2);\n",
    "    const oscar_u8 *winK = (const oscar_u8 *)p.win + slab * 2 * p.ring * (D * 2);\n",
    "    const oscar_u8 *winV = winK + (size_t)p.ring * (D * 2);\n",
    "    const int *bt = (const int *)p.bt + (size_t)slot * p.max_blocks;\n",
    "\n",
    "    // queries of the group, running softmax state\n",
    "    const float *qg = (const float *)p.q + ((size_t)b * Hq + (size_t)j * G) * D;\n",
    "    for (int i = tid; i < G * D; i += NT) qs[i] = qg[i];\n",
    "    if (tid < G) {\n",
    "        mrun[tid] = OSCAR_NEG_INF;\n",
    "        lrun[tid] = 0.0f;\n",
    "    }\n",
    "    __syncthreads();\n",
    "#if OSCAR_INT2\n",
    "    for (int i = tid; i < G * NGR; i += NT) {\n",
    "        const float *qq = qs + (i / NGR) * D + (i % NGR) * GS;\n",
    "        float s = 0.0f;\n",
    "        for (int c = 0; c < GS; c++) s += qq[c];\n",
    "        qsum[i] = s;\n",
    "    }\n",
    "#endif\n",
    "#if I2MMA\n",
    "    for (int h = warp; h < G; h += NT / 32) {\n",
    "        float m = 0.0f;\n",
    "        for (int c = lane; c < D; c += 32) m = fmaxf(m, fabsf(qs[h * D + c]));\n",
    "#pragma unroll\n",
    "        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));\n",
    "        if (lane == 0) {\n",
    "            float inv;\n",
    "            qmul[h] = oscar_pow2_norm(m, &inv);\n",
    "            qinv[h] = inv;\n",
    "        }\n",
    "    }\n",
    "    for (int i = tid; i < G * NGR; i += NT) accmn[i] = 0.0f;\n",
    "    __syncthreads();\n",
    "    for (int i = tid; i < NH8 * (D / 16) * 32; i += NT) {\n",
    "        const int ln = i % 32, ks = (i / 32) % (D / 16), nt = i / (32 * (D / 16));\n",
    "        const int h = nt * 8 + (ln >> 2), qd = ks / (D / 64), ch = ks % (D / 64);\n",
    "        const int c = qd * (D / 4) + 16 * ch + 4 * (ln & 3);\n",
    "        oscar_u32 hi[4] = {0, 0, 0, 0}, lo[4] = {0, 0, 0, 0};\n",
    "        if (h < G) {\n",
    "#pragma unroll\n",
    "            for (int e = 0; e < 4; e++) {\n",
    "                oscar_u16 l;\n",
    "                hi[e] = oscar_f16_split(qs[h * D + c + e] * qmul[h], &l);\n",
    "                lo[e] = l;\n",
    "            }\n",
    "        }\n",
    "        qfrag[i] = make_uint4(hi[0] | hi[1] << 16, hi[2] | hi[3] << 16, lo[0] | lo[1] << 16, lo[2] | lo[3] << 16);\n",
    "    }\n",
    "    float macc[MT16][NTQ][4];\n",
    "#pragma unroll\n",
    "    for (int mt = 0; mt < MT16; mt++)\n",
    "#pragma unroll\n",
    "        for (int jn = 0; jn < NTQ; jn++)\n",
    "#pragma unroll\n",
    "            for (int e = 0; e < 4; e++) macc[mt][jn][e] = 0.0f;\n",
    "#endif\n",
    "\n",
    "    // value accumulator ownership: channels qd*D/4 + 4*w + e (qd, e in 0..3)\n",
    "    const int vw = tid % WPR, vr = tid / WPR, vhs = vr % HS, vtg = vr / HS;\n",
    "    const bool vact = vtg < NTG;\n",
    "    float acc[HPT][16];\n",
    "#pragma unroll\n",
    "    for (int s = 0; s < HPT; s++)\n",
    "#pragma unroll\n",
    "        for (int i = 0; i < 16; i++) acc[s][i] = 0.0f;\n",
    "\n",
    "    // ---- tile addressing and staging ----\n",
    "    auto tile_of = [&](int t) {\n",
    "        oscar_tile tl;\n",
    "        if (t < ts) {\n",
    "            tl.kind = TK_SINK;\n",
    "            tl.tok0 = t * TB;\n",
    "            tl.n = ns - tl.tok0 < TB \? ns - tl.tok0 : TB;\n",
    "        } else if (t < ts + th) {\n",
    "            tl.kind = TK_HIST;\n",
    "            tl.tok0 = (t - ts) * TH;\n",
    "            tl.n = TH;\n",
    "        } else {\n",
    "            tl.kind = TK_WIN;\n",
    "            tl.tok0 = (t - ts - th) * TB;\n",
    "            tl.n = nw - tl.tok0 < TB \? nw - tl.tok0 : TB;\n",
    "        }\n",
    "        return tl;\n",
    "    };\n",
    "    auto load_tile = [&](oscar_u8 *st, const oscar_tile &tl) {\n",
    "        if (tl.kind == TK_HIST) {\n",
    "            const int pi = tl.tok0 / p.P, r0 = tl.tok0 % p.P;\n",
    "            const int page = bt[pi];\n",
    "            const oscar_u8 *base = (const oscar_u8 *)p.pool + (((size_t)p.layer * p.max_pages + page) * p.Hkv + jk) * (size_t)p.head_page_bytes;\n",
    "#if OSCAR_INT2\n",
    "            const size_t vofs = (size_t)p.P * (D / 4 + NGR * 4);\n",
    "            const int CPR = D / 64; // 16-byte chunks per code row\n",
    "            for (int c = tid; c < 2 * TH * CPR; c += NT) {\n",
    "                const int kv = c / (TH * CPR), cc = c % (TH * CPR), r = cc / CPR, ch = cc % CPR;\n",
    "                oscar_cp_async16(st + (kv \? I2_VC : I2_KC) + r * CSB + ch * 16, base + kv * vofs + (size_t)(r0 + r) * (D / 4) + ch * 16);\n",
    "            }\n",
    "            const int SCH = TH * NGR / 4; // 16-byte chunks of scale/min per tile\n",
    "            for (int c = tid; c < 2 * SCH; c += NT) {\n",
    "                const int kv = c / SCH, i = c % SCH;\n",
    "                oscar_cp_async16(st + (kv \? I2_VS : I2_KS) + i * 16, base + kv * vofs + (size_t)p.P * (D / 4) + (size_t)r0 * NGR * 4 + i * 16);\n",
    "            }\n",
    "#else\n",
    "            const int CPR = D / 8;\n",
    "            for (int c = tid; c < 2 * TH * CPR; c += NT) {\n",
    "                const int kv = c / (TH * CPR), cc = c % (TH * CPR), r = cc / CPR, ch = cc % CPR;\n",
    "                oscar_cp_async16(st + kv * TB * RSB + r * RSB + ch * 16, base + ((size_t)kv * p.P + r0 + r) * (D * 2) + ch * 16);\n",
    "            }\n",
    "#endif\n",
    "        } else {\n",
    "            const int CPR = D / 8;\n",
    "            for (int c = tid; c < 2 * tl.n * CPR; c += NT) {\n",
    "                const int kv = c / (tl.n * CPR), cc = c % (tl.n * CPR), r = cc / CPR, ch = cc % CPR;\n",
    "                const oscar_u8 *src;\n",
    "                if (tl.kind == TK_SINK) src = (kv \? sinkV : sinkK) + (size_t)(tl.tok0 + r) * (D * 2);\n",
    "                else src = (kv \? winV : winK) + (size_t)((H + tl.tok0 + r) % p.ring) * (D * 2);\n",
    "                oscar_cp_async16(st + kv * TB * RSB + r * RSB + ch * 16, src + ch * 16);\n",
    "            }\n",
    "        }\n",
    "    };\n",
    "\n",
    "    if (t0 < t1) {\n",
    "        load_tile(smem, tile_of(t0));\n",
    "        oscar_cp_commit();\n",
    "    }\n",
    "    for (int t = t0; t < t1; t++) {\n",
    "        const int cur = (t - t0) & 1;\n",
    "        if (t + 1 < t1) {\n",
    "            load_tile(smem + (cur ^ 1) * STAGE, tile_of(t + 1));\n",
    "            oscar_cp_commit();\n",
    "            oscar_cp_wait1();\n",
    "        } else {\n",
    "            oscar_cp_wait0();\n",
    "        }\n",
    "        __syncthreads();\n",
    "        const oscar_u8 *st = smem + cur * STAGE;\n",
    "        const oscar_tile tl = tile_of(t);\n",
    "        const int nv = tl.n;\n",
    "#if OSCAR_INT2\n",
    "        const bool i2 = tl.kind == TK_HIST;\n",
    "#else\n",
    "        const bool i2 = false;\n",
    "#endif\n",
    "\n",
    "        // ---- scores: thread (token, head set) ----\n",
    "#if I2MMA\n",
    "        if (i2) {\n",
    "            // warp: 16 tokens x 8 heads per MMA; A = codes [token][channel], B = query [channel][head].\n",
    "            // k-step ks covers quarter qd = ks / (D/64), bytes 16 ch .. 16 ch + 15 (ch = ks % (D/64)) of\n",
    "            // the code row; lane (lg, lt) holds byte word lt: its bytes e = 0..3 are k = 2lt, 2lt+1,\n",
    "            // 2lt+8, 2lt+9 (the query fragments use the same order)\n",
    "            for (int m0 = warp * 16; m0 < TH; m0 += NT / 2) {\n",
    "                const oscar_u8 *r0p = st + I2_KC + (m0 + lg) * CSB + 4 * lt, *r1p = r0p + 8 * CSB;\n",
    "                const oscar_u32 *ks0 = (const oscar_u32 *)(st + I2_KS) + (m0 + lg) * NGR, *ks1 = ks0 + 8 * NGR;\n",
    "#pragma unroll\n",
    "                for (int nt = 0; nt < NH8; nt++) {\n",
    "                    float dd[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n",
    "                    const int h0 = nt * 8 + 2 * lt, h1 = h0 + 1;\n",
    "#pragma unroll\n",
    "                    for (int gi = 0; gi < NGR; gi++) {\n",
    "                        float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n",
    "#pragma unroll\n",
    "                        for (int kk = 0; kk < GS / 16; kk++) {\n",
    "                            const int ks = gi * (GS / 16) + kk, qd = ks / (D / 64), ch = ks % (D / 64);\n",
    "                            const oscar_u32 x0 = (*(const oscar_u32 *)(r0p + ch * 16) >> (2 * qd)) & 0x03030303u;\n",
    "                            const oscar_u32 x1 = (*(const oscar_u32 *)(r1p + ch * 16) >> (2 * qd)) & 0x03030303u;\n",
    "                            const uint4 qq = qfrag[(nt * (D / 16) + ks) * 32 + lane];\n",
    "                            const oscar_u32 a0 = oscar_h2_codes(x0, 0x4140u), a2 = oscar_h2_codes(x0, 0x4342u);\n",
    "                            const oscar_u32 a1 = oscar_h2_codes(x1, 0x4140u), a3 = oscar_h2_codes(x1, 0x4342u);\n",
    "                            oscar_mma16816(c, a0, a1, a2, a3, qq.x, qq.y);\n",
    "                            oscar_mma16816(c, a0, a1, a2, a3, qq.z, qq.w);\n",
    "                        }\n",
    "                        const float s0 = oscar_f16_to_f32((oscar_u16)(ks0[gi] & 0xffffu)), n0 = oscar_f16_to_f32((oscar_u16)(ks0[gi] >> 16));\n",
    "                        const float s1 = oscar_f16_to_f32((oscar_u16)(ks1[gi] & 0xffffu)), n1 = oscar_f16_to_f32((oscar_u16)(ks1[gi] >> 16));\n",
    "                        const float qi0 = h0 < G \? qinv[h0] : 0.0f, qi1 = h1 < G \? qinv[h1] : 0.0f;\n",
    "                        const float qs0 = h0 < G \? qsum[h0 * NGR + gi] : 0.0f, qs1 = h1 < G \? qsum[h1 * NGR + gi] : 0.0f;\n",
    "                        dd[0] += s0 * (c[0] * qi0) + n0 * qs0;\n",
    "                        dd[1] += s0 * (c[1] * qi1) + n0 * qs1;\n",
    "                        dd[2] += s1 * (c[2] * qi0) + n1 * qs0;\n",
    "                        dd[3] += s1 * (c[3] * qi1) + n1 * qs1;\n",
    "                    }\n",
    "                    if (h0 < G) {\n",
    "                        sc[h0 * SCAP + m0 + lg] = dd[0] * p.scale_log2;\n",
    "                        sc[h0 * SCAP + m0 + lg + 8] = dd[2] * p.scale_log2;\n",
    "                    }\n",
    "                    if (h1 < G) {\n",
    "                        sc[h1 * SCAP + m0 + lg] = dd[1] * p.scale_log2;\n",
    "                        sc[h1 * SCAP + m0 + lg + 8] = dd[3] * p.scale_log2;\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "        } else\n",
    "#elif OSCAR_INT2\n",
    "        if (i2) {\n",
    "            // TPT adjacent threads per token split the (chunk, quarter) pairs of its code row and\n",
    "            // score all G heads, so each code is unpacked once; partial dots meet by shuffles\n",
    "            const int TPT = NT / HCAP, NPAIR = (D / 64) * 4;\n",
    "            const int tt = tid / TPT, sub = tid % TPT;\n",
    "            float dot[G];\n",
    "#pragma unroll\n",
    "            for (int s = 0; s < G; s++) dot[s] = 0.0f;\n",
    "            if (tt < nv) {\n",
    "                const oscar_u8 *kc = st + I2_KC + tt * CSB;\n",
    "                const oscar_u32 *ks = (const oscar_u32 *)(st + I2_KS) + tt * NGR;\n",
    "#pragma unroll\n",
    "                for (int k = 0; k < (NPAIR + TPT - 1) / TPT; k++) {\n",
    "                    const int pi = sub + k * TPT;\n",
    "                    if (pi < NPAIR) {\n",
    "                        const int ch = pi % (D / 64), qd = pi / (D / 64);\n",
    "                        const uint4 w = *(const uint4 *)(kc + ch * 16);\n",
    "                        const oscar_u32 wv[4] = {w.x, w.y, w.z, w.w};\n",
    "                        const int c0 = qd * (D / 4) + ch * 16;\n",
    "                        const float scl = oscar_f16_to_f32((oscar_u16)(ks[c0 / GS] & 0xffffu));\n",
    "                        float part[G];\n",
    "#pragma unroll\n",
    "                        for (int s = 0; s < G; s++) part[s] = 0.0f;\n",
    "#pragma unroll\n",
    "                        for (int e = 0; e < 4; e++) {\n",
    "                            const oscar_u32 m = (wv[e] >> (2 * qd)) & 0x03030303u;\n",
    "                            const float f0 = oscar_byte_f(m, 0), f1 = oscar_byte_f(m, 1), f2 = oscar_byte_f(m, 2), f3 = oscar_byte_f(m, 3);\n",
    "#pragma unroll\n",
    "                            for (int s = 0; s < G; s++) {\n",
    "                                const float4 q4 = *(const float4 *)(qs + s * D + c0 + 4 * e);\n",
    "                                part[s] += f0 * q4.x + f1 * q4.y + f2 * q4.z + f3 * q4.w;\n",
    "                            }\n",
    "                        }\n",
    "#pragma unroll\n",
    "                        for (int s = 0; s < G; s++) dot[s] += scl * part[s];\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "#pragma unroll\n",
    "            for (int o = 1; o < TPT; o <<= 1)\n",
    "#pragma unroll\n",
    "                for (int s = 0; s < G; s++) dot[s] += __shfl_xor_sync(0xffffffffu, dot[s], o);\n",
    "            if (tt < nv && sub == 0) {\n",
    "                const oscar_u32 *ks = (const oscar_u32 *)(st + I2_KS) + tt * NGR;\n",
    "#pragma unroll\n",
    "                for (int s = 0; s < G; s++) {\n",
    "                    float d0 = dot[s];\n",
    "#pragma unroll\n",
    "                    for (int k = 0; k < NGR; k++) d0 += oscar_f16_to_f32((oscar_u16)(ks[k] >> 16)) * qsum[s * NGR + k];\n",
    "                    sc[s * SCAP + tt] = d0 * p.scale_log2;\n",
    "                }\n",
    "            }\n",
    "        } else\n",
    "#endif\n",
    "        {\n",
    "            const int NHG = NT / TB, SH = (G + NHG - 1) / NHG;\n",
    "            const int tt = tid % TB, hg = tid / TB;\n",
    "            if (tt < nv && hg < G) {\n",
    "                float dot[(G + (NT / TB) - 1) / (NT / TB)];\n",
    "#pragma unroll\n",
    "                for (int s = 0; s < SH; s++) dot[s] = 0.0f;\n",
    "                const oscar_u8 *kr = st + tt * RSB;\n",
    "#pragma unroll 4\n",
    "                for (int ch = 0; ch < D / 8; ch++) {\n",
    "                    const uint4 w = *(const uint4 *)(kr + ch * 16);\n",
    "                    const float k0 = __uint_as_float(w.x << 16), k1 = __uint_as_float(w.x & 0xffff0000u);\n",
    "                    const float k2 = __uint_as_float(w.y << 16), k3 = __uint_as_float(w.y & 0xffff0000u);\n",
    "                    const float k4 = __uint_as_float(w.z << 16), k5 = __uint_as_float(w.z & 0xffff0000u);\n",
    "                    const float k6 = __uint_as_float(w.w << 16), k7 = __uint_as_float(w.w & 0xffff0000u);\n",
    "#pragma unroll\n",
    "                    for (int s = 0; s < SH; s++) {\n",
    "                        const int h = hg + s * NHG;\n",
    "                        if (h < G) {\n",
    "                            const float4 qa = *(const float4 *)(qs + h * D + ch * 8);\n",
    "                            const float4 qb = *(const float4 *)(qs + h * D + ch * 8 + 4);\n",
    "                            dot[s] += k0 * qa.x + k1 * qa.y + k2 * qa.z + k3 * qa.w + k4 * qb.x + k5 * qb.y + k6 * qb.z + k7 * qb.w;\n",
    "                        }\n",
    "                    }\n",
    "                }\n",
    "#pragma unroll\n",
    "                for (int s = 0; s < SH; s++) {\n",
    "                    const int h = hg + s * NHG;\n",
    "                    if (h < G) sc[h * SCAP + tt] = dot[s] * p.scale_log2;\n",
    "                }\n",
    "            }\n",
    "        }\n",
    "        __syncthreads();\n",
    "\n",
    "        // ---- online softmax: one warp per head ----\n",
    "        {\n",
    "            const int warp = tid >> 5, lane = tid & 31;\n",
    "            for (int h = warp; h < G; h += NT / 32) {\n",
    "                float m = OSCAR_NEG_INF;\n",
    "                for (int tt = lane; tt < nv; tt += 32) m = fmaxf(m, sc[h * SCAP + tt]);\n",
    "#pragma unroll\n",
    "                for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));\n",
    "                const float mold = mrun[h];\n",
    "                const float mnew = fmaxf(mold, m);\n",
    "                float l = 0.0f;\n",
    "                for (int tt = lane; tt < nv; tt += 32) {\n",
    "                    const float e = exp2f(sc[h * SCAP + tt] - mnew);\n",
    "                    sc[h * SCAP + tt] = e;\n",
    "                    l += e;\n",
    "                }\n",
    "#pragma unroll\n",
    "                for (int o = 16; o > 0; o >>= 1) l += __shfl_xor_sync(0xffffffffu, l, o);\n",
    "                __syncwarp();\n",
    "                const float cr = exp2f(mold - mnew);\n",
    "#if I2MMA\n",
    "                if (i2) {\n",
    "                    // weights p * scale of V (hi + lo fp16 after a power-of-two scaling) and sum p * min\n",
    "                    const oscar_u32 *vsm = (const oscar_u32 *)(st + I2_VS);\n",
    "#pragma unroll\n",
    "                    for (int gi = 0; gi < NGR; gi++) {\n",
    "                        float wm = 0.0f, pm = 0.0f;\n",
    "                        for (int tt = lane; tt < nv; tt += 32) {\n",
    "                            const oscar_u32 smv = vsm[tt * NGR + gi];\n",
    "                            const float e = sc[h * SCAP + tt];\n",
    "                            wm = fmaxf(wm, e * oscar_f16_to_f32((oscar_u16)(smv & 0xffffu)));\n",
    "                            pm += e * oscar_f16_to_f32((oscar_u16)(smv >> 16));\n",
    "                        }\n",
    "#pragma unroll\n",
    "                        for (int o = 16; o > 0; o >>= 1) {\n",
    "                            wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, o));\n",
    "                            pm += __shfl_xor_sync(0xffffffffu, pm, o);\n",
    "                        }\n",
    "                        float inv;\n",
    "                        const float mul = oscar_pow2_norm(wm, &inv);\n",
    "                        for (int tt = lane; tt < nv; tt += 32) {\n",
    "                            const float w = sc[h * SCAP + tt] * oscar_f16_to_f32((oscar_u16)(vsm[tt * NGR + gi] & 0xffffu)) * mul;\n",
    "                            oscar_u16 lo;\n",
    "                            whi[(gi * G + h) * WST + tt] = (oscar_u16)oscar_f16_split(w, &lo);\n",
    "                            wlo[(gi * G + h) * WST + tt] = lo;\n",
    "                        }\n",
    "                        if (lane == 0) {\n",
    "                            winv[gi * G + h] = inv;\n",
    "                            accmn[h * NGR + gi] = accmn[h * NGR + gi] * cr + pm;\n",
    "                        }\n",
    "                    }\n",
    "                } else if (lane == 0) {\n",
    "#pragma unroll\n",
    "                    for (int gi = 0; gi < NGR; gi++) accmn[h * NGR + gi] *= cr;\n",
    "                }\n",
    "#endif\n",
    "                if (lane == 0) {\n",
    "                    corr[h] = cr;\n",
    "                    lrun[h] = lrun[h] * cr + l;\n",
    "                    mrun[h] = mnew;\n",
    "                }\n",
    "            }\n",
    "        }\n",
    "        __syncthreads();\n",
    "\n",
    "        // ---- values: thread (4-channel column in each quarter, head set, token group) ----\n",
    "#if I2MMA\n",
    "        {\n",
    "            // warp = quarter qd of the channels; MMA A = weights [head][token], B = codes [token][channel];\n",
    "            // n-tile jn, column n is byte NTQ * n + jn of the quarter\n",
    "#pragma unroll\n",
    "            for (int mt = 0; mt < MT16; mt++) {\n",
    "                const int ha = mt * 16 + lg, hb = ha + 8;\n",
    "                const float ca = ha < G \? corr[ha] : 0.0f, cb = hb < G \? corr[hb] : 0.0f;\n",
    "#pragma unroll\n",
    "                for (int jn = 0; jn < NTQ; jn++) {\n",
    "                    macc[mt][jn][0] *= ca;\n",
    "                    macc[mt][jn][1] *= ca;\n",
    "                    macc[mt][jn][2] *= cb;\n",
    "                    macc[mt][jn][3] *= cb;\n",
    "                }\n",
    "            }\n",
    "            if (i2) {\n",
    "                const int qd = warp, gq = (qd * (D / 4)) / GS;\n",
    "#pragma unroll\n",
    "                for (int mt = 0; mt < MT16; mt++) {\n",
    "                    const int ha = mt * 16 + lg, hb = ha + 8;\n",
    "                    float ct[NTQ][4];\n",
    "#pragma unroll\n",
    "                    for (int jn = 0; jn < NTQ; jn++) ct[jn][0] = ct[jn][1] = ct[jn][2] = ct[jn][3] = 0.0f;\n",
    "                    for (int k0 = 0; k0 < TH; k0 += 16) {\n",
    "                        const int ra = k0 + 2 * lt;\n",
    "                        oscar_u32 ah[4] = {0, 0, 0, 0}, al[4] = {0, 0, 0, 0};\n",
    "                        if (ha < G) {\n",
    "                            ah[0] = *(const oscar_u32 *)(whi + (gq * G + ha) * WST + ra);\n",
    "                            ah[2] = *(const oscar_u32 *)(whi + (gq * G + ha) * WST + ra + 8);\n",
    "                            al[0] = *(const oscar_u32 *)(wlo + (gq * G + ha) * WST + ra);\n",
    "                            al[2] = *(const oscar_u32 *)(wlo + (gq * G + ha) * WST + ra + 8);\n",
    "                        }\n",
    "                        if (hb < G) {\n",
    "                            ah[1] = *(const oscar_u32 *)(whi + (gq * G + hb) * WST + ra);\n",
    "                            ah[3] = *(const oscar_u32 *)(whi + (gq * G + hb) * WST + ra + 8);\n",
    "                            al[1] = *(const oscar_u32 *)(wlo + (gq * G + hb) * WST + ra);\n",
    "                            al[3] = *(const oscar_u32 *)(wlo + (gq * G + hb) * WST + ra + 8);\n",
    "                        }\n",
    "                        const oscar_u8 *cb0 = st + I2_VC + NTQ * lg;\n",
    "#pragma unroll\n",
    "                        for (int wq = 0; wq < (NTQ + 3) / 4; wq++) {\n",
    "                            oscar_u32 w[4];\n",
    "#pragma unroll\n",
    "                            for (int r = 0; r < 4; r++) {\n",
    "                                const oscar_u8 *src = cb0 + (ra + (r & 1) + (r >> 1) * 8) * CSB + 4 * wq;\n",
    "                                w[r] = NTQ >= 4 \? *(const oscar_u32 *)src : (oscar_u32)*(const oscar_u16 *)src;\n",
    "                            }\n",
    "                            // (row a, row b) pairs: tokens 2lt, 2lt+1 -> b0; 2lt+8, 2lt+9 -> b1\n",
    "                            const oscar_u32 p0 = (__byte_perm(w[0], w[1], 0x5140u) >> (2 * qd)) & 0x03030303u;\n",
    "                            const oscar_u32 p1 = (__byte_perm(w[2], w[3], 0x5140u) >> (2 * qd)) & 0x03030303u;\n",
    "                            const oscar_u32 p2 = (__byte_perm(w[0], w[1], 0x7362u) >> (2 * qd)) & 0x03030303u;\n",
    "                            const oscar_u32 p3 = (__byte_perm(w[2], w[3], 0x7362u) >> (2 * qd)) & 0x03030303u;\n",
    "                            const oscar_u32 bq[4][2] = {{oscar_h2_codes(p0, 0x4140u), oscar_h2_codes(p1, 0x4140u)},\n",
    "                                                        {oscar_h2_codes(p0, 0x4342u), oscar_h2_codes(p1, 0x4342u)},\n",
    "                                                        {oscar_h2_codes(p2, 0x4140u), oscar_h2_codes(p3, 0x4140u)},\n",
    "                                                        {oscar_h2_codes(p2, 0x4342u), oscar_h2_codes(p3, 0x4342u)}};\n",
    "#pragma unroll\n",
    "                            for (int u = 0; u < 4; u++) {\n",
    "                                const int jn = wq * 4 + u;\n",
    "                                if (jn < NTQ) {\n",
    "                                    oscar_mma16816(ct[jn], ah[0], ah[1], ah[2], ah[3], bq[u][0], bq[u][1]);\n",
    "                                    oscar_mma16816(ct[jn], al[0], al[1], al[2], al[3], bq[u][0], bq[u][1]);\n",
    "                                }\n",
    "                            }\n",
    "                        }\n",
    "                    }\n",
    "                    const float ia = ha < G \? winv[gq * G + ha] : 0.0f, ib = hb < G \? winv[gq * G + hb] : 0.0f;\n",
    "#pragma unroll\n",
    "                    for (int jn = 0; jn < NTQ; jn++) {\n",
    "                        macc[mt][jn][0] += ct[jn][0] * ia;\n",
    "                        macc[mt][jn][1] += ct[jn][1] * ia;\n",
    "                        macc[mt][jn][2] += ct[jn][2] * ib;\n",
    "                        macc[mt][jn][3] += ct[jn][3] * ib;\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "        }\n",
    "#endif\n",
    "        if (vact) {\n",
    "#pragma unroll\n",
    "            for (int s = 0; s < HPT; s++) {\n",
    "                const float cr = corr[vhs * HPT + s];\n",
    "#pragma unroll\n",
    "                for (int i = 0; i < 16; i++) acc[s][i] *= cr;\n",
    "            }\n",
    "#if OSCAR_INT2 && !I2MMA\n",
    "            if (i2) {\n",
    "                for (int tt = vtg; tt < nv; tt += NTG) {\n",
    "                    const oscar_u32 word = *(const oscar_u32 *)(st + I2_VC + tt * CSB + 4 * vw);\n",
    "                    const oscar_u32 *vs = (const oscar_u32 *)(st + I2_VS) + tt * NGR;\n",
    "                    float dv[16]; // dequantised once, shared by the HPT heads: min + code * scale\n",
    "#pragma unroll\n",
    "                    for (int qd = 0; qd < 4; qd++) {\n",
    "                        const oscar_u32 smv = vs[(qd * (D / 4) + 4 * vw) / GS];\n",
    "                        const float vsc = oscar_f16_to_f32((oscar_u16)(smv & 0xffffu)), vmn = oscar_f16_to_f32((oscar_u16)(smv >> 16));\n",
    "                        const oscar_u32 m = (word >> (2 * qd)) & 0x03030303u;\n",
    "#pragma unroll\n",
    "                        for (int e = 0; e < 4; e++) dv[qd * 4 + e] = fmaf(oscar_byte_f(m, e), vsc, vmn);\n",
    "                    }\n",
    "#pragma unroll\n",
    "                    for (int s = 0; s < HPT; s++) {\n",
    "                        const float pf = sc[(vhs * HPT + s) * SCAP + tt];\n",
    "#pragma unroll\n",
    "                        for (int i = 0; i < 16; i++) acc[s][i] += pf * dv[i];\n",
    "                    }\n",
    "                }\n",
    "            } else\n",
    "#endif\n",
    "#if I2MMA\n",
    "            if (!i2)\n",
    "#endif\n",
    "            {\n",
    "                const oscar_u8 *vb = st + TB * RSB;\n",
    "                for (int tt = vtg; tt < nv; tt += NTG) {\n",
    "                    float vf[16];\n",
    "#pragma unroll\n",
    "                    for (int qd = 0; qd < 4; qd++) {\n",
    "                        const uint2 w = *(const uint2 *)(vb + tt * RSB + (qd * (D / 4) + 4 * vw) * 2);\n",
    "                        vf[qd * 4 + 0] = __uint_as_float(w.x << 16);\n",
    "                        vf[qd * 4 + 1] = __uint_as_float(w.x & 0xffff0000u);\n",
    "                        vf[qd * 4 + 2] = __uint_as_float(w.y << 16);\n",
    "                        vf[qd * 4 + 3] = __uint_as_float(w.y & 0xffff0000u);\n",
    "                    }\n",
    "#pragma unroll\n",
    "                    for (int s = 0; s < HPT; s++) {\n",
    "                        const float pf = sc[(vhs * HPT + s) * SCAP + tt];\n",
    "#pragma unroll\n",
    "                        for (int i = 0; i < 16; i++) acc[s][i] += pf * vf[i];\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "        }\n",
    "        __syncthreads();\n",
    "    }\n",
    "\n",
    "    // ---- reduce the token groups, write this split's partial result ----\n",
    "    float *red = (float *)smem; // [NTG][G][D]\n",
    "    if (vact) {\n",
    "#pragma unroll\n",
    "        for (int s = 0; s < HPT; s++) {\n",
    "            float *r = red + ((size_t)vtg * G + vhs * HPT + s) * D;\n",
    "#pragma unroll\n",
    "            for (int qd = 0; qd < 4; qd++)\n",
    "                *(float4 *)(r + qd * (D / 4) + 4 * vw) = make_float4(acc[s][qd * 4], acc[s][qd * 4 + 1], acc[s][qd * 4 + 2], acc[s][qd * 4 + 3]);\n",
    "        }\n",
    "    }\n",
    "    __syncthreads();\n",
    "#if I2MMA\n",
    "    {\n",
    "        const int qd = warp;\n",
    "#pragma unroll\n",
    "        for (int mt = 0; mt < MT16; mt++)\n",
    "#pragma unroll\n",
    "            for (int jn = 0; jn < NTQ; jn++)\n",
    "#pragma unroll\n",
    "                for (int e = 0; e < 4; e++) {\n",
    "                    const int h = mt * 16 + lg + (e >> 1) * 8, c = qd * (D / 4) + NTQ * (2 * lt + (e & 1)) + jn;\n",
    "                    if (h < G) red[h * D + c] += macc[mt][jn][e];\n",
    "                }\n",
    "    }\n",
    "    __syncthreads();\n",
    "#endif\n",
    "    for (int i = tid; i < G * D; i += NT) {\n",
    "        float s = 0.0f;\n",
    "#if I2MMA\n",
    "        s = accmn[(i / D) * NGR + (i % D) / GS];\n",
    "#endif\n",
    "#pragma unroll 4\n",
    "        for (int g2 = 0; g2 < NTG; g2++) s += red[(size_t)g2 * G * D + i];\n",
    "        const int h = j * G + i / D;\n",
    "        ((float *)p.part_o)[(((size_t)b * Hq + h) * p.n_splits + split) * D + (i % D)] = s;\n",
    "    }\n",
    "    if (tid < G) {\n",
    "        float *ml = (float *)p.part_ml + (((size_t)b * Hq + j * G + tid) * p.n_splits + split) * 2;\n",
    "        ml[0] = mrun[tid];\n",
    "        ml[1] = lrun[tid];\n",
    "    }\n",
    "}\n",
    "\n",
    "// the split weights of one head in a warp, up to 64 splits: lane s holds the (m, l) of splits s and s + 32 (zeros\n",
    "// where there is none). M = the max of m over the splits that saw tokens (l > 0); each split's weight exp2(m - M)\n",
    "// (0 for the others) into w0, w1; returns the sum L of weight x l (every lane: shuffles). The batch-1 merge and the\n",
    "// cluster merge take it, so the two give the same bits\n",
    "static __device__ __forceinline__ float oscar_split_weights(float m0, float l0, float m1, float l1, float &w0, float &w1) {\n",
    "    float M = OSCAR_NEG_INF;\n",
    "    if (l0 > 0.0f) M = fmaxf(M, m0);\n",
    "    if (l1 > 0.0f) M = fmaxf(M, m1);\n",
    "#pragma unroll\n",
    "    for (int x = 16; x > 0; x >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, x));\n",
    "    w0 = l0 > 0.0f \? exp2f(m0 - M) : 0.0f;\n",
    "    w1 = l1 > 0.0f \? exp2f(m1 - M) : 0.0f;\n",
    "    float L = 0.0f;\n",
    "    L += w0 * l0;\n",
    "    L += w1 * l1;\n",
    "#pragma unroll\n",
    "    for (int x = 16; x > 0; x >>= 1) L += __shfl_xor_sync(0xffffffffu, L, x);\n",
    "    return L;\n",
    "}\n",
    "\n",
    "// ---------------------------------------------------------------------------------------------\n",
    "// oscar_decode_w (issue 5): warp-owned units, no block barrier inside the loop. grid (splits, Hkv,\n",
    "// B), OSCAR_WNW warps. The units of one (sequence, KV head) are 8-row BF16 tiles (sink, window,\n",
    "// BF16 history) and TH-row INT2 history tiles; the warps of all splits take contiguous runs of\n",
    "// units of about equal bytes. Each warp stages its own units with 16-byte cp.async (OSCAR_WNS\n",
    "// buffers), keeps the online softmax in registers (max over the 4 lanes of a head: 2 shuffles per\n",
    "// unit) and P.V in registers; the warps of a block merge once at the end (one barrier); output\n",
    "// format as oscar_decode (the merge kernel combines the splits).\n",
    "// Scores: tiles of 4 heads (mh), MMA rows = head 4 mh + (r & 7) / 2, so every head appears on two\n",
    "// lane rows and lane (lg, lt) ends up with the scores of head 4 mh + lg / 2 for tokens 2 lt, 2 lt + 1\n",
    "// of each 8-token column. INT2 units: s8 x u8 m16n8k32, the query as 4 base-256 digits (rows hold\n",
    "// digit (r & 1) + 2 (r >> 3); one shuffle joins lanes 2h, 2h + 1), codes x 4^qd masked in place and\n",
    "// the query digits carry 4^-qd. BF16 units: bf16 m16n8k16 with the query split hi (rows 0-7) + lo\n",
    "// (rows 8-15).\n",
    "// P.V runs transposed (O^T = V^T P^T: M = 16 channels, N = 8 columns = 4 heads x hi/lo, K = 16\n",
    "// tokens): a lane's scores times the V scales are exactly its B operand (hi for even lg, lo for odd),\n",
    "// with no shuffles, and O takes 32 registers at G <= 4. INT2 V codes enter as fp16 1024 + code *\n",
    "// 4^qd (the byte masked to quarter qd, or-ed into 0x6400, minus 1024: exact); outputs are scaled by\n",
    "// 4^-qd at the end.\n",
    "#ifndef OSCAR_WARP // 2: this kernel for INT2 and BF16 caches, 1: INT2 only, 0: never (oscar_decode)\n",
    "#define OSCAR_WARP 2\n",
    "#endif\n",
    "// D 256: G <= 4 only, INT2 with the u8 P.V (whole 32-token k-steps)\n",
    "#if defined(OSCAR_WPV)\n",
    "#define W_D256_PV OSCAR_WPV\n",
    "#else\n",
    "#define W_D256_PV 1\n",
    "#endif\n",
    "#if OSCAR_WARP && OSCAR_MMA && (D == 64 || D == 128 || (D == 256 && G <= 4 && (!OSCAR_INT2 || ((TH % 32) == 0 && W_D256_PV)))) && G <= 8 && \\\n",
    "    ((OSCAR_INT2 && I2MMA && (D >= 128 || GS >= 32)) || (!OSCAR_INT2 && OSCAR_WARP > 1))\n",
    "#define WARPK 1\n",
    "#else\n",
    "#define WARPK 0\n",
    "#endif\n",
    "#ifndef OSCAR_WNW\n",
    "#define OSCAR_WNW 4\n",
    "#endif\n",
    "#ifndef OSCAR_WNS\n",
    "#define OSCAR_WNS 2\n",
    "#endif\n",
    "#ifndef OSCAR_WQFS // 1: score MMAs read the query digit fragments from shared memory (16 registers fewer at G <= 4)\n",
    "#define OSCAR_WQFS (G <= 4)\n",
    "#endif\n",
    "#ifndef OSCAR_WNG // score n-tiles in flight per warp (independent MMA chains)\n",
    "#define OSCAR_WNG 4\n",
    "#endif\n",
    "#ifndef OSCAR_WDC // 1: a lane's two rows of an INT2 score tile hold adjacent query digits (d, d + 1), summed as one int\n",
    "#define OSCAR_WDC 1 //  c_d + 256 c_(d+1) (|.| < 2^31) before one conversion and one product (kernels/NOTES.md v69)\n",
    "#endif\n",
    "#if WARPK\n",
    "#define WNW OSCAR_WNW\n",
    "#define WNS OSCAR_WNS\n",
    "#define WRB (D / 4)      // INT2 code row bytes\n",
    "#define WBPL (D / 32)    // V code bytes per lane and token (P.V B operand)\n",
    "#define WNB (D / 64)     // K code words per lane and token (score B operand)\n",
    "#define W_KSQ (D >= 128 \? D / 128 : 1) // s8 MMA k-steps per quarter (D 256: byte columns 0-31, 32-63)\n",
    "#define W_MH ((G + 3) / 4) // head tiles (4 heads each, hi/lo columns)\n",
    "// OSCAR_WHL (INT2, G 5-8, default on): one head per lane row. Score tiles hold all 8 heads (INT2: tile t =\n",
    "// digits 2t (rows 0-7) and 2t + 1 (rows 8-15) of heads 0-7; BF16: hi rows 0-7, lo rows 8-15), so\n",
    "// lane (lg, lt) ends up with head lg's scores for tokens 2 lt, 2 lt + 1 with no shuffle; the P.V's\n",
    "// columns are the 8 heads (hi and lo weights in two MMAs into one accumulator), so O takes 32\n",
    "// registers and each head's softmax runs once, not on two lanes.\n",
    "#ifndef OSCAR_WHL\n",
    "#define OSCAR_WHL (G > 4)\n",
    "#endif\n",
    "#define WHL (OSCAR_WHL && G > 4 && OSCAR_INT2) // BF16 caches keep the 4-head tiles (v39: level at G 8, 24% slower at G 16 batch 8)\n",
    "#define W_MO (WHL \? 1 : W_MH) // O / softmax sets per lane\n",
    "#define W_NMT (WBPL / 2)   // P.V channel tiles per quarter: row lg -> byte column WBPL lg + mt, row lg + 8 -> WBPL lg + W_NMT + mt\n",
    "#define W_NO (4 * W_NMT)   // channel tiles: jo = qd * W_NMT + mt\n",
    "#define WUB 8            // rows of a BF16 unit\n",
    "#define WHB (TH < 8 \? TH : 8)\n",
    "#define WBK (2 * D + 32) // BF16 K row stride in shared memory (bank-conflict free for the score loads)\n",
    "#define WBV (2 * D + 16) // BF16 V row stride\n",
    "#define W_BF_STAGE (WUB * WBK + WUB * WBV)\n",
    "#if OSCAR_INT2\n",
    "#define W_QPG (GS / (D / 4)) // quarters per scale group\n",
    "#define W_QPK (D >= 128 \? 1 : 2)  // quarters per s8 MMA k-step (32 byte columns; D 256: half a quarter)\n",
    "#define W_NKS (4 * W_KSQ / W_QPK) // k-steps per row\n",
    "#define W_NTT (TH / 8)\n",
    "#define W_WNG (OSCAR_WNG < W_NTT \? OSCAR_WNG : W_NTT)\n",
    "#define W_I2_V (TH * WRB)\n",
    "#define W_I2_KS (W_I2_V + (TH + TH / 4) * WRB) // V rows padded: row t at (t + t/4) * WRB\n",
    "#define W_I2_VS (W_I2_KS + TH * NGR * 4)\n",
    "#define W_I2_STAGE (W_I2_VS + TH * NGR * 4)\n",
    "#define W_STG0 (W_I2_STAGE > W_BF_STAGE \? W_I2_STAGE : W_BF_STAGE)\n",
    "#define W_HU TH\n",
    "#define W_WI (TH * 2 * (WRB + 4 * NGR) / 256 > 0 \? TH * 2 * (WRB + 4 * NGR) / 256 : 1)\n",
    "#else\n",
    "#define W_STG0 W_BF_STAGE\n",
    "#define W_HU WHB\n",
    "#define W_WI (WHB * D / 64 > 0 \? WHB * D / 64 : 1)\n",
    "#endif\n",
    "#define W_WB (WUB * D / 64) // cost of a BF16 unit, bytes / 256\n",
    "#ifdef OSCAR_WWB // diagnostics: another throughput cost of a BF16 unit\n",
    "#define W_WBT OSCAR_WWB\n",
    "#else\n",
    "#define W_WBT ((W_WI * 9 + 3) / 7) // ~1.29 INT2 units (23 at d 128, 13 at d 64)\n",
    "#endif\n",
    "#define W_STG ((W_STG0 + 127) / 128 * 128)\n",
    "#define W_QS_OFF (WNW * WNS * W_STG)\n",
    "#define W_QFI_OFF (W_QS_OFF + G * D * 4)\n",
    "#define W_QFB_OFF (W_QFI_OFF + W_MH * (D / 16) * 32 * 16)\n",
    "#define W_QM_OFF (W_QFB_OFF + W_MH * (D / 16) * 32 * 16)\n",
    "#define W_SMEM (W_QM_OFF + 4 * (8 + 8 + 8 * NGR))\n",
    "#else\n",
    "#define W_SMEM 0\n",
    "#endif\n",
    "extern \"C\" __device__ int oscar_decode_w_on = WARPK;\n",
    "extern \"C\" __device__ int oscar_decode_w_smem_bytes = W_SMEM;\n",
    "extern \"C\" __device__ int oscar_decode_w_threads = 32 * OSCAR_WNW;\n",
    "#ifndef OSCAR_WIL // 1: a block's warps take its units in turn, 0: each warp a contiguous run of them (v51:\n",
    "#define OSCAR_WIL (!OSCAR_INT2) // BF16 1-2% faster from 128K or batch 8 up; INT2 0.5-2% faster at batch 8-32 but\n",
    "#endif                          // 3% slower at 1 x 128K, so off there: kernels/NOTES.md, twenty-fourth session)\n",
    "#ifndef OSCAR_WIG // warps per group that take a region's units in turn (OSCAR_WIL: all of the block's)\n",
    "#define OSCAR_WIG (OSCAR_WIL \? OSCAR_WNW : 1)\n",
    "#endif\n",
    "#if OSCAR_WIG < 1 || OSCAR_WIG > OSCAR_WNW || OSCAR_WNW % OSCAR_WIG != 0\n",
    "#error \"OSCAR_WIG must divide OSCAR_WNW (warps per block)\"\n",
    "#endif\n",
    "#define W_WIG OSCAR_WIG\n",
    "#ifndef OSCAR_MPOLL // 1: oscar_decode_w counts the splits done and the merges poll the counts (no grid wait)\n",
    "#define OSCAR_MPOLL 1\n",
    "#endif\n",
    "extern \"C\" __device__ int oscar_merge_polls = OSCAR_MPOLL;\n",
    "\n",
    "#if WARPK\n",
    "#if WNW * G * D * 4 + WNW * G * 12 > WNW * WNS * W_STG\n",
    "#error \"warp merge buffer does not fit\"\n",
    "#endif\n",
    "static __device__ __forceinline__ void oscar_mma_bf16(float c[4], oscar_u32 a0, oscar_u32 a1, oscar_u32 a2, oscar_u32 a3, oscar_u32 b0, oscar_u32 b1) {\n",
    "    asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"\n",
    "                 : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n",
    "                 : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1));\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_b2_split(float x0, float x1, oscar_u32 *hi, oscar_u32 *lo) {\n",
    "    oscar_u32 h, l;\n",
    "    asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(h) : \"f\"(x1), \"f\"(x0));\n",
    "    const float f0 = __uint_as_float(h << 16), f1 = __uint_as_float(h & 0xffff0000u);\n",
    "    asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(l) : \"f\"(x1 - f1), \"f\"(x0 - f0));\n",
    "    *hi = h;\n",
    "    *lo = l;\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_imma(int c[4], uint4 a, oscar_u32 b0, oscar_u32 b1) {\n",
    "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"\n",
    "                 : \"+r\"(c[0]), \"+r\"(c[1]), \"+r\"(c[2]), \"+r\"(c[3])\n",
    "                 : \"r\"(a.x), \"r\"(a.y), \"r\"(a.z), \"r\"(a.w), \"r\"(b0), \"r\"(b1));\n",
    "}\n",
    "// the hi (lo == 0) or lo half pair of (x0, x1), fp16 / bf16\n",
    "static __device__ __forceinline__ oscar_u32 oscar_h2_part(float x0, float x1, int lo) {\n",
    "    oscar_u32 h, l;\n",
    "    oscar_h2_split(x0, x1, &h, &l);\n",
    "    return lo \? l : h;\n",
    "}\n",
    "static __device__ __forceinline__ oscar_u32 oscar_b2_part(float x0, float x1, int lo) {\n",
    "    oscar_u32 h, l;\n",
    "    oscar_b2_split(x0, x1, &h, &l);\n",
    "    return lo \? l : h;\n",
    "}\n",
    "static __device__ __forceinline__ void oscar_cp_async16_zero(void *smem, const void *gmem) {\n",
    "    oscar_u32 s = (oscar_u32)__cvta_generic_to_shared(smem);\n",
    "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, 0;\\n\" ::\"r\"(s), \"l\"(gmem));\n",
    "}\n",
    "// fp16 codes of quarter qd from a byte-pair word (bytes 0 and 2 hold the codes of the two halves)\n",
    "static __device__ __forceinline__ oscar_u32 oscar_w_codes(oscar_u32 x, int qd) {\n",
    "    oscar_u32 o, r;\n",
    "    // (x & mask) | 0x6400 halves in one lop3 (ptxas emitted an and and an or for the C form)\n",
    "    asm(\"lop3.b32 %0, %1, %2, %3, 0xea;\" : \"=r\"(r) : \"r\"(x), \"r\"(0x00030003u << (2 * qd)), \"r\"(0x64006400u));\n",
    "    asm(\"sub.f16x2 %0, %1, %2;\" : \"=r\"(o) : \"r\"(r), \"r\"(0x64006400u));\n",
    "    return o;\n",
    "}\n",
    "\n",
    "// 2^x by the MUFU alone (exp2f adds a denormal-range fix-up around it: 4 more instructions per\n",
    "// call); weights below 2^-126 of the running max flush to 0\n",
    "static __device__ __forceinline__ float oscar_ex2(float x) {\n",
    "    float y;\n",
    "    asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n",
    "    return y;\n",
    "}\n",
    "\n",
    "// INT2 P.V on u8 x u8 tensor cores (where a unit holds whole 32-token k-steps):\n",
    "// the V codes masked in place (code x 4^qd, one lop3 per 4 codes) against the weights p * scale\n",
    "// as three base-256 digits of 23-bit fixed point, scaled per head and unit so that the unit's\n",
    "// largest weight is just below 2^23 (each weight within 2^-24 of that largest one; 16 bits were\n",
    "// not enough: the min term sum p z cancels most of the code term), summed exactly in int32 over\n",
    "// the unit (digits 0-1 in one n-tile, digit 2 in a second) and added to the fp32 O once per\n",
    "// channel tile: 18% fewer instructions per unit. The default since the warps split their units by\n",
    "// time (v29): 1-2% faster at batch 8-32, level at batch 1 on the H100 (kernels/NOTES.md, v25, v29).\n",
    "// -DOSCAR_WPV=0: fp16 MMAs on converted codes with hi / lo weights (two ops per 2 codes)\n",
    "#ifndef OSCAR_WQFIRST // 1: the query's loads before the first units' copies (kernels/NOTES.md v30)\n",
    "#define OSCAR_WQFIRST 1\n",
    "#endif\n",
    "#ifndef OSCAR_WBEQ // 1: where warps walk few units, a BF16 unit costs as much as an INT2 unit\n",
    "#define OSCAR_WBEQ 1\n",
    "#endif\n",
    "#ifndef OSCAR_WPV\n",
    "#define OSCAR_WPV (G <= 4) // measured at G 4 (d 64 G 3 and d 128 G 8: kernels/NOTES.md v29)\n",
    "#endif\n",
    "#define WPVK (OSCAR_WPV && OSCAR_INT2 && (TH % 32) == 0 && !WHL) // INT2 units of whole 32-token k-steps only\n",
    "#if WPVK\n",
    "static __device__ __forceinline__ void oscar_imma_u8(int c[4], oscar_u32 a0, oscar_u32 a1, oscar_u32 a2, oscar_u32 a3, oscar_u32 b0, oscar_u32 b1) {\n",
    "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\\n\"\n",
    "                 : \"+r\"(c[0]), \"+r\"(c[1]), \"+r\"(c[2]), \"+r\"(c[3])\n",
    "                 : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"r\"(b0), \"r\"(b1));\n",
    "}\n",
    "#endif\n",
    "\n",
    "#ifndef OSCAR_WMINB // resident blocks per SM the register allocation must allow\n",
    "#define OSCAR_WMINB (WHL && D <= 128 \? 12 / WNW : G > 4 || D > 128 \? 8 / WNW : 16 / WNW) // WHL G 8: 3 blocks of 4 warps, no spill (v39)\n",
    "#endif\n",
    "// -DOSCAR_WPROF=N (diagnostics only): the first N blocks of each oscar_decode_w launch record their\n",
    "// SM, start / end times (globaltimer ns, clock64 cycles), each warp's end and its units (all, BF16)\n",
    "// in oscar_wprof[16 N]; `bench --gpu` with OSCAR_WPROF_OUT=FILE reads them after a call\n",
    "#ifdef OSCAR_WPROF\n",
    "extern \"C\" {\n",
    "__device__ unsigned long long oscar_wprof[OSCAR_WPROF * 16];\n",
    "}\n",
    "#endif\n",
    "// the block's weights for head h from the warps' (m, l) in wml[warp][G][2]: M = the max over the warps that saw tokens\n",
    "// (l > 0), f[w] = exp2(m_w - M) (0 for a warp without tokens), also stored to fo[w] where FO; returns L = sum f[w] l_w,\n",
    "// summed in warp order\n",
    "template <int NW, int NG, bool FO>\n",
    "static __device__ __forceinline__ float oscar_warp_weights(const float *wml, int h, float &M, float (&f)[NW], float *fo) {\n",
    "    float L = 0.0f;\n",
    "    M = OSCAR_NEG_INF;\n",
    "#pragma unroll\n",
    "    for (int w = 0; w < NW; w++)\n",
    "        if (wml[(w * NG + h) * 2 + 1] > 0.0f) M = fmaxf(M, wml[(w * NG + h) * 2]);\n",
    "#pragma unroll\n",
    "    for (int w = 0; w < NW; w++) {\n",
    "        const float l = wml[(w * NG + h) * 2 + 1];\n",
    "        f[w] = l > 0.0f \? exp2f(wml[(w * NG + h) * 2] - M) : 0.0f;\n",
    "        L += f[w] * l;\n",
    "        if (FO) fo[w] = f[w];\n",
    "    }\n",
    "    return L;\n",
    "}\n",
    "// the kernel's body; WIG: warps per group taking a region's units in turn (W_WIG for oscar_decode_w, WNW for\n",
    "// oscar_decode_w_il); CM 1: the splits of a (sequence, query-head group) are one thread block cluster, which\n",
    "// merges their partials through distributed shared memory and writes the outputs (no merge launch; v55)\n",
    "template <int WIG, int CM>\n",
    "static __device__ __forceinline__ void oscar_decode_w_body(const oscar_attn_params &p) {\n",
    "    extern __shared__ __align__(16) oscar_u8 smem[];\n",
    "    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, lg = lane >> 2, lt = lane & 3;\n",
    "    const int split = blockIdx.x, j = blockIdx.y, b = blockIdx.z, jk = j / OSCAR_HSPLIT; // j: query-head group, jk: its KV head\n",
    "    const int Hq = p.Hkv * OSCAR_HSPLIT * G;\n",
    "#define W_PH(k) OSCAR_PHASE(oscar_wph, OSCAR_WPROF, k, wpc0) // a phase of the block (-DOSCAR_WPROF)\n",
    "#ifdef OSCAR_WPROF\n",
    "    const unsigned wpb = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n",
    "    unsigned long long *wpr = wpb < OSCAR_WPROF && WNW <= 4 \? oscar_wprof + 16 * (size_t)wpb : 0;\n",
    "    const long long wpc0 = clock64();\n",
    "    if (wpr && tid == 0) {\n",
    "        unsigned sm;\n",
    "        asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(sm));\n",
    "        wpr[0] = sm;\n",
    "        wpr[1] = oscar_gtime();\n",
    "    }\n",
    "#endif\n",
    "    // oscar_merge may be placed now: it waits for this grid (or its KV head's count) before reading. The cluster-merge\n",
    "    // kernels, whose next kernel is the next call's decode, let it in only at their end (placed early, its blocks\n",
    "    // would take the free slots of the SMs unevenly)\n",
    "    if (!CM) oscar_pdl_launch();\n",
    "    const int slot = p.seqinfo \? ((const int *)p.seqinfo)[2 * b] : p.inline_info[2 * b];\n",
    "    const int n = p.seqinfo \? ((const int *)p.seqinfo)[2 * b + 1] : p.inline_info[2 * b + 1];\n",
    "    const int ns = n < p.S0 \? n : p.S0;\n",
    "    const int H = n >= p.S0 + p.W \? p.P * ((n - p.S0 - p.W) / p.P) : 0;\n",
    "    const int nw = n - ns - H;\n",
    "    const int tsu = (ns + WUB - 1) / WUB, thu = H / W_HU, twu = (nw + WUB - 1) / WUB;\n",
    "    const int U = tsu + thu + twu;\n",
    "    const int TW = p.n_splits * WNW, gw = split * WNW + warp;\n",
    "    // The warps split the units by cost. A BF16 unit costs as much as an INT2 unit where warps walk\n",
    "    // few units (their time is the units' latency, about equal for both kinds), and W_WBT where they\n",
    "    // walk many (SM-throughput bound: an 8-row BF16 unit takes ~1.2-1.26x the time of a 64-row INT2\n",
    "    // unit there; measured per warp by -DOSCAR_WPROF, kernels/NOTES.md v29, v30).\n",
    "    const bool wmany = (long long)(tsu + twu) * W_WB + (long long)thu * W_WI >= 8LL * W_WI * TW;\n",
    "    const long long wb = !OSCAR_INT2 \? W_WB : wmany \? W_WBT : OSCAR_WBEQ \? W_WI : W_WB;\n",
    "    const long long C = (long long)(tsu + twu) * wb + (long long)thu * W_WI;\n",
    "    auto first_unit = [&](long long c) -> int {\n",
    "        if (c <= 0) return 0;\n",
    "        const long long a = (long long)tsu * wb;\n",
    "        if (c <= a) return (int)((c + wb - 1) / wb);\n",
    "        c -= a;\n",
    "        const long long bb = (long long)thu * W_WI;\n",
    "        if (c <= bb) return tsu + (int)((c + W_WI - 1) / W_WI);\n",
    "        c -= bb;\n",
    "        const int u = tsu + thu + (int)((c + wb - 1) / wb);\n",
    "        return u < U \? u : U;\n",
    "    };\n",
    "    // WIG > 1: groups of WIG warps take their group's units in turn (unit ua, ua + WIG, ...): WNW / WIG\n",
    "    // regions read by the block at a time instead of WNW (kernels/NOTES.md v51)\n",
    "    const int gsub = split * (WNW / WIG) + warp / WIG, TG = p.n_splits * (WNW / WIG);\n",
    "    const int ua = WIG == 1 \? first_unit(C * gw / TW) : WIG == WNW \? first_unit(C * split / p.n_splits) + warp : first_unit(C * gsub / TG) + warp % WIG;\n",
    "    const int ub = WIG == 1 \? first_unit(C * (gw + 1) / TW) : WIG == WNW \? first_unit(C * (split + 1) / p.n_splits) : first_unit(C * (gsub + 1) / TG);\n",
    "#define W_US WIG\n",
    "\n",
    "    const size_t slab = ((size_t)slot * p.L + p.layer) * p.Hkv + jk;\n",
    "    const oscar_u8 *sinkK = (const oscar_u8 *)p.sink + slab * 2 * p.S0 * (D * 2);\n",
    "    const oscar_u8 *sinkV = sinkK + (size_t)p.S0 * (D * 2);\n",
    "    const oscar_u8 *winK = (const oscar_u8 *)p.win + slab * 2 * p.ring * (D * 2);\n",
    "    const oscar_u8 *winV = winK + (size_t)p.ring * (D * 2);\n",
    "    const int *bt = (const int *)p.bt + (size_t)slot * p.max_blocks;\n",
    "    oscar_u8 *wst = smem + warp * WNS * W_STG;\n",
    "\n",
    "    // ---- staging of one unit by this warp ----\n",
    "    // this (layer, KV head)'s page p of the pool is at hpool + p * hpage (history units of either kind)\n",
    "    const oscar_u8 *hpool = (const oscar_u8 *)p.pool + ((size_t)p.layer * p.max_pages * p.Hkv + jk) * (size_t)p.head_page_bytes;\n",
    "    const size_t hpage = (size_t)p.Hkv * (size_t)p.head_page_bytes;\n",
    "#if OSCAR_INT2\n",
    "    // An INT2 unit's copies: every per-lane offset is fixed for the warp (the unit's page base\n",
    "    // changes, and with it only one 64-bit add per kind of chunk; the page size is a compile-time\n",
    "    // constant, so no division either): K codes, V codes (rows padded in shared memory: row t at\n",
    "    // (t + t / 4) * WRB), then the K and V scales\n",
    "    // (the lane number from %laneid, which the compiler cannot bound: with tid & 31 it turns\n",
    "    // lane * 16 + 512 k into an or, and then cannot fold the 512 k into the copies' addresses)\n",
    "    // (WIG > 1: the lane number and the V rows' offset are recomputed in each issue, which keeps the\n",
    "    // INT2 unit loop within 128 registers without a spill)\n",
    "    int w_lane;\n",
    "    asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(w_lane));\n",
    "    // the lane's V-code destination: + 32 / (WRB / 16) rows per step\n",
    "#define W_VDST_OF(l) (W_I2_V + ((oscar_u32)(l) / (WRB / 16) + (((oscar_u32)(l) / (WRB / 16)) >> 2)) * WRB + ((oscar_u32)(l) % (WRB / 16)) * 16)\n",
    "    const oscar_u32 w_vdst0 = WIG == 1 \? W_VDST_OF(w_lane) : 0u;\n",
    "#define W_NCK (TH * WRB / 16) // 16-byte chunks of a unit's K (or V) codes\n",
    "#define W_NSC (TH * NGR / 4) // 16-byte chunks of a unit's K (or V) scales\n",
    "#endif\n",
    "    auto issue = [&](int u, oscar_u8 *st) {\n",
    "#if OSCAR_INT2\n",
    "        if (u >= tsu && u < tsu + thu) {\n",
    "            const int tok0 = (u - tsu) * TH, r0 = tok0 % PP;\n",
    "            const oscar_u8 *base = hpool + (size_t)bt[tok0 / PP] * hpage;\n",
    "            if (WIG > 1) asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(w_lane));\n",
    "            const oscar_u32 w_vdst = WIG == 1 \? w_vdst0 : W_VDST_OF(w_lane);\n",
    "            const oscar_u8 *kb = base + r0 * WRB + w_lane * 16, *vb = kb + PP * (WRB + NGR * 4);\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < (W_NCK + 31) / 32; k++)\n",
    "                if (W_NCK % 32 == 0 || w_lane + 32 * k < W_NCK) oscar_cp_async16(st + w_lane * 16 + k * 512, kb + k * 512);\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < (W_NCK + 31) / 32; k++)\n",
    "                if (W_NCK % 32 == 0 || w_lane + 32 * k < W_NCK) oscar_cp_async16(st + w_vdst + k * (32 / (WRB / 16)) * 5 / 4 * WRB, vb + k * 512);\n",
    "            const oscar_u8 *sb = base + PP * WRB + r0 * NGR * 4;\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < (2 * W_NSC + 31) / 32; k++) {\n",
    "                const int c = w_lane + 32 * k, kv = c / W_NSC, i = c % W_NSC;\n",
    "                if ((2 * W_NSC) % 32 == 0 || c < 2 * W_NSC)\n",
    "                    oscar_cp_async16(st + W_I2_KS + kv * (W_I2_VS - W_I2_KS) + i * 16, sb + kv * (PP * (WRB + NGR * 4)) + i * 16);\n",
    "            }\n",
    "            return;\n",
    "        }\n",
    "#endif\n",
    "        // a BF16 unit: rows row0 + r (r < nr) of a K and a V row array (the sink, a history page, or\n",
    "        // the window ring, whose index wraps at wrap: row0 < wrap and nr <= wrap, so once at most),\n",
    "        // chosen once per unit; rows past nr are zero-filled\n",
    "        int nr, row0, wrap = 0x40000000;\n",
    "        const oscar_u8 *bk, *bv;\n",
    "        if (u < tsu) {\n",
    "            row0 = u * WUB;\n",
    "            nr = ns - row0 < WUB \? ns - row0 : WUB;\n",
    "            bk = sinkK, bv = sinkV;\n",
    "        } else if (u >= tsu + thu) {\n",
    "            const int t0 = (u - tsu - thu) * WUB;\n",
    "            nr = nw - t0 < WUB \? nw - t0 : WUB;\n",
    "            row0 = (H + t0) % p.ring, wrap = p.ring;\n",
    "            bk = winK, bv = winV;\n",
    "        } else {\n",
    "            const int t0 = (u - tsu) * W_HU;\n",
    "            nr = W_HU;\n",
    "            bk = hpool + (size_t)bt[t0 / PP] * hpage;\n",
    "            bv = bk + (size_t)PP * (D * 2);\n",
    "            row0 = t0 % PP;\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int c = lane; c < 2 * WUB * (D / 8); c += 32) {\n",
    "            const int kv = c / (WUB * (D / 8)), r = (c / (D / 8)) % WUB, ch = c % (D / 8);\n",
    "            oscar_u8 *dst = st + (kv \? WUB * WBK + r * WBV : r * WBK) + ch * 16;\n",
    "            if (r < nr) {\n",
    "                int row = row0 + r;\n",
    "                if (row >= wrap) row -= wrap;\n",
    "                oscar_cp_async16(dst, (kv \? bv : bk) + (size_t)row * (D * 2) + ch * 16);\n",
    "            } else {\n",
    "                oscar_cp_async16_zero(dst, sinkK);\n",
    "            }\n",
    "        }\n",
    "    };\n",
    "\n",
    "    // first units in flight before the query preparation (OSCAR_WQFIRST 0), or only the first\n",
    "    // unit's block-table entry fetched and the copies issued after the query's loads (1)\n",
    "#if !OSCAR_WQFIRST\n",
    "#pragma unroll\n",
    "    for (int s = 0; s < WNS - 1; s++) {\n",
    "        if (ua + s * W_US < ub) issue(ua + s * W_US, wst + s * W_STG);\n",
    "        oscar_cp_commit();\n",
    "    }\n",
    "#else\n",
    "    if (ua < ub && ua >= tsu && ua < tsu + thu) asm volatile(\"prefetch.global.L1 [%0];\" ::\"l\"(bt + (ua - tsu) * W_HU / p.P));\n",
    "#if OSCAR_INT2 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "    // p.l2pf > 0 (the host's choice, kernels/NOTES.md v57): the warp's first l2pf INT2 units prefetched into L2 by\n",
    "    // bulk prefetches (one per run: K codes, K scales, V codes, V scales) while the block waits for the previous\n",
    "    // kernel, whose end leaves the memory system idle. A prefetch moves no data into the SM and reads nothing the\n",
    "    // previous kernel writes (the block tables come by host copies); the page index is bounded, so a stale entry\n",
    "    // can only name a line of the pool\n",
    "    if (lane < 4 * p.l2pf) {\n",
    "        const int u = ua + (lane >> 2) * W_US, r = lane & 3;\n",
    "        if (u < ub && u >= tsu && u < tsu + thu) {\n",
    "            const int tok0 = (u - tsu) * TH, r0 = tok0 % PP;\n",
    "            int pg = bt[tok0 / PP];\n",
    "            pg = pg < 0 \? 0 : pg >= p.max_pages \? p.max_pages - 1 : pg;\n",
    "            const oscar_u8 *base = hpool + (size_t)pg * hpage + (r >> 1) * PP * (WRB + NGR * 4);\n",
    "            const oscar_u8 *a = (r & 1) \? base + PP * WRB + r0 * NGR * 4 : base + r0 * WRB;\n",
    "            const unsigned nb = (r & 1) \? TH * NGR * 4 : TH * WRB;\n",
    "            asm volatile(\"cp.async.bulk.prefetch.L2.global [%0], %1;\" ::\"l\"(a), \"r\"(nb) : \"memory\");\n",
    "        }\n",
    "    }\n",
    "#endif\n",
    "#endif\n",
    "\n",
    "    // ---- queries: s8 digit fragments (INT2, power-of-two normalised per head, x 4^-qd) and\n",
    "    // bf16 hi/lo fragments (BF16 rows); per head: 1 / normaliser and the sum over each group, both\n",
    "    // times the softmax scale (log2 domain) ----\n",
    "    float *qs = (float *)(smem + W_QS_OFF);\n",
    "    uint4 *qfi = (uint4 *)(smem + W_QFI_OFF);\n",
    "    uint4 *qfb = (uint4 *)(smem + W_QFB_OFF);\n",
    "    float *qmul = (float *)(smem + W_QM_OFF), *qiv = qmul + 8, *qsm = qiv + 8; // [8], [8], [8][NGR]\n",
    "    {\n",
    "        const float *qg = (const float *)p.q + ((size_t)b * Hq + (size_t)j * G) * D;\n",
    "        oscar_pdl_wait(); // the query rotation has finished (nothing before this point reads it)\n",
    "#ifdef OSCAR_WPROF\n",
    "        if (wpr && tid == 0) {\n",
    "            wpr[13] = (unsigned long long)(clock64() - wpc0);\n",
    "            wpr[2] = oscar_gtime();\n",
    "        }\n",
    "#endif\n",
    "#if OSCAR_WQFIRST\n",
    "        float qv[(G * D + 32 * WNW - 1) / (32 * WNW)];\n",
    "#pragma unroll\n",
    "        for (int k = 0; k < (G * D + 32 * WNW - 1) / (32 * WNW); k++) qv[k] = tid + k * 32 * WNW < G * D \? qg[tid + k * 32 * WNW] : 0.0f;\n",
    "#pragma unroll\n",
    "        for (int s = 0; s < WNS - 1; s++) {\n",
    "            if (ua + s * W_US < ub) issue(ua + s * W_US, wst + s * W_STG);\n",
    "            oscar_cp_commit();\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int k = 0; k < (G * D + 32 * WNW - 1) / (32 * WNW); k++)\n",
    "            if (tid + k * 32 * WNW < G * D) qs[tid + k * 32 * WNW] = qv[k];\n",
    "#else\n",
    "        for (int i = tid; i < G * D; i += 32 * WNW) qs[i] = qg[i];\n",
    "#endif\n",
    "        __syncthreads();\n",
    "        W_PH(0);\n",
    "    }\n",
    "    if (p.qwht) {\n",
    "        // the queries arrive unrotated and every rotation is H: q . H here, a warp per head, by the\n",
    "        // write path's transform (oscar_wht_row: the CPU's oscar_wht, bit for bit). No oscar_rotate_q\n",
    "        // launch, so no grid-to-grid wait on the call's chain (kernels/NOTES.md v45)\n",
    "        for (int hd = warp; hd < G; hd += WNW) {\n",
    "            float v[D / 32];\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) v[t] = qs[hd * D + lane + 32 * t];\n",
    "            oscar_wht_row<D>(v, lane);\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) qs[hd * D + lane + 32 * t] = v[t];\n",
    "        }\n",
    "        __syncthreads();\n",
    "        W_PH(1);\n",
    "    }\n",
    "#if OSCAR_INT2\n",
    "    for (int h = warp; h < 4 * W_MH; h += WNW) { // the heads of the score tiles; those >= G get zeros\n",
    "        if (h >= G) { // warp-uniform\n",
    "            if (lane == 0) qmul[h] = qiv[h] = 0.0f;\n",
    "            if (lane < NGR) qsm[h * NGR + lane] = 0.0f;\n",
    "            continue;\n",
    "        }\n",
    "        float m = 0.0f, s[NGR];\n",
    "#pragma unroll\n",
    "        for (int c = lane; c < D; c += 32) m = fmaxf(m, fabsf(qs[h * D + c]));\n",
    "#pragma unroll\n",
    "        for (int g = 0; g < NGR; g++) { // group sums by the warp\n",
    "            s[g] = 0.0f;\n",
    "#pragma unroll\n",
    "            for (int c = lane; c < GS; c += 32) s[g] += qs[h * D + g * GS + c];\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int o = 16; o > 0; o >>= 1) {\n",
    "            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));\n",
    "#pragma unroll\n",
    "            for (int g = 0; g < NGR; g++) s[g] += __shfl_xor_sync(0xffffffffu, s[g], o);\n",
    "        }\n",
    "        if (lane == 0) {\n",
    "            float inv;\n",
    "            qmul[h] = oscar_pow2_norm(m > 0.0f \? m : 1.0f, &inv);\n",
    "            qiv[h] = inv * p.scale_log2;\n",
    "#pragma unroll\n",
    "            for (int g = 0; g < NGR; g++) qsm[h * NGR + g] = s[g] * p.scale_log2;\n",
    "        }\n",
    "    }\n",
    "    __syncthreads();\n",
    "    W_PH(2);\n",
    "#endif\n",
    "    for (int i = tid; i < W_MO * (D / 16) * 32; i += 32 * WNW) { // [mh][ks][lane]; row r of tile mh: head 4 mh + (r & 7) / 2 (WHL: head r & 7)\n",
    "#if WHL\n",
    "        const int ln = i % 32, ks = (i / 32) % (D / 16), h = ln >> 2, t = ln & 3;\n",
    "#else\n",
    "        const int ln = i % 32, ks = (i / 32) % (D / 16), h = 4 * (i / (32 * (D / 16))) + (ln >> 3), t = ln & 3;\n",
    "#endif\n",
    "        uint4 fb = make_uint4(0, 0, 0, 0);\n",
    "        if (h < G) {\n",
    "            const int cb = 16 * ks + 4 * t;\n",
    "            oscar_b2_split(qs[h * D + cb], qs[h * D + cb + 1], &fb.x, &fb.y);\n",
    "            oscar_b2_split(qs[h * D + cb + 2], qs[h * D + cb + 3], &fb.z, &fb.w);\n",
    "        }\n",
    "        qfb[i] = fb;\n",
    "    }\n",
    "    W_PH(4);\n",
    "#if OSCAR_INT2\n",
    "    // INT2 scores: the query as 4 signed base-256 digits per element, v = rint(q * qmul * 2^15 * 4^-qd)\n",
    "    // (|v| < 2^30; every bit of the fp32 query kept down to 2^-30 of the head's max), for\n",
    "    // m16n8k32 s8 x u8 MMAs: A row r of tile mh = head 4 mh + (r & 7) / 2, digit (r & 1) + 2 (r >> 3)\n",
    "    // (OSCAR_WDC: digit 2 (r & 1) + (r >> 3), so that a lane's rows r and r + 8 hold digits d, d + 1);\n",
    "    // D 128: k-step = quarter, k = 4 lt + b <-> byte column 8 lt + b, k = 16 + 4 lt + b <-> 8 lt + 4 + b;\n",
    "    // D 64: k-step ks = quarters 2 ks (k < 16) and 2 ks + 1, k = 4 lt + b (+16) <-> byte column 4 lt + b\n",
    "    for (int i = tid; i < W_MH * W_NKS * 32; i += 32 * WNW) {\n",
    "#if WHL\n",
    "        // WHL: tile t = i / (32 W_NKS), row lq: head lq, digit 2 t (regs 0 / 2), row lq + 8: digit 2 t + 1 (regs 1 / 3)\n",
    "        const int ln = i % 32, ks = (i / 32) % W_NKS, lq = ln >> 2, tq = ln & 3, h = lq, dlo = 2 * (i / (32 * W_NKS));\n",
    "#else\n",
    "        const int ln = i % 32, ks = (i / 32) % W_NKS, lq = ln >> 2, tq = ln & 3, h = 4 * (i / (32 * W_NKS)) + (lq >> 1);\n",
    "#endif\n",
    "        oscar_u32 r[4] = {0u, 0u, 0u, 0u};\n",
    "        if (h < G) {\n",
    "            // regs 0 / 2 hold digit k = lq & 1 of columns khi = 0 / 1, regs 1 / 3 digit 2 + k. The\n",
    "            // signed digits in closed form: u = v + 0x808080 has bytes e0, e1, e2 (digit + 128) and\n",
    "            // the top digit as its signed top byte, so digit byte k < 3 is byte k of u ^ 0x80 and\n",
    "            // digit 3 is byte 3 (|v| < 2^30: the top digit lies in [-64, 64])\n",
    "#if WHL\n",
    "            const int k = dlo, k2 = dlo + 1; // digits of regs 0 / 2 and 1 / 3\n",
    "#elif OSCAR_WDC\n",
    "            const int k = 2 * (lq & 1), k2 = k + 1;\n",
    "#else\n",
    "            const int k = lq & 1, k2 = k + 2;\n",
    "#endif\n",
    "            const oscar_u32 slo = (oscar_u32)(k | (k + 4) << 4), shi = (oscar_u32)(k2 | (k2 + 4) << 4);\n",
    "#pragma unroll\n",
    "            for (int khi = 0; khi < 2; khi++) {\n",
    "                oscar_u32 u[4];\n",
    "#pragma unroll\n",
    "                for (int b = 0; b < 4; b++) {\n",
    "#if D >= 128\n",
    "                    const int qd = ks / W_KSQ, col = 32 * (ks % W_KSQ) + 8 * tq + 4 * khi + b;\n",
    "#else\n",
    "                    const int qd = 2 * ks + khi, col = 4 * tq + b;\n",
    "#endif\n",
    "                    const float f = qmul[h] * 32768.0f * (qd == 0 \? 1.0f : qd == 1 \? 0.25f : qd == 2 \? 0.0625f : 0.015625f);\n",
    "                    u[b] = (oscar_u32)__float2int_rn(qs[h * D + qd * (D / 4) + col] * f) + 0x808080u;\n",
    "                }\n",
    "                r[2 * khi] = __byte_perm(__byte_perm(u[0], u[1], slo), __byte_perm(u[2], u[3], slo), 0x5410) ^ 0x80808080u;\n",
    "                r[2 * khi + 1] = __byte_perm(__byte_perm(u[0], u[1], shi), __byte_perm(u[2], u[3], shi), 0x5410) ^ (k2 == 3 \? 0u : 0x80808080u);\n",
    "            }\n",
    "        }\n",
    "        qfi[i] = make_uint4(r[0], r[1], r[2], r[3]);\n",
    "    }\n",
    "    W_PH(5);\n",
    "#endif\n",
    "    __syncthreads();\n",
    "    W_PH(6);\n",
    "    const int hl = lg >> 1, part = lg & 1; // this lane's head in each tile (4 mh + hl), its B half (hi / lo)\n",
    "#if OSCAR_INT2\n",
    "    // the P.V loads of V codes: tokens 8 m + 2 lt + e (e < 2) sit at padded rows 10 m + e + 2 lt + lt / 2\n",
    "    const int w_vl = W_I2_V + (2 * lt + (lt >> 1)) * WRB + WBPL * lg;\n",
    "#if OSCAR_WQFS\n",
    "#define W_QF(mh, ks) qfi[((mh) * W_NKS + (ks)) * 32 + lane]\n",
    "#else\n",
    "    uint4 qf[W_MH][W_NKS];\n",
    "#define W_QF(mh, ks) qf[mh][ks]\n",
    "#endif\n",
    "    float qwl[W_MH], qwh[W_MH], qsmh[W_MO][NGR], pm[W_MO][NGR];\n",
    "#pragma unroll\n",
    "    for (int mh = 0; mh < W_MH; mh++) {\n",
    "#if !OSCAR_WQFS\n",
    "#pragma unroll\n",
    "        for (int ks = 0; ks < W_NKS; ks++) qf[mh][ks] = qfi[(mh * W_NKS + ks) * 32 + lane];\n",
    "#endif\n",
    "#if WHL\n",
    "        // tile mh holds digits 2 mh (c[0], c[1]) and 2 mh + 1 (c[2], c[3]) of head lg: weights 2^(8 digit - 15)\n",
    "        qwl[mh] = qiv[lg] * (mh \? 2.0f : 3.0517578125e-05f);\n",
    "        qwh[mh] = qiv[lg] * (mh \? 512.0f : 0.0078125f);\n",
    "#elif OSCAR_WDC\n",
    "        // digits 2 part and 2 part + 1 of the query (c[0] + 256 c[2]): the weight of the first, 2^(8 digit - 15), times 1 /\n",
    "        // normaliser (qwh unused)\n",
    "        qwl[mh] = qiv[4 * mh + hl] * (part \? 2.0f : 3.0517578125e-05f);\n",
    "        qwh[mh] = 0.0f;\n",
    "#else\n",
    "        // digits (lg & 1) and 2 + (lg & 1) of the query: weights 2^(8 digit - 15), times 1 / normaliser\n",
    "        qwl[mh] = qiv[4 * mh + hl] * (part \? 0.0078125f : 3.0517578125e-05f);\n",
    "        qwh[mh] = qiv[4 * mh + hl] * (part \? 512.0f : 2.0f);\n",
    "#endif\n",
    "    }\n",
    "#pragma unroll\n",
    "    for (int mh = 0; mh < W_MO; mh++)\n",
    "#pragma unroll\n",
    "        for (int g = 0; g < NGR; g++) {\n",
    "            qsmh[mh][g] = qsm[(WHL \? lg : 4 * mh + hl) * NGR + g];\n",
    "            pm[mh][g] = 0.0f;\n",
    "        }\n",
    "#endif\n",
    "\n",
    "    float O[W_MO][W_NO][4]; // O^T fragments: rows = channels, columns 2 lt / 2 lt + 1 = head 4 mh + lt hi / lo (WHL: heads 2 lt, 2 lt + 1)\n",
    "#pragma unroll\n",
    "    for (int mh = 0; mh < W_MO; mh++)\n",
    "#pragma unroll\n",
    "        for (int jo = 0; jo < W_NO; jo++) O[mh][jo][0] = O[mh][jo][1] = O[mh][jo][2] = O[mh][jo][3] = 0.0f;\n",
    "    float mrun[W_MO], lrun[W_MO];\n",
    "#pragma unroll\n",
    "    for (int mh = 0; mh < W_MO; mh++) {\n",
    "        mrun[mh] = OSCAR_NEG_INF;\n",
    "        lrun[mh] = 0.0f;\n",
    "    }\n",
    "\n",
    "    // online softmax over a unit's scores s[nt][2] (tokens nt*8 + 2lt, +1 of head 4 mh + hl); the\n",
    "    // O rows of this lane belong to head 4 mh + lt, whose correction lane 8 lt holds\n",
    "#define W_SOFTMAX(NTTX, s, mh)                                                                  \\\n",
    "    {                                                                                           \\\n",
    "        float mx = OSCAR_NEG_INF;                                                               \\\n",
    "        _Pragma(\"unroll\") for (int nt = 0; nt < NTTX; nt++) mx = fmaxf(mx, fmaxf(s[nt][0], s[nt][1])); \\\n",
    "        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));                                    \\\n",
    "        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));                                    \\\n",
    "        const float mnew = fmaxf(mrun[mh], mx);                                                 \\\n",
    "        const float corr = oscar_ex2(mrun[mh] - mnew);                                          \\\n",
    "        if (__any_sync(0xffffffffu, mnew != mrun[mh])) {                                        \\\n",
    "            const float co = __shfl_sync(0xffffffffu, corr, 8 * lt);                            \\\n",
    "            const float co1 = WHL \? __shfl_sync(0xffffffffu, corr, 8 * lt + 4) : co; /* WHL: head 2 lt + 1 */ \\\n",
    "            _Pragma(\"unroll\") for (int jo = 0; jo < W_NO; jo++) {                               \\\n",
    "                O[mh][jo][0] *= co;                                                             \\\n",
    "                O[mh][jo][1] *= co1;                                                            \\\n",
    "                O[mh][jo][2] *= co;                                                             \\\n",
    "                O[mh][jo][3] *= co1;                                                            \\\n",
    "            }                                                                                   \\\n",
    "            W_PM_SCALE(mh, corr)                                                                \\\n",
    "            lrun[mh] *= corr;                                                                   \\\n",
    "        }                                                                                       \\\n",
    "        mrun[mh] = mnew;                                                                        \\\n",
    "        _Pragma(\"unroll\") for (int nt = 0; nt < NTTX; nt++) {                                   \\\n",
    "            s[nt][0] = oscar_ex2(s[nt][0] - mnew);                                              \\\n",
    "            s[nt][1] = oscar_ex2(s[nt][1] - mnew);                                              \\\n",
    "            lrun[mh] += s[nt][0] + s[nt][1];                                                    \\\n",
    "        }                                                                                       \\\n",
    "    }\n",
    "#if OSCAR_INT2\n",
    "#define W_PM_SCALE(mh, corr) _Pragma(\"unroll\") for (int g = 0; g < NGR; g++) pm[mh][g] *= corr;\n",
    "#else\n",
    "#define W_PM_SCALE(mh, corr)\n",
    "#endif\n",
    "\n",
    "    // ---- the warp's units ----\n",
    "#ifdef OSCAR_WPROF\n",
    "    if (wpr && tid == 0) wpr[14] = (unsigned long long)(clock64() - wpc0);\n",
    "#endif\n",
    "#pragma unroll 1\n",
    "    for (int u = ua, i = 0; u < ub; u += W_US, i++) {\n",
    "        if (u + (WNS - 1) * W_US < ub) issue(u + (WNS - 1) * W_US, wst + ((i + WNS - 1) % WNS) * W_STG);\n",
    "        oscar_cp_commit();\n",
    "        asm volatile(\"cp.async.wait_group %0;\\n\" ::\"n\"(WNS - 1));\n",
    "        __syncwarp();\n",
    "        const oscar_u8 *st = wst + (i % WNS) * W_STG;\n",
    "#if OSCAR_INT2\n",
    "        if (u >= tsu && u < tsu + thu) {\n",
    "            float s[W_MO][W_NTT][2];\n",
    "            const oscar_u32 *ksc = (const oscar_u32 *)(st + W_I2_KS);\n",
    "#pragma unroll\n",
    "            for (int ng = 0; ng < W_NTT; ng += W_WNG) {\n",
    "                oscar_u32 wv[W_WNG][WNB]; // token (ng + i) * 8 + lg: byte columns 8 lt .. 8 lt + 7 (D 64: 4 lt .. 4 lt + 3)\n",
    "#pragma unroll\n",
    "                for (int i = 0; i < W_WNG; i++) {\n",
    "#if WNB >= 2\n",
    "#pragma unroll\n",
    "                    for (int hh = 0; hh < WNB / 2; hh++) { // D 256: byte columns 32 hh + 8 lt .. + 7\n",
    "                        const uint2 w2 = *(const uint2 *)(st + ((ng + i) * 8 + lg) * WRB + 32 * hh + 8 * lt);\n",
    "                        wv[i][2 * hh] = w2.x;\n",
    "                        wv[i][2 * hh + 1] = w2.y;\n",
    "                    }\n",
    "#else\n",
    "                    wv[i][0] = *(const oscar_u32 *)(st + ((ng + i) * 8 + lg) * WRB + 4 * lt);\n",
    "#endif\n",
    "                }\n",
    "#pragma unroll\n",
    "                for (int g = 0; g < NGR; g++) {\n",
    "                    int c[W_MH][W_WNG][4];\n",
    "#pragma unroll\n",
    "                    for (int mh = 0; mh < W_MH; mh++)\n",
    "#pragma unroll\n",
    "                        for (int i = 0; i < W_WNG; i++) c[mh][i][0] = c[mh][i][1] = c[mh][i][2] = c[mh][i][3] = 0;\n",
    "#pragma unroll\n",
    "                    for (int kq = 0; kq < W_QPG * W_KSQ / W_QPK; kq++) {\n",
    "                        const int ks = (g * W_QPG * W_KSQ) / W_QPK + kq;\n",
    "                        uint4 a[W_MH];\n",
    "#pragma unroll\n",
    "                        for (int mh = 0; mh < W_MH; mh++) a[mh] = W_QF(mh, ks);\n",
    "#pragma unroll\n",
    "                        for (int i = 0; i < W_WNG; i++) {\n",
    "                            // u8 codes x 4^qd in place (the query digits carry 4^-qd)\n",
    "#if D >= 128\n",
    "                            const oscar_u32 m = 0x03030303u << (2 * (ks / W_KSQ)), b0 = wv[i][2 * (ks % W_KSQ)] & m, b1 = wv[i][2 * (ks % W_KSQ) + 1] & m;\n",
    "#else\n",
    "                            const oscar_u32 b0 = wv[i][0] & (0x03030303u << (4 * ks)), b1 = wv[i][0] & (0x0c0c0c0cu << (4 * ks));\n",
    "#endif\n",
    "#pragma unroll\n",
    "                            for (int mh = 0; mh < W_MH; mh++) oscar_imma(c[mh][i], a[mh], b0, b1);\n",
    "                        }\n",
    "                    }\n",
    "#pragma unroll\n",
    "                    for (int i = 0; i < W_WNG; i++) {\n",
    "                        const int t0 = (ng + i) * 8 + 2 * lt;\n",
    "                        const oscar_u32 k0 = ksc[t0 * NGR + g], k1 = ksc[(t0 + 1) * NGR + g];\n",
    "                        const float k0s = oscar_f16_to_f32((oscar_u16)(k0 & 0xffffu)), k0z = oscar_f16_to_f32((oscar_u16)(k0 >> 16));\n",
    "                        const float k1s = oscar_f16_to_f32((oscar_u16)(k1 & 0xffffu)), k1z = oscar_f16_to_f32((oscar_u16)(k1 >> 16));\n",
    "#if WHL\n",
    "                        { // head lg: digits 0, 1 in tile 0, digits 2, 3 in tile 1, all in this lane\n",
    "#if OSCAR_WDC\n",
    "                            // each tile's two digits as one int: |c| <= GS x 128 x 192 <= 2^22.6, so |c_d + 256 c_(d+1)|\n",
    "                            // < 2^31 (kernels/NOTES.md v69)\n",
    "                            float d0 = fmaf((float)(c[1][i][0] + c[1][i][2] * 256), qwl[1], (float)(c[0][i][0] + c[0][i][2] * 256) * qwl[0]);\n",
    "                            float d1 = fmaf((float)(c[1][i][1] + c[1][i][3] * 256), qwl[1], (float)(c[0][i][1] + c[0][i][3] * 256) * qwl[0]);\n",
    "#else\n",
    "                            float d0 = fmaf((float)c[0][i][2], qwh[0], (float)c[0][i][0] * qwl[0]);\n",
    "                            float d1 = fmaf((float)c[0][i][3], qwh[0], (float)c[0][i][1] * qwl[0]);\n",
    "                            d0 += fmaf((float)c[1][i][2], qwh[1], (float)c[1][i][0] * qwl[1]);\n",
    "                            d1 += fmaf((float)c[1][i][3], qwh[1], (float)c[1][i][1] * qwl[1]);\n",
    "#endif\n",
    "                            const float v0 = k0s * d0 + k0z * qsmh[0][g];\n",
    "                            const float v1 = k1s * d1 + k1z * qsmh[0][g];\n",
    "                            s[0][ng + i][0] = g \? s[0][ng + i][0] + v0 : v0;\n",
    "                            s[0][ng + i][1] = g \? s[0][ng + i][1] + v1 : v1;\n",
    "                        }\n",
    "#else\n",
    "#pragma unroll\n",
    "                        for (int mh = 0; mh < W_MH; mh++) {\n",
    "#if OSCAR_WDC\n",
    "                            // digits 2 part and 2 part + 1 here as one int, the other two in lane ^ 4\n",
    "                            float d0 = (float)(c[mh][i][0] + c[mh][i][2] * 256) * qwl[mh];\n",
    "                            float d1 = (float)(c[mh][i][1] + c[mh][i][3] * 256) * qwl[mh];\n",
    "#else\n",
    "                            // digits (lg & 1) and 2 + (lg & 1) here, the other two in lane ^ 4: weights 2^(8 digit - 15)\n",
    "                            float d0 = fmaf((float)c[mh][i][2], qwh[mh], (float)c[mh][i][0] * qwl[mh]);\n",
    "                            float d1 = fmaf((float)c[mh][i][3], qwh[mh], (float)c[mh][i][1] * qwl[mh]);\n",
    "#endif\n",
    "                            d0 += __shfl_xor_sync(0xffffffffu, d0, 4);\n",
    "                            d1 += __shfl_xor_sync(0xffffffffu, d1, 4);\n",
    "                            const float v0 = k0s * d0 + k0z * qsmh[mh][g];\n",
    "                            const float v1 = k1s * d1 + k1z * qsmh[mh][g];\n",
    "                            s[mh][ng + i][0] = g \? s[mh][ng + i][0] + v0 : v0; // no 0 + x adds (signed zeros keep them)\n",
    "                            s[mh][ng + i][1] = g \? s[mh][ng + i][1] + v1 : v1;\n",
    "                        }\n",
    "#endif\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "            const oscar_u32 *vsc = (const oscar_u32 *)(st + W_I2_VS);\n",
    "#pragma unroll\n",
    "            for (int mh = 0; mh < W_MO; mh++) W_SOFTMAX(W_NTT, s[mh], mh)\n",
    "#if WPVK\n",
    "            // B: the weights p * scale of head 4 mh + hl as 23-bit fixed point: n-tile 0 column lg = digit\n",
    "            // part (0, 1), n-tile 1 column lg = digit 2 (part 0; part 1 columns are zero);\n",
    "            // k = 4 lt + b <-> token (4 ks + (b >> 1)) * 8 + 2 lt + (b & 1) (b0; A a0 / a1), k = 16 + 4 lt + b\n",
    "            // <-> token (4 ks + 2 + (b >> 1)) * 8 + 2 lt + (b & 1) (b1; a2 / a3): the lane's own scores\n",
    "            oscar_u32 Bd[W_MH][NGR][TH / 16], Bh[W_MH][NGR][TH / 16];\n",
    "            float winv[W_MH][NGR]; // 1 / fixed-point scale of head 4 mh + lt (this lane's O columns)\n",
    "            const oscar_u32 dsel = (oscar_u32)part | ((4u + (oscar_u32)part) << 4); // this lane's digit of two weights\n",
    "#pragma unroll\n",
    "            for (int g = 0; g < NGR; g++) {\n",
    "                float sv[W_NTT][2];\n",
    "#pragma unroll\n",
    "                for (int nt = 0; nt < W_NTT; nt++)\n",
    "#pragma unroll\n",
    "                    for (int e = 0; e < 2; e++) {\n",
    "                        const oscar_u32 v = vsc[(nt * 8 + 2 * lt + e) * NGR + g];\n",
    "                        const float z = oscar_f16_to_f32((oscar_u16)(v >> 16));\n",
    "                        sv[nt][e] = oscar_f16_to_f32((oscar_u16)(v & 0xffffu));\n",
    "#pragma unroll\n",
    "                        for (int mh = 0; mh < W_MH; mh++) pm[mh][g] += s[mh][nt][e] * z;\n",
    "                    }\n",
    "#pragma unroll\n",
    "                for (int mh = 0; mh < W_MH; mh++) {\n",
    "                    float wm = 0.0f;\n",
    "#pragma unroll\n",
    "                    for (int nt = 0; nt < W_NTT; nt++) wm = fmaxf(wm, fmaxf(s[mh][nt][0] * sv[nt][0], s[mh][nt][1] * sv[nt][1]));\n",
    "                    wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, 1));\n",
    "                    wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, 2));\n",
    "                    // wm < 2^(eb - 126): weights x (2^23 - 1) * 2^(126 - eb) round to at most 2^23 - 1\n",
    "                    const int eb = max(__float_as_int(wm) >> 23, 30);\n",
    "                    const float sc = 8388607.0f * __int_as_float((253 - eb) << 23);\n",
    "                    winv[mh][g] = __shfl_sync(0xffffffffu, __int_as_float((eb + 1) << 23) * (1.0f / 8388607.0f), 8 * lt);\n",
    "                    oscar_u32 uw[W_NTT][2];\n",
    "#pragma unroll\n",
    "                    for (int nt = 0; nt < W_NTT; nt++)\n",
    "#pragma unroll\n",
    "                        for (int e = 0; e < 2; e++) uw[nt][e] = __float_as_uint(fmaf(s[mh][nt][e] * sv[nt][e], sc, 8388608.0f)); // integer in the 23 mantissa bits\n",
    "#pragma unroll\n",
    "                    for (int r = 0; r < TH / 16; r++) {\n",
    "                        Bd[mh][g][r] = __byte_perm(__byte_perm(uw[2 * r][0], uw[2 * r][1], dsel), __byte_perm(uw[2 * r + 1][0], uw[2 * r + 1][1], dsel), 0x5410u);\n",
    "                        const oscar_u32 b2 = __byte_perm(__byte_perm(uw[2 * r][0], uw[2 * r][1], 0x62u), __byte_perm(uw[2 * r + 1][0], uw[2 * r + 1][1], 0x62u), 0x5410u);\n",
    "                        Bh[mh][g][r] = part \? 0u : b2;\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "            // A = V codes: T[ks][e][h] = byte column WBPL lg + e of the four tokens of half h of k-step ks\n",
    "            oscar_u32 T[TH / 32][WBPL][2];\n",
    "#pragma unroll\n",
    "            for (int ks = 0; ks < TH / 32; ks++)\n",
    "#pragma unroll\n",
    "                for (int h = 0; h < 2; h++) {\n",
    "                    oscar_u32 w[4];\n",
    "#if WBPL == 8\n",
    "                    oscar_u32 wh[4]; // bytes 4-7 of the lane's columns\n",
    "#endif\n",
    "#pragma unroll\n",
    "                    for (int b = 0; b < 4; b++) {\n",
    "                        // token t = 8 m + 2 lt + (b & 1), m = 4 ks + 2 h + (b >> 1), padded row t + t / 4 =\n",
    "                        // 10 m + (b & 1) + 2 lt + lt / 2: a lane base plus a constant (no address arithmetic per load)\n",
    "                        const oscar_u8 *src = st + w_vl + ((b & 1) + 10 * (4 * ks + 2 * h + (b >> 1))) * WRB;\n",
    "#if WBPL == 8\n",
    "                        const uint2 x = *(const uint2 *)src;\n",
    "                        w[b] = x.x;\n",
    "                        wh[b] = x.y;\n",
    "#else\n",
    "                        w[b] = WBPL == 4 \? *(const oscar_u32 *)src : (oscar_u32)*(const oscar_u16 *)src;\n",
    "#endif\n",
    "                    }\n",
    "#if WBPL == 8\n",
    "#pragma unroll\n",
    "                    for (int q = 0; q < 2; q++) {\n",
    "                        const oscar_u32 *y = q \? wh : w;\n",
    "                        const oscar_u32 x01l = __byte_perm(y[0], y[1], 0x5140u), x01h = __byte_perm(y[0], y[1], 0x7362u);\n",
    "                        const oscar_u32 x23l = __byte_perm(y[2], y[3], 0x5140u), x23h = __byte_perm(y[2], y[3], 0x7362u);\n",
    "                        T[ks][4 * q][h] = __byte_perm(x01l, x23l, 0x5410u);\n",
    "                        T[ks][4 * q + 1][h] = __byte_perm(x01l, x23l, 0x7632u);\n",
    "                        T[ks][4 * q + 2][h] = __byte_perm(x01h, x23h, 0x5410u);\n",
    "                        T[ks][4 * q + 3][h] = __byte_perm(x01h, x23h, 0x7632u);\n",
    "                    }\n",
    "#elif WBPL == 4\n",
    "                    const oscar_u32 x01l = __byte_perm(w[0], w[1], 0x5140u), x01h = __byte_perm(w[0], w[1], 0x7362u);\n",
    "                    const oscar_u32 x23l = __byte_perm(w[2], w[3], 0x5140u), x23h = __byte_perm(w[2], w[3], 0x7362u);\n",
    "                    T[ks][0][h] = __byte_perm(x01l, x23l, 0x5410u);\n",
    "                    T[ks][1][h] = __byte_perm(x01l, x23l, 0x7632u);\n",
    "                    T[ks][2][h] = __byte_perm(x01h, x23h, 0x5410u);\n",
    "                    T[ks][3][h] = __byte_perm(x01h, x23h, 0x7632u);\n",
    "#else\n",
    "                    const oscar_u32 x01 = __byte_perm(w[0], w[1], 0x5410u), x23 = __byte_perm(w[2], w[3], 0x5410u);\n",
    "                    T[ks][0][h] = __byte_perm(x01, x23, 0x6420u);\n",
    "                    T[ks][1][h] = __byte_perm(x01, x23, 0x7531u);\n",
    "#endif\n",
    "                }\n",
    "            // per channel tile: the unit's k-steps summed in int32 (digits 0 + 256 x digit 1 < 2^31: 255 x 257\n",
    "            // x 192 x 64), then into O with the head's scale\n",
    "#pragma unroll\n",
    "            for (int qd = 0; qd < 4; qd++) {\n",
    "                const oscar_u32 m = 0x03030303u << (2 * qd); // code x 4^qd in place\n",
    "#pragma unroll\n",
    "                for (int mt = 0; mt < W_NMT; mt++) {\n",
    "                    int c[W_MH][4], ch[W_MH][4];\n",
    "#pragma unroll\n",
    "                    for (int mh = 0; mh < W_MH; mh++) c[mh][0] = c[mh][1] = c[mh][2] = c[mh][3] = ch[mh][0] = ch[mh][1] = ch[mh][2] = ch[mh][3] = 0;\n",
    "#pragma unroll\n",
    "                    for (int ks = 0; ks < TH / 32; ks++) {\n",
    "                        const oscar_u32 a0 = T[ks][mt][0] & m, a1 = T[ks][W_NMT + mt][0] & m, a2 = T[ks][mt][1] & m, a3 = T[ks][W_NMT + mt][1] & m;\n",
    "#pragma unroll\n",
    "                        for (int mh = 0; mh < W_MH; mh++) {\n",
    "                            oscar_imma_u8(c[mh], a0, a1, a2, a3, Bd[mh][qd / W_QPG][2 * ks], Bd[mh][qd / W_QPG][2 * ks + 1]);\n",
    "                            oscar_imma_u8(ch[mh], a0, a1, a2, a3, Bh[mh][qd / W_QPG][2 * ks], Bh[mh][qd / W_QPG][2 * ks + 1]);\n",
    "                        }\n",
    "                    }\n",
    "#pragma unroll\n",
    "                    for (int mh = 0; mh < W_MH; mh++) {\n",
    "                        const float iv = winv[mh][qd / W_QPG];\n",
    "                        const float r0 = fmaf((float)ch[mh][0], 65536.0f, (float)(c[mh][0] + (c[mh][1] << 8)));\n",
    "                        const float r8 = fmaf((float)ch[mh][2], 65536.0f, (float)(c[mh][2] + (c[mh][3] << 8)));\n",
    "                        O[mh][qd * W_NMT + mt][0] = fmaf(r0, iv, O[mh][qd * W_NMT + mt][0]);\n",
    "                        O[mh][qd * W_NMT + mt][2] = fmaf(r8, iv, O[mh][qd * W_NMT + mt][2]);\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "#else\n",
    "#pragma unroll\n",
    "            for (int kk = 0; kk < TH / 16; kk++) {\n",
    "                const int t0 = 16 * kk + 2 * lt;\n",
    "                oscar_u32 W[4];\n",
    "#pragma unroll\n",
    "                for (int r = 0; r < 4; r++) {\n",
    "                    const oscar_u8 *src = st + w_vl + ((r & 1) + 10 * (2 * kk + (r >> 1))) * WRB; // token t0 + (r & 1) + 8 (r >> 1)\n",
    "                    W[r] = WBPL == 4 \? *(const oscar_u32 *)src : (oscar_u32)*(const oscar_u16 *)src;\n",
    "                }\n",
    "                // byte column WBPL lg + e of tokens t0, t0 + 1 (xa) and t0 + 8, t0 + 9 (xb), one per half\n",
    "                oscar_u32 xa[WBPL], xb[WBPL];\n",
    "#pragma unroll\n",
    "                for (int e = 0; e < WBPL; e++) {\n",
    "                    const oscar_u32 sel = 0x4400u + 0x1111u * (oscar_u32)e;\n",
    "                    xa[e] = __byte_perm(W[0], W[1], sel);\n",
    "                    xb[e] = __byte_perm(W[2], W[3], sel);\n",
    "                }\n",
    "                // B: weights p * scale of head 4 mh + hl, this lane's half (hi / lo); WHL: of head lg,\n",
    "                // hi in B0 / B1 and lo in L0 / L1 (two MMAs into one accumulator)\n",
    "                oscar_u32 B0[W_MO][NGR], B1[W_MO][NGR];\n",
    "#if WHL\n",
    "                oscar_u32 L0[NGR], L1[NGR];\n",
    "#endif\n",
    "#pragma unroll\n",
    "                for (int g = 0; g < NGR; g++) {\n",
    "                    const oscar_u32 v0 = vsc[t0 * NGR + g], v1 = vsc[(t0 + 1) * NGR + g], v8 = vsc[(t0 + 8) * NGR + g], v9 = vsc[(t0 + 9) * NGR + g];\n",
    "                    const float s0 = oscar_f16_to_f32((oscar_u16)(v0 & 0xffffu)), s1 = oscar_f16_to_f32((oscar_u16)(v1 & 0xffffu));\n",
    "                    const float s8 = oscar_f16_to_f32((oscar_u16)(v8 & 0xffffu)), s9 = oscar_f16_to_f32((oscar_u16)(v9 & 0xffffu));\n",
    "                    const float z0 = oscar_f16_to_f32((oscar_u16)(v0 >> 16)), z1 = oscar_f16_to_f32((oscar_u16)(v1 >> 16));\n",
    "                    const float z8 = oscar_f16_to_f32((oscar_u16)(v8 >> 16)), z9 = oscar_f16_to_f32((oscar_u16)(v9 >> 16));\n",
    "#if WHL\n",
    "                    {\n",
    "                        const float p0 = s[0][2 * kk][0], p1 = s[0][2 * kk][1], p8 = s[0][2 * kk + 1][0], p9 = s[0][2 * kk + 1][1];\n",
    "                        pm[0][g] += p0 * z0 + p1 * z1 + p8 * z8 + p9 * z9;\n",
    "                        oscar_h2_split(p0 * s0, p1 * s1, &B0[0][g], &L0[g]);\n",
    "                        oscar_h2_split(p8 * s8, p9 * s9, &B1[0][g], &L1[g]);\n",
    "                    }\n",
    "#else\n",
    "#pragma unroll\n",
    "                    for (int mh = 0; mh < W_MH; mh++) {\n",
    "                        const float p0 = s[mh][2 * kk][0], p1 = s[mh][2 * kk][1], p8 = s[mh][2 * kk + 1][0], p9 = s[mh][2 * kk + 1][1];\n",
    "                        pm[mh][g] += p0 * z0 + p1 * z1 + p8 * z8 + p9 * z9;\n",
    "                        B0[mh][g] = oscar_h2_part(p0 * s0, p1 * s1, part);\n",
    "                        B1[mh][g] = oscar_h2_part(p8 * s8, p9 * s9, part);\n",
    "                    }\n",
    "#endif\n",
    "                }\n",
    "#pragma unroll\n",
    "                for (int qd = 0; qd < 4; qd++)\n",
    "#pragma unroll\n",
    "                    for (int mt = 0; mt < W_NMT; mt++) {\n",
    "                        uint4 A;\n",
    "                        A.x = oscar_w_codes(xa[mt], qd);\n",
    "                        A.y = oscar_w_codes(xa[W_NMT + mt], qd);\n",
    "                        A.z = oscar_w_codes(xb[mt], qd);\n",
    "                        A.w = oscar_w_codes(xb[W_NMT + mt], qd);\n",
    "#if WHL\n",
    "                        oscar_mma_f16(O[0][qd * W_NMT + mt], A, B0[0][qd / W_QPG], B1[0][qd / W_QPG]);\n",
    "                        oscar_mma_f16(O[0][qd * W_NMT + mt], A, L0[qd / W_QPG], L1[qd / W_QPG]);\n",
    "#else\n",
    "#pragma unroll\n",
    "                        for (int mh = 0; mh < W_MH; mh++) oscar_mma_f16(O[mh][qd * W_NMT + mt], A, B0[mh][qd / W_QPG], B1[mh][qd / W_QPG]);\n",
    "#endif\n",
    "                    }\n",
    "            }\n",
    "#endif\n",
    "        } else\n",
    "#endif\n",
    "        {\n",
    "            // BF16 unit: 8 rows (zero rows past the end)\n",
    "            int nr;\n",
    "            if (u < tsu) nr = ns - u * WUB;\n",
    "            else if (u >= tsu + thu) nr = nw - (u - tsu - thu) * WUB;\n",
    "            else nr = W_HU;\n",
    "            float c[W_MO][4];\n",
    "#pragma unroll\n",
    "            for (int mh = 0; mh < W_MO; mh++) c[mh][0] = c[mh][1] = c[mh][2] = c[mh][3] = 0.0f;\n",
    "#pragma unroll\n",
    "            for (int ks = 0; ks < D / 16; ks++) {\n",
    "                const uint2 kw = *(const uint2 *)(st + lg * WBK + (16 * ks + 4 * lt) * 2);\n",
    "#pragma unroll\n",
    "                for (int mh = 0; mh < W_MO; mh++) {\n",
    "                    const uint4 a = qfb[(mh * (D / 16) + ks) * 32 + lane];\n",
    "                    oscar_mma_bf16(c[mh], a.x, a.y, a.z, a.w, kw.x, kw.y);\n",
    "                }\n",
    "            }\n",
    "            oscar_u32 bp[W_MO];\n",
    "#if WHL\n",
    "            oscar_u32 bpl; // the lo half of head lg's weights (bp: hi)\n",
    "#endif\n",
    "#pragma unroll\n",
    "            for (int mh = 0; mh < W_MO; mh++) {\n",
    "                float s[1][2];\n",
    "                s[0][0] = 2 * lt < nr \? (c[mh][0] + c[mh][2]) * p.scale_log2 : OSCAR_NEG_INF;\n",
    "                s[0][1] = 2 * lt + 1 < nr \? (c[mh][1] + c[mh][3]) * p.scale_log2 : OSCAR_NEG_INF;\n",
    "                W_SOFTMAX(1, s, mh)\n",
    "#if WHL\n",
    "                oscar_b2_split(s[0][0], s[0][1], &bp[mh], &bpl);\n",
    "#else\n",
    "                bp[mh] = oscar_b2_part(s[0][0], s[0][1], part);\n",
    "#endif\n",
    "            }\n",
    "            // A = V^T: rows = channels (as the INT2 O layout), k = tokens 2 lt, 2 lt + 1 (rows 8-15 empty)\n",
    "            const oscar_u8 *vb = st + WUB * WBK;\n",
    "#pragma unroll\n",
    "            for (int qd = 0; qd < 4; qd++) {\n",
    "                oscar_u32 w0[WBPL / 2 > 2 \? WBPL / 2 : 2], w1[WBPL / 2 > 2 \? WBPL / 2 : 2];\n",
    "#if WBPL == 8\n",
    "                {\n",
    "                    const uint4 x0 = *(const uint4 *)(vb + (2 * lt) * WBV + (qd * (D / 4) + 8 * lg) * 2);\n",
    "                    const uint4 x1 = *(const uint4 *)(vb + (2 * lt + 1) * WBV + (qd * (D / 4) + 8 * lg) * 2);\n",
    "                    w0[0] = x0.x;\n",
    "                    w0[1] = x0.y;\n",
    "                    w0[2] = x0.z;\n",
    "                    w0[3] = x0.w;\n",
    "                    w1[0] = x1.x;\n",
    "                    w1[1] = x1.y;\n",
    "                    w1[2] = x1.z;\n",
    "                    w1[3] = x1.w;\n",
    "                }\n",
    "#elif WBPL == 4\n",
    "                {\n",
    "                    const uint2 x0 = *(const uint2 *)(vb + (2 * lt) * WBV + (qd * (D / 4) + 4 * lg) * 2);\n",
    "                    const uint2 x1 = *(const uint2 *)(vb + (2 * lt + 1) * WBV + (qd * (D / 4) + 4 * lg) * 2);\n",
    "                    w0[0] = x0.x;\n",
    "                    w0[1] = x0.y;\n",
    "                    w1[0] = x1.x;\n",
    "                    w1[1] = x1.y;\n",
    "                }\n",
    "#else\n",
    "                w0[0] = *(const oscar_u32 *)(vb + (2 * lt) * WBV + (qd * (D / 4) + 2 * lg) * 2);\n",
    "                w1[0] = *(const oscar_u32 *)(vb + (2 * lt + 1) * WBV + (qd * (D / 4) + 2 * lg) * 2);\n",
    "                w0[1] = w1[1] = 0;\n",
    "#endif\n",
    "                const float f = qd == 0 \? 1.0f : qd == 1 \? 4.0f : qd == 2 \? 16.0f : 64.0f;\n",
    "#pragma unroll\n",
    "                for (int mt = 0; mt < W_NMT; mt++) {\n",
    "                    const int e0 = mt, e1 = W_NMT + mt;\n",
    "                    const oscar_u32 a0 = __byte_perm(w0[e0 >> 1], w1[e0 >> 1], (e0 & 1) \? 0x7632u : 0x5410u);\n",
    "                    const oscar_u32 a1 = __byte_perm(w0[e1 >> 1], w1[e1 >> 1], (e1 & 1) \? 0x7632u : 0x5410u);\n",
    "#pragma unroll\n",
    "                    for (int mh = 0; mh < W_MO; mh++) {\n",
    "                        float ct[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n",
    "                        oscar_mma_bf16(ct, a0, a1, 0u, 0u, bp[mh], 0u);\n",
    "#if WHL\n",
    "                        oscar_mma_bf16(ct, a0, a1, 0u, 0u, bpl, 0u);\n",
    "#endif\n",
    "                        O[mh][qd * W_NMT + mt][0] += ct[0] * f;\n",
    "                        O[mh][qd * W_NMT + mt][1] += ct[1] * f;\n",
    "                        O[mh][qd * W_NMT + mt][2] += ct[2] * f;\n",
    "                        O[mh][qd * W_NMT + mt][3] += ct[3] * f;\n",
    "                    }\n",
    "                }\n",
    "            }\n",
    "        }\n",
    "        __syncwarp();\n",
    "    }\n",
    "    oscar_cp_wait0();\n",
    "#ifdef OSCAR_WPROF\n",
    "    if (wpr && lane == 0) {\n",
    "        const int e = ub < tsu \? ub : tsu, f = ua > tsu + thu \? ua : tsu + thu;\n",
    "        const int nbf = (e > ua \? e - ua : 0) + (ub > f \? ub - f : 0);\n",
    "        wpr[4 + warp] = (unsigned long long)(clock64() - wpc0);\n",
    "        wpr[8 + warp] = (unsigned long long)(ub - ua) | (unsigned long long)nbf << 16;\n",
    "    }\n",
    "#endif\n",
    "\n",
    "    // ---- merge the warps of the block, write this split's partial result ----\n",
    "#pragma unroll\n",
    "    for (int mh = 0; mh < W_MO; mh++) {\n",
    "        lrun[mh] += __shfl_xor_sync(0xffffffffu, lrun[mh], 1);\n",
    "        lrun[mh] += __shfl_xor_sync(0xffffffffu, lrun[mh], 2);\n",
    "#if OSCAR_INT2\n",
    "#pragma unroll\n",
    "        for (int g = 0; g < NGR; g++) {\n",
    "            pm[mh][g] += __shfl_xor_sync(0xffffffffu, pm[mh][g], 1);\n",
    "            pm[mh][g] += __shfl_xor_sync(0xffffffffu, pm[mh][g], 2);\n",
    "        }\n",
    "#endif\n",
    "    }\n",
    "    __syncthreads(); // every warp is done with its stages: the merge buffer overlays them\n",
    "    float *wo = (float *)smem;                  // [WNW][G][D]\n",
    "    float *wml = wo + WNW * G * D;              // [WNW][G][2]\n",
    "    // channel tile jo of head ho (two values: columns ch and ch + W_NMT) into wo, scaled by its\n",
    "    // quarter's digit weight, plus the head's INT2 group term of that quarter\n",
    "    auto put_o = [&](int ho, int jo, float v0, float v1, const float *add) {\n",
    "        const int qd = jo / W_NMT, mt = jo % W_NMT, ch = qd * (D / 4) + WBPL * lg + mt;\n",
    "        const float f = qd == 0 \? 1.0f : qd == 1 \? 0.25f : qd == 2 \? 0.0625f : 0.015625f;\n",
    "#if OSCAR_INT2\n",
    "        const float a = add[qd / W_QPG];\n",
    "#else\n",
    "        const float a = 0.0f;\n",
    "        (void)add;\n",
    "#endif\n",
    "        wo[(warp * G + ho) * D + ch] = v0 * f + a;\n",
    "        wo[(warp * G + ho) * D + ch + W_NMT] = v1 * f + a;\n",
    "    };\n",
    "    float add[OSCAR_INT2 \? NGR : 1] = {0.0f};\n",
    "#if WHL\n",
    "    { // O columns 2 lt + e: head 2 lt + e, whose sums lane 4 (2 lt + e) holds\n",
    "#pragma unroll\n",
    "        for (int e = 0; e < 2; e++) {\n",
    "            const int ho = 2 * lt + e;\n",
    "#if OSCAR_INT2\n",
    "#pragma unroll\n",
    "            for (int g = 0; g < NGR; g++) add[g] = __shfl_sync(0xffffffffu, pm[0][g], 4 * ho);\n",
    "#endif\n",
    "            if (ho < G)\n",
    "#pragma unroll\n",
    "                for (int jo = 0; jo < W_NO; jo++) put_o(ho, jo, O[0][jo][e], O[0][jo][2 + e], add);\n",
    "        }\n",
    "        if (lg < G && lt == 0) {\n",
    "            wml[(warp * G + lg) * 2] = mrun[0];\n",
    "            wml[(warp * G + lg) * 2 + 1] = lrun[0];\n",
    "        }\n",
    "    }\n",
    "#else\n",
    "#pragma unroll\n",
    "    for (int mh = 0; mh < W_MH; mh++) {\n",
    "        const int ho = 4 * mh + lt; // head of this lane's O columns\n",
    "#if OSCAR_INT2\n",
    "#pragma unroll\n",
    "        for (int g = 0; g < NGR; g++) add[g] = __shfl_sync(0xffffffffu, pm[mh][g], 8 * lt);\n",
    "#endif\n",
    "        if (ho < G)\n",
    "#pragma unroll\n",
    "            for (int jo = 0; jo < W_NO; jo++) put_o(ho, jo, O[mh][jo][0] + O[mh][jo][1], O[mh][jo][2] + O[mh][jo][3], add);\n",
    "        if (4 * mh + hl < G && lt == 0 && part == 0) {\n",
    "            wml[(warp * G + 4 * mh + hl) * 2] = mrun[mh];\n",
    "            wml[(warp * G + 4 * mh + hl) * 2 + 1] = lrun[mh];\n",
    "        }\n",
    "    }\n",
    "#endif\n",
    "    __syncthreads();\n",
    "#ifdef OSCAR_WPROF\n",
    "    if (wpr && tid == 0) wpr[15] = (unsigned long long)(clock64() - wpc0);\n",
    "#endif\n",
    "    float *wf = wml + WNW * G * 2; // [G][WNW] (WIG > 1)\n",
    "    float *cml = wf + G * WNW;     // CM: [G][2] this split's (M, L)\n",
    "    float *co = cml + 2 * G;       // CM: [G][D] this split's o\n",
    "    static_assert(!CM || (WNW * G * D + WNW * G * 2 + G * WNW + 2 * G + G * D) * 4 <= W_SMEM, \"the cluster merge's buffers exceed the decode's shared memory\");\n",
    "    if (WIG > 1) {\n",
    "        // per head (one thread each): the max over the warps that saw tokens, each warp's weight (0 for a warp without\n",
    "        // tokens) and the block's sum; a barrier; then every thread combines its outputs. (The WIG > 1 kernels keep this\n",
    "        // form: with v63's, oscar_decode_w_il spilled 12 bytes and reloaded them in its unit loop, against 8 reloaded\n",
    "        // after it)\n",
    "        if (tid < G) {\n",
    "            const int h = tid;\n",
    "            float M, f[WNW];\n",
    "            const float L = oscar_warp_weights<WNW, G, true>(wml, h, M, f, wf + h * WNW);\n",
    "            if (CM) {\n",
    "                cml[2 * h] = M;\n",
    "                cml[2 * h + 1] = L;\n",
    "            } else {\n",
    "                const size_t row = ((size_t)b * Hq + j * G + h) * p.n_splits + split;\n",
    "                ((float *)p.part_ml)[row * 2] = M;\n",
    "                ((float *)p.part_ml)[row * 2 + 1] = L;\n",
    "            }\n",
    "        }\n",
    "        __syncthreads();\n",
    "        W_PH(3);\n",
    "        for (int i = tid; i < G * D; i += 32 * WNW) {\n",
    "            const int h = i / D;\n",
    "            float o = 0.0f;\n",
    "#pragma unroll\n",
    "            for (int w = 0; w < WNW; w++) {\n",
    "                const float f = wf[h * WNW + w];\n",
    "                if (f != 0.0f) o += f * wo[(w * G + h) * D + (i % D)];\n",
    "            }\n",
    "            if (CM) co[i] = o;\n",
    "            else ((float *)p.part_o)[(((size_t)b * Hq + j * G + h) * p.n_splits + split) * D + (i % D)] = o;\n",
    "        }\n",
    "    } else {\n",
    "        // a head per warp (WPH warps per head where G < WNW, at most d / 32): every lane takes the max over the warps\n",
    "        // that saw tokens, each warp's weight (0 for a warp without tokens) and the block's sum itself from wml (the\n",
    "        // same operations in the same order as one thread per head, so the same values, and no barrier after them); then\n",
    "        // the head's elements lane + 32 (warp % WPH + WPH r). The thread and block indices are read again here: taken\n",
    "        // from the prologue's registers, they cost oscar_decode_w a spill in its unit loop (kernels/NOTES.md v63)\n",
    "        constexpr int WPH = G >= WNW \? 1 : WNW / G < D / 32 \? WNW / G : D / 32;\n",
    "        unsigned et;\n",
    "        asm volatile(\"mov.u32 %0, %%tid.x;\" : \"=r\"(et));\n",
    "        const int ew = (int)(et >> 5), el = (int)(et & 31);\n",
    "        for (int h = ew / WPH; h < G && ew < WPH * G; h += WNW / WPH) {\n",
    "            float M, f[WNW];\n",
    "            const float L = oscar_warp_weights<WNW, G, false>(wml, h, M, f, 0);\n",
    "            unsigned ex, ey, ez;\n",
    "            asm volatile(\"mov.u32 %0, %%ctaid.x;\" : \"=r\"(ex));\n",
    "            asm volatile(\"mov.u32 %0, %%ctaid.y;\" : \"=r\"(ey));\n",
    "            asm volatile(\"mov.u32 %0, %%ctaid.z;\" : \"=r\"(ez));\n",
    "            const size_t row = ((size_t)ez * Hq + ey * G + h) * p.n_splits + ex;\n",
    "            float *po = CM \? co + h * D : (float *)p.part_o + row * D;\n",
    "#pragma unroll\n",
    "            for (int r = 0; r < D / (32 * WPH); r++) {\n",
    "                const int e = el + 32 * (ew % WPH + WPH * r);\n",
    "                float o = 0.0f;\n",
    "#pragma unroll\n",
    "                for (int w = 0; w < WNW; w++)\n",
    "                    if (f[w] != 0.0f) o += f[w] * wo[(w * G + h) * D + e];\n",
    "                po[e] = o;\n",
    "            }\n",
    "            if (el == 0 && ew % WPH == 0) {\n",
    "                float *pml = CM \? cml + 2 * h : (float *)p.part_ml + row * 2;\n",
    "                pml[0] = M;\n",
    "                pml[1] = L;\n",
    "            }\n",
    "        }\n",
    "        W_PH(3);\n",
    "    }\n",
    "    if (CM) {\n",
    "        // the cluster's blocks are this (sequence, group)'s splits, block rank = split (cluster (S, 1, 1)): warp w of\n",
    "        // block r merges heads r + S (w + WNW k) as oscar_merge does (weights exp2(m - M) of the splits that saw tokens,\n",
    "        // 0 for the others; o / L; o . H where every rotation is H; the V mean added back), each lane the elements\n",
    "        // lane + 32 t, reading the other blocks' (M, L) and o from their shared memory. A thread arrives at the second\n",
    "        // cluster barrier once its reads are done and waits for it before the block exits, so that every block's\n",
    "        // shared memory stays in place until the last read of it; no block barrier after the first cluster barrier\n",
    "        oscar_pdl_launch();\n",
    "        oscar_cluster_sync();\n",
    "        const int S = p.n_splits;\n",
    "        const float *vmo = p.vmo \? (const float *)p.vmo + ((size_t)p.layer * p.Hkv + jk) * D : (const float *)0;\n",
    "        bool arrived = false; // warp-uniform\n",
    "        for (int h = split + S * warp; h < G; h += S * WNW) {\n",
    "            float *yo = (float *)p.y + ((size_t)b * Hq + j * G + h) * D;\n",
    "            const float m = lane < S \? oscar_ld_cluster(cml + 2 * h, lane) : 0.0f, l = lane < S \? oscar_ld_cluster(cml + 2 * h + 1, lane) : 0.0f;\n",
    "            float w, w1;\n",
    "            const float L = oscar_split_weights(m, l, 0.0f, 0.0f, w, w1); // clusters hold at most 16 splits\n",
    "            float x[D / 32];\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) x[t] = 0.0f;\n",
    "            for (int sp = 0; sp < S; sp++) {\n",
    "                const float ws = __shfl_sync(0xffffffffu, w, sp);\n",
    "                if (ws > 0.0f)\n",
    "#pragma unroll\n",
    "                    for (int t = 0; t < D / 32; t++) x[t] += ws * oscar_ld_cluster(co + h * D + lane + 32 * t, sp);\n",
    "            }\n",
    "            if (h + S * WNW >= G) { // this warp's last head: its reads of the other blocks are done\n",
    "                oscar_cluster_arrive();\n",
    "                arrived = true;\n",
    "            }\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) x[t] = L > 0.0f \? x[t] / L : 0.0f;\n",
    "            if (p.vwht) oscar_wht_row<D>(x, lane);\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) yo[lane + 32 * t] = vmo \? x[t] + vmo[lane + 32 * t] : x[t];\n",
    "        }\n",
    "        if (!arrived) oscar_cluster_arrive();\n",
    "        oscar_cluster_wait();\n",
    "    }\n",
    "    if (p.counts) { // this split's partial is written: count it for the merge of (b, j), which polls the count\n",
    "        __syncthreads(); // every thread's writes, then one release add (cumulative over the barrier)\n",
    "        if (tid == 0) asm volatile(\"red.release.gpu.global.add.s32 [%0], 1;\" ::\"l\"((int *)p.counts + (size_t)b * p.Hkv * OSCAR_HSPLIT + j) : \"memory\");\n",
    "    }\n",
    "#ifdef OSCAR_WPROF\n",
    "    if (wpr && tid == 0) {\n",
    "        wpr[3] = (unsigned long long)(clock64() - wpc0);\n",
    "        wpr[12] = oscar_gtime();\n",
    "    }\n",
    "#endif\n",
    "}\n",
    "#undef W_PH\n",
    "extern \"C\" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_w(const oscar_attn_params p) { oscar_decode_w_body<W_WIG, 0>(p); }\n",
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n",
    "// the same with the merge inside: launched as clusters of n_splits blocks (v55)\n",
    "extern \"C\" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_wc(const oscar_attn_params p) { oscar_decode_w_body<W_WIG, 1>(p); }\n",
    "#define OSCAR_W_CM 1\n",
    "#endif\n",
    "#if OSCAR_INT2 && W_WIG == 1 && D == 128 && G == 4\n",
    "// the same with the block's units taken in turn by its warps (v51: 0.5-2% faster at batch 8-32, 3% slower at\n",
    "// 1 x 128K; measured at d 128 G 4, built there only), which the host launches where the batch holds >= 64\n",
    "// KV heads (oscar_cuda_kv.wig)\n",
    "extern \"C\" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_w_il(const oscar_attn_params p) { oscar_decode_w_body<WNW, 0>(p); }\n",
    "#if OSCAR_W_CM\n",
    "extern \"C\" __global__ void __launch_bounds__(32 * WNW, OSCAR_WMINB) oscar_decode_w_ilc(const oscar_attn_params p) { oscar_decode_w_body<WNW, 1>(p); }\n",
    "#endif\n",
    "#define OSCAR_W_IL 1\n",
    "#endif\n",
    "#else\n",
    "extern \"C\" __global__ void oscar_decode_w(const oscar_attn_params p) { (void)p; }\n",
    "#endif\n",
    "#ifndef OSCAR_W_IL\n",
    "#define OSCAR_W_IL 0\n",
    "#endif\n",
    "// 1: this module has oscar_decode_w_il (the host asks this, not cuModuleGetFunction for a kernel that may be absent)\n",
    "extern \"C\" __device__ int oscar_decode_w_il_on = OSCAR_W_IL;\n",
    "#ifndef OSCAR_W_CM\n",
    "#define OSCAR_W_CM 0\n",
    "#endif\n",
    "// 1: this module has oscar_decode_wc (and oscar_decode_w_ilc where it has oscar_decode_w_il)\n",
    "extern \"C\" __device__ int oscar_decode_wc_on = OSCAR_W_CM;\n",
    "\n",
    "// The two small launches read a D x D fp32 rotation each (64 KB at D 128). A loop of dependent\n",
    "// loads cost one memory round trip per few rows (measured 12.7 us for oscar_rotate_q and 17.7 us\n",
    "// for oscar_merge at batch 1, issue 5), so blocks are D x NSL threads (NSL = blockDim.x / D\n",
    "// slices, 512 threads in all for the merges; oscar_rotate_q and oscar_rotate_q1: RSL and OSCAR_RQT1\n",
    "// threads over D / OSCAR_RNC and D / OSCAR_RNC1 columns): thread (c, sl) loads its slice's D / NSL\n",
    "// rows of column c up front (all in flight: one round trip), and the slices add up in shared memory.\n",
    "#define RSL 512                       // threads per block of the merges\n",
    "#define RMAX (RSL / D < 1 \? 1 : RSL / D) // slices\n",
    "#define RPS (D / RMAX)                // rows per slice\n",
    "#define RCH (RPS < 64 \? RPS : 64)      // rows in registers at a time (D 256: two round trips)\n",
    "\n",
    "// acc[h] = thread (c, sl)'s slice of x[h] . R[:, c] (rows i0 .. i0 + rps - 1) for NH vectors x in\n",
    "// shared memory; r holds the slice's first NR rows of column c (loaded before the caller waited)\n",
    "template <int NH, int NR>\n",
    "static __device__ __forceinline__ void oscar_rot_slice(float (&acc)[NH], float (&r)[NR], const float *R, const float *x, int c, int i0, int rps) {\n",
    "#pragma unroll\n",
    "    for (int hh = 0; hh < NH; hh++) acc[hh] = 0.0f;\n",
    "    for (int k0 = 0; k0 < rps; k0 += NR) {\n",
    "        if (k0 > 0) {\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < NR; k++) r[k] = k0 + k < rps \? R[(size_t)(i0 + k0 + k) * D + c] : 0.0f;\n",
    "        }\n",
    "#pragma unroll\n",
    "        for (int k = 0; k < NR; k++)\n",
    "            if (k0 + k < rps) {\n",
    "#pragma unroll\n",
    "                for (int hh = 0; hh < NH; hh++) acc[hh] += x[hh * D + i0 + k0 + k] * r[k];\n",
    "            }\n",
    "    }\n",
    "}\n",
    "// the slices' partials of NH vectors of w columns into red [NH][nsl][w], then a barrier; the\n",
    "// caller reads each total (slices in order) with oscar_slice_total (and must barrier before red is\n",
    "// written again)\n",
    "template <int NH>\n",
    "static __device__ __forceinline__ void oscar_slices_put(float *red, const float (&v)[NH], int c, int sl, int nsl, int w) {\n",
    "#pragma unroll\n",
    "    for (int hh = 0; hh < NH; hh++) red[(hh * nsl + sl) * w + c] = v[hh];\n",
    "    __syncthreads();\n",
    "}\n",
    "static __device__ __forceinline__ float oscar_slice_total(const float *red, int hh, int c, int nsl, int w) {\n",
    "    float t = 0.0f;\n",
    "    for (int k = 0; k < nsl; k++) t += red[(hh * nsl + k) * w + c];\n",
    "    return t;\n",
    "}\n",
    "\n",
    "// q_rot = q . R_k (per layer; per KV head when rot_heads > 1). grid (Hq / RHB x RQ_C, B), RQ_T\n",
    "// threads: a block rotates RHB query heads of one KV head (they share the rotation) into one of RQ_C\n",
    "// chunks of D / RQ_C output columns, so the D x D rotation is read once per RHB heads, spread over\n",
    "// RQ_C blocks (SMs): at batch 1 the rotation's pull from memory by 8 blocks (64 KB each at D 128) was\n",
    "// most of this kernel's 2.8 us after its wait (kernels/NOTES.md v30). Thread (column cl, slice sl)\n",
    "// keeps its slice's D / (RQ_T RQ_C / D) rows of its column in registers and applies them to all RHB heads\n",
    "// (RHB = the largest divisor of G up to 8, a compile-time count: no predication); the slices add up\n",
    "// in shared memory in slice order. Two launch shapes: oscar_rotate_q, 512 threads x OSCAR_RNC chunks,\n",
    "// and for one sequence oscar_rotate_q1, 256 threads x OSCAR_RNC1 chunks: its decode grid is placed\n",
    "// while the rotation runs, and on the H100 an SM holding a 512-thread block of more than ~32\n",
    "// registers took one 128-register decode block beside it instead of two (tools/ubench_coresident.cu;\n",
    "// kernels/NOTES.md v43). At batch 8-32 the 512-thread shape measured 0.3-0.7 % faster.\n",
    "static __host__ __device__ constexpr int oscar_rhb(int g, int k) { return k <= 1 \? 1 : (g % k == 0 \? k : oscar_rhb(g, k - 1)); }\n",
    "#define RHB oscar_rhb(G, 8)\n",
    "#ifndef OSCAR_RNC\n",
    "#define OSCAR_RNC 4\n",
    "#endif\n",
    "#ifndef OSCAR_RNC1\n",
    "#define OSCAR_RNC1 8\n",
    "#endif\n",
    "#ifndef OSCAR_RQT1\n",
    "#define OSCAR_RQT1 256\n",
    "#endif\n",
    "template <int RQ_T, int RQ_C>\n",
    "static __device__ __forceinline__ void oscar_rotate_q_body(const oscar_rot_params &p) {\n",
    "    constexpr int RQ_QC = D / RQ_C, RQ_QS = RQ_T / RQ_QC, RQ_QR = D / RQ_QS; // columns per block, slices, rows per slice\n",
    "    static_assert(RQ_QC >= 1 && RQ_QR >= 1 && RQ_QS * RQ_QC == RQ_T && RQ_QS * RQ_QR == D && RQ_T % 32 == 0, \"oscar_rotate_q: D / chunks must divide the threads and leave a row per slice\");\n",
    "    __shared__ float xs[RHB * D];\n",
    "    __shared__ float red[RHB * RQ_T];\n",
    "    const int tid = threadIdx.x, cs = blockIdx.x % RQ_C, h0 = (blockIdx.x / RQ_C) * RHB, b = blockIdx.y;\n",
    "    const int cl = tid % RQ_QC, sl = tid / RQ_QC, c = cs * RQ_QC + cl, i0 = sl * RQ_QR;\n",
    "    const size_t row0 = ((size_t)b * p.Hq + h0) * D;\n",
    "    const float *R = (const float *)p.rot + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 \? h0 / p.gqa : 0)) * D * D;\n",
    "    float r[RQ_QR];\n",
    "    oscar_pdl_launch();\n",
    "    OSCAR_TSTAMP(oscar_rprof, 1024, 0);\n",
    "#pragma unroll\n",
    "    for (int k = 0; k < RQ_QR; k++) r[k] = R[(size_t)(i0 + k) * D + c];\n",
    "    oscar_pdl_wait();\n",
    "    OSCAR_TSTAMP(oscar_rprof, 1024, 1);\n",
    "    for (int i = tid; i < RHB * D; i += RQ_T) xs[i] = ((const float *)p.x)[row0 + i];\n",
    "    __syncthreads();\n",
    "    float acc[RHB];\n",
    "    oscar_rot_slice<RHB>(acc, r, R, xs, c, i0, RQ_QR);\n",
    "    oscar_slices_put<RHB>(red, acc, cl, sl, RQ_QS, RQ_QC);\n",
    "    for (int i = tid; i < RHB * RQ_QC; i += RQ_T) ((float *)p.y)[row0 + (size_t)(i / RQ_QC) * D + cs * RQ_QC + i % RQ_QC] = oscar_slice_total(red, i / RQ_QC, i % RQ_QC, RQ_QS, RQ_QC);\n",
    "    OSCAR_TSTAMP(oscar_rprof, 1024, 2);\n",
    "}\n",
    "// the host reads the launch shapes: query heads per block, then chunks and threads of each kernel\n",
    "extern \"C\" __device__ int oscar_rotate_q_shape[5] = {RHB, OSCAR_RNC, RSL, OSCAR_RNC1, OSCAR_RQT1};\n",
    "extern \"C\" __global__ void __launch_bounds__(RSL) oscar_rotate_q(const oscar_rot_params p) { oscar_rotate_q_body<RSL, OSCAR_RNC>(p); }\n",
    "extern \"C\" __global__ void __launch_bounds__(OSCAR_RQT1) oscar_rotate_q1(const oscar_rot_params p) { oscar_rotate_q_body<OSCAR_RQT1, OSCAR_RNC1>(p); }\n",
    "\n",
    "// merge the splits by log-sum-exp; out = o_rot . R_v^T unless rot == 0. grid (Hq / NH, B), D x NSL\n",
    "// threads; a block merges NH query heads of one KV head. oscar_merge (NH 1) has the most blocks\n",
    "// for small batches; oscar_merge_g (NH = RHB, as oscar_rotate_q) applies the rotation slice each\n",
    "// thread holds to all RHB heads, so batch 32 runs 256 blocks instead of 1024 (one 512-thread\n",
    "// block fits an SM at these kernels' registers). The host keeps RHB x splits <= 1024.\n",
    "// VW 1 (oscar_merge_h: caches whose rotations are all H, rot 0, merge grids of one wave): R_v^T =\n",
    "// H, out = o . H by the fast transform, a warp per head. A kernel of its own: the branch in the\n",
    "// product kernels cost fitted rotations 0.2-0.7 us per batch-1 call; at more than one wave (batch\n",
    "// 8-32) it measured slower than the product (kernels/NOTES.md v46)\n",
    "#ifndef OSCAR_MHMW // oscar_merge_h's partial loads per head and thread in flight: at d 128, 256-thread blocks (merge_threads 0)\n",
    "#define OSCAR_MHMW (D == 128 \? 24 : 16) // merge up to 48 splits in one round (kernels/NOTES.md v61; OSCAR__MERGE_H_MW in oscar_cuda.h)\n",
    "#endif\n",
    "#ifndef OSCAR_MHWARP // oscar_merge_h at batch 1: 1 (default) the splits shared out to warps, each transforming its sum; 0 the\n",
    "#define OSCAR_MHWARP 1 // slices of v61 (kernels/NOTES.md v62)\n",
    "#endif\n",
    "#ifndef OSCAR_MTRIG // timing: the merges let the next kernel launch early, 1 at their start, 2 after their partial loads; 0\n",
    "#define OSCAR_MTRIG 0 // (default): only at their end, so the next kernel's blocks are placed on an empty machine (run s33-8:\n",
    "#endif              // 2 took 1 x 8K from 9.7 to 9.1-9.2 us in a graph but 1 x 32K from 14.8 to 17.0, 1 x 128K 34.1 to 42.2-42.5)\n",
    "template <int NH, int VW>\n",
    "static __device__ __forceinline__ void oscar_merge_body(const oscar_rot_params &p) {\n",
    "    __shared__ float os[NH * D];\n",
    "    __shared__ float red[NH * RMAX * D];\n",
    "    __shared__ float wsp[1024], wls[1024]; // [NH][S]: m, then the weight exp2(m - M) (0 for empty splits); l\n",
    "    __shared__ float hl[NH];             // per head: the sum L\n",
    "    __shared__ float wsum[NH == 1 && OSCAR_MHWARP && D <= 128 \? RSL / 32 * D : 1]; // one head per block: [warp][D], each warp's sum\n",
    "    const int h0 = blockIdx.x * NH, b = blockIdx.y, tid = threadIdx.x, c = tid % D, sl = tid / D, nsl = blockDim.x / D;\n",
    "    const int rps = D / nsl, i0 = sl * rps, nt = blockDim.x, S = p.n_splits, warp = tid >> 5, lane = tid & 31;\n",
    "    const size_t hb0 = (size_t)b * p.Hq + h0;\n",
    "    const float *ml = (const float *)p.part_ml + hb0 * S * 2;\n",
    "    const float *po = (const float *)p.part_o + hb0 * S * D;\n",
    "    const float *RT = p.rot \? (const float *)p.rot + ((size_t)p.layer * p.rot_heads + (p.rot_heads > 1 \? h0 / p.gqa : 0)) * D * D : (const float *)0;\n",
    "    float r[RCH];\n",
    "#ifdef OSCAR_WPROF\n",
    "    const long long mc0 = clock64();\n",
    "#endif\n",
    "    OSCAR_TSTAMP(oscar_mprof, 4096, 0);\n",
    "    if (OSCAR_MTRIG == 1) oscar_pdl_launch();\n",
    "    if (RT) {\n",
    "#pragma unroll\n",
    "        for (int k = 0; k < RCH; k++) r[k] = k < rps \? RT[(size_t)(i0 + k) * D + c] : 0.0f;\n",
    "    }\n",
    "    if (p.counts) {\n",
    "        // the n_splits partials of this KV head are written (oscar_decode_w counts each split with a\n",
    "        // release add after its writes and a barrier): no wait for the rest of the decode grid. The\n",
    "        // last merge block of the KV head to pass resets the count for the next call (whose decode\n",
    "        // counts only after this grid has finished)\n",
    "        if (tid == 0) {\n",
    "            const int gv = p.gqa / p.hsplit; // query heads per counted group\n",
    "            int *cnt = (int *)p.counts + (size_t)b * (p.Hq / gv) + h0 / gv;\n",
    "            int v;\n",
    "            for (;;) {\n",
    "                asm volatile(\"ld.acquire.gpu.global.b32 %0, [%1];\" : \"=r\"(v) : \"l\"(cnt) : \"memory\");\n",
    "                if (v >= S) break;\n",
    "                __nanosleep(64);\n",
    "            }\n",
    "            if (atomicAdd(cnt, 1) == S + gv / NH - 1) atomicExch(cnt, 0);\n",
    "        }\n",
    "        __syncthreads();\n",
    "    } else {\n",
    "        oscar_pdl_wait(); // the decode grid has finished\n",
    "    }\n",
    "    OSCAR_TSTAMP(oscar_mprof, 4096, 1);\n",
    "    OSCAR_PHASE(oscar_mph, 4096, 0, mc0);\n",
    "    if (NH == 1 && OSCAR_MHWARP && D <= 128 && (VW || !RT)) {\n",
    "        // one head whose splits are shared out to the warps (warp w: splits w, w + nw, ...; lane: elements lane + 32 t,\n",
    "        // the transform's layout). Each warp weights and sums its splits, transforms that sum where the merge un-rotates\n",
    "        // by H (oscar_merge_h: o . H is linear) and leaves it in shared memory; one barrier, then a thread per element\n",
    "        // adds the warps' rows and normalises. Where v61's slices had a barrier, a second pass through shared memory and\n",
    "        // one warp transforming alone. Not at d 256, where every warp's transform (40 shuffles) costs more than it saves\n",
    "        // (kernels/NOTES.md v62); oscar_merge takes it where there is no un-rotation (BF16 caches, INT2 caches without\n",
    "        // rotations or with R_v absorbed; v64), not for fitted R_v (the product below needs whole rows per slice)\n",
    "        constexpr int NC = D / 32, KW = (VW \? OSCAR_MHMW : 16) / NC; // elements per lane, splits per warp\n",
    "        const int nw = nt >> 5;\n",
    "        if (S <= 64 && S <= KW * nw) {\n",
    "            const bool a0 = lane < S, a1 = lane + 32 < S;\n",
    "            const float m0 = a0 \? __ldcg(ml + 2 * lane) : 0.0f, l0 = a0 \? __ldcg(ml + 2 * lane + 1) : 0.0f;\n",
    "            const float m1 = a1 \? __ldcg(ml + 2 * (lane + 32)) : 0.0f, l1 = a1 \? __ldcg(ml + 2 * (lane + 32) + 1) : 0.0f;\n",
    "            float v[KW][NC], o[NC], w0, w1;\n",
    "            const float *pk = po + warp * D + lane;\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < KW; k++, pk += nw * D) {\n",
    "                const bool in = warp + k * nw < S;\n",
    "#pragma unroll\n",
    "                for (int t = 0; t < NC; t++) v[k][t] = in \? __ldcg(pk + 32 * t) : 0.0f;\n",
    "            }\n",
    "            // the V mean of this thread's element (cfg.center 1, as put below)\n",
    "            const float vm = p.vmo && tid < D \? ((const float *)p.vmo)[((size_t)p.layer * (p.Hq / p.gqa) + h0 / p.gqa) * D + tid] : 0.0f;\n",
    "#ifdef OSCAR_WPROF\n",
    "            { // the loads' arrival, for the phase record only\n",
    "                float chk = m0 + l0 + m1 + l1;\n",
    "#pragma unroll\n",
    "                for (int k = 0; k < KW; k++) chk += v[k][0];\n",
    "                asm volatile(\"\" ::\"f\"(chk));\n",
    "            }\n",
    "            OSCAR_PHASE(oscar_mph, 4096, 4, mc0);\n",
    "#endif\n",
    "            const float L = oscar_split_weights(m0, l0, m1, l1, w0, w1);\n",
    "            OSCAR_PHASE(oscar_mph, 4096, 5, mc0);\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < NC; t++) o[t] = 0.0f;\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < KW; k++) {\n",
    "                const int s = warp + k * nw; // the same in the whole warp\n",
    "                const float w = __shfl_sync(0xffffffffu, s < 32 \? w0 : w1, s & 31);\n",
    "                if (s < S && w > 0.0f)\n",
    "#pragma unroll\n",
    "                    for (int t = 0; t < NC; t++) o[t] += w * v[k][t];\n",
    "            }\n",
    "            if (OSCAR_MTRIG == 2) oscar_pdl_launch(); // every partial this thread reads is in its sums\n",
    "            OSCAR_PHASE(oscar_mph, 4096, 1, mc0);\n",
    "            if (VW) oscar_wht_row<D>(o, lane);\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < NC; t++) wsum[warp * D + lane + 32 * t] = o[t];\n",
    "            __syncthreads();\n",
    "            OSCAR_PHASE(oscar_mph, 4096, 2, mc0);\n",
    "            if (tid < D) { // blocks have at least D threads\n",
    "                float y = 0.0f;\n",
    "#pragma unroll\n",
    "                for (int k = 0; k < RSL / 32; k++)\n",
    "                    if (k < nw) y += wsum[k * D + tid];\n",
    "                y = L > 0.0f \? y / L : 0.0f;\n",
    "                ((float *)p.y)[hb0 * D + tid] = p.vmo \? y + vm : y;\n",
    "            }\n",
    "            OSCAR_TSTAMP(oscar_mprof, 4096, 2);\n",
    "            OSCAR_PHASE(oscar_mph, 4096, 3, mc0);\n",
    "            return;\n",
    "        }\n",
    "    }\n",
    "    // the first MW splits of every head in flight before the weights need them (batch 1 with\n",
    "    // up to MW x NSL splits: every partial in one round trip); an empty split's partial o is 0\n",
    "    // (oscar_decode_w writes every split), a split of a sequence with non-finite values has weight > 0\n",
    "#define MW (VW \? OSCAR_MHMW : 16 / NH > 2 \? 16 / NH : 2) // partial loads per head in flight per thread\n",
    "    float v[NH][MW], o[NH];\n",
    "    auto load = [&](int s0) { // splits s0, s0 + nsl, ... s0 + (MW - 1) nsl of every head\n",
    "#pragma unroll\n",
    "        for (int hh = 0; hh < NH; hh++)\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < MW; k++) {\n",
    "                const int s = s0 + k * nsl;\n",
    "                v[hh][k] = s < S \? __ldcg(po + ((size_t)hh * S + s) * D + c) : 0.0f;\n",
    "            }\n",
    "    };\n",
    "    load(sl);\n",
    "#pragma unroll\n",
    "    for (int hh = 0; hh < NH; hh++) o[hh] = 0.0f;\n",
    "    if (NH == 1 && S <= 64 && S <= MW * nsl) {\n",
    "        // one head whose partials are all in registers (batch 1): every warp takes the split weights\n",
    "        // from ml itself (lane s: splits s and s + 32) and passes them by shuffles; no barrier, and\n",
    "        // the same operations in the same order as the general path below\n",
    "        const bool a0 = lane < S, a1 = lane + 32 < S;\n",
    "        const float m0 = a0 \? __ldcg(ml + 2 * lane) : 0.0f, l0 = a0 \? __ldcg(ml + 2 * lane + 1) : 0.0f;\n",
    "        const float m1 = a1 \? __ldcg(ml + 2 * (lane + 32)) : 0.0f, l1 = a1 \? __ldcg(ml + 2 * (lane + 32) + 1) : 0.0f;\n",
    "        float w0, w1;\n",
    "#ifdef OSCAR_WPROF\n",
    "        { // the loads' arrival, for the phase record only\n",
    "            float chk = m0 + l0 + m1 + l1;\n",
    "#pragma unroll\n",
    "            for (int k = 0; k < MW; k++) chk += v[0][k];\n",
    "            asm volatile(\"\" ::\"f\"(chk));\n",
    "        }\n",
    "        OSCAR_PHASE(oscar_mph, 4096, 4, mc0);\n",
    "#endif\n",
    "        const float L = oscar_split_weights(m0, l0, m1, l1, w0, w1);\n",
    "        OSCAR_PHASE(oscar_mph, 4096, 5, mc0);\n",
    "        if (tid == 0) hl[0] = L; // read after oscar_slices_put's barrier\n",
    "#pragma unroll\n",
    "        for (int k = 0; k < MW; k++) {\n",
    "            const int s = sl + k * nsl; // the same in the whole warp\n",
    "            const float w = __shfl_sync(0xffffffffu, s < 32 \? w0 : w1, s & 31);\n",
    "            if (s < S && w > 0.0f) o[0] += w * v[0][k];\n",
    "        }\n",
    "    } else {\n",
    "        for (int i = tid; i < NH * S; i += nt) {\n",
    "            wsp[i] = __ldcg(ml + 2 * i);\n",
    "            wls[i] = __ldcg(ml + 2 * i + 1);\n",
    "        }\n",
    "        __syncthreads();\n",
    "        // per head (one warp each): the max over non-empty splits, each split's weight, the sum L\n",
    "        for (int hh = warp; hh < NH; hh += nt / 32) {\n",
    "            float M = OSCAR_NEG_INF;\n",
    "            for (int s = lane; s < S; s += 32)\n",
    "                if (wls[hh * S + s] > 0.0f) M = fmaxf(M, wsp[hh * S + s]);\n",
    "#pragma unroll\n",
    "            for (int x = 16; x > 0; x >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, x));\n",
    "            float L = 0.0f;\n",
    "            for (int s = lane; s < S; s += 32) {\n",
    "                const float l = wls[hh * S + s], w = l > 0.0f \? exp2f(wsp[hh * S + s] - M) : 0.0f;\n",
    "                wsp[hh * S + s] = w;\n",
    "                L += w * l;\n",
    "            }\n",
    "#pragma unroll\n",
    "            for (int x = 16; x > 0; x >>= 1) L += __shfl_xor_sync(0xffffffffu, L, x);\n",
    "            if (lane == 0) hl[hh] = L;\n",
    "        }\n",
    "        __syncthreads();\n",
    "        for (int s0 = sl; s0 < S; s0 += MW * nsl) {\n",
    "            if (s0 != sl) load(s0); // the first round is already in registers\n",
    "#pragma unroll\n",
    "            for (int hh = 0; hh < NH; hh++)\n",
    "#pragma unroll\n",
    "                for (int k = 0; k < MW; k++) {\n",
    "                    const int s = s0 + k * nsl;\n",
    "                    const float w = s < S \? wsp[hh * S + s] : 0.0f;\n",
    "                    if (w > 0.0f) o[hh] += w * v[hh][k];\n",
    "                }\n",
    "        }\n",
    "    }\n",
    "    if (OSCAR_MTRIG == 2) oscar_pdl_launch(); // every partial this thread reads is in its sums\n",
    "    OSCAR_PHASE(oscar_mph, 4096, 1, mc0);\n",
    "    // sum over the slices; normalise; un-rotate; the V mean back (cfg.center 1: the rows were stored\n",
    "    // less it, the weights sum to 1; one fp32 add as the CPU cache)\n",
    "    const float *vmo = p.vmo \? (const float *)p.vmo + ((size_t)p.layer * (p.Hq / p.gqa) + h0 / p.gqa) * D : (const float *)0;\n",
    "    auto put = [&](int i, float y) { ((float *)p.y)[hb0 * D + i] = vmo \? y + vmo[(size_t)((h0 + i / D) / p.gqa - h0 / p.gqa) * D + i % D] : y; };\n",
    "    oscar_slices_put<NH>(red, o, c, sl, nsl, D);\n",
    "    for (int i = tid; i < NH * D; i += nt) {\n",
    "        const float t = oscar_slice_total(red, i / D, i % D, nsl, D), L = hl[i / D];\n",
    "        if (VW || RT) os[i] = L > 0.0f \? t / L : 0.0f;\n",
    "        else put(i, L > 0.0f \? t / L : 0.0f);\n",
    "    }\n",
    "    OSCAR_PHASE(oscar_mph, 4096, 2, mc0);\n",
    "    if (VW) {\n",
    "        __syncthreads(); // os is complete\n",
    "        for (int hh = warp; hh < NH; hh += nt / 32) {\n",
    "            float x[D / 32];\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) x[t] = os[hh * D + lane + 32 * t];\n",
    "            oscar_wht_row<D>(x, lane);\n",
    "#pragma unroll\n",
    "            for (int t = 0; t < D / 32; t++) put(hh * D + lane + 32 * t, x[t]);\n",
    "        }\n",
    "    } else if (RT) {\n",
    "        __syncthreads(); // os is complete and every read of red above is done\n",
    "        float acc[NH];\n",
    "        oscar_rot_slice<NH>(acc, r, RT, os, c, i0, rps);\n",
    "        oscar_slices_put<NH>(red, acc, c, sl, nsl, D);\n",
    "        for (int i = tid; i < NH * D; i += nt) put(i, oscar_slice_total(red, i / D, i % D, nsl, D));\n",
    "    }\n",
    "    OSCAR_TSTAMP(oscar_mprof, 4096, 2);\n",
    "    OSCAR_PHASE(oscar_mph, 4096, 3, mc0);\n",
    "}\n",
    "#undef MW\n",
    "extern \"C\" __global__ void __launch_bounds__(RSL) oscar_merge(const oscar_rot_params p) { oscar_merge_body<1, 0>(p); }\n",
    "extern \"C\" __global__ void __launch_bounds__(RSL) oscar_merge_g(const oscar_rot_params p) { oscar_merge_body<oscar_rhb(G, 8), 0>(p); }\n",
    "extern \"C\" __global__ void __launch_bounds__(RSL) oscar_merge_h(const oscar_rot_params p) { oscar_merge_body<1, 1>(p); }\n",
    0};
/* <<embedded-kernels */

typedef struct oscar__src_file {
    const char *name;
    const char *const *lines;
} oscar__src_file;

static const oscar__src_file oscar__src_files[] = {
    {"oscar_common.cuh", oscar__src_oscar_common_cuh},
    {"oscar_append.cu", oscar__src_oscar_append_cu},
    {"oscar_decode.cu", oscar__src_oscar_decode_cu},
};

OSCAR_API char *oscar_cuda_source(const char *file) {
    int i, k;
    size_t n = 1;
    char *s;
    for (i = 0; i < (int)(sizeof oscar__src_files / sizeof oscar__src_files[0]); i++) {
        const char *const *l = oscar__src_files[i].lines;
        if (strcmp(oscar__src_files[i].name, file) != 0) continue;
        for (k = 0; l[k]; k++) n += strlen(l[k]);
        s = (char *)OSCAR_CUDA_MALLOC(n);
        if (!s) return NULL;
        n = 0;
        for (k = 0; l[k]; k++) {
            size_t m = strlen(l[k]);
            memcpy(s + n, l[k], m);
            n += m;
        }
        s[n] = 0;
        return s;
    }
    return NULL;
}

static uint64_t oscar__fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}
static uint64_t oscar__fnv_str(uint64_t h, const char *s) { return oscar__fnv(h, s, strlen(s) + 1); }

static int oscar__set_log(oscar_cuda *cu, const char *text, size_t n) {
    char *l = (char *)OSCAR_CUDA_MALLOC(n + 1);
    if (!l) return OSCAR_ERR_NOMEM;
    memcpy(l, text, n);
    l[n] = 0;
    OSCAR_CUDA_FREE(cu->log);
    cu->log = l;
    return OSCAR_OK;
}

OSCAR_API const char *oscar_cuda_log(const oscar_cuda *cu) { return cu && cu->log ? cu->log : ""; }

static const char oscar__cache_magic[8] = {'O', 'S', 'C', 'A', 'R', 'K', 'C', '1'};

static void *oscar__cache_read(oscar_cuda *cu, uint64_t key, size_t *size) {
    char path[700];
    FILE *f;
    unsigned char head[24];
    uint64_t k, n;
    void *img = NULL;
    if (!cu->cache_dir[0]) return NULL;
    snprintf(path, sizeof path, "%s/oscar-%016llx.bin", cu->cache_dir, (unsigned long long)key);
    f = fopen(path, "rb");
    if (!f) return NULL;
    if (fread(head, 1, 24, f) == 24 && memcmp(head, oscar__cache_magic, 8) == 0) {
        memcpy(&k, head + 8, 8);
        memcpy(&n, head + 16, 8);
        if (k == key && n > 0 && n < ((uint64_t)1 << 30)) {
            img = OSCAR_CUDA_MALLOC((size_t)n + 1);
            if (img && fread(img, 1, (size_t)n, f) != (size_t)n) {
                OSCAR_CUDA_FREE(img);
                img = NULL;
            }
            if (img) {
                ((char *)img)[n] = 0;
                *size = (size_t)n;
            }
        }
    }
    fclose(f);
    return img;
}

static void oscar__cache_write(oscar_cuda *cu, uint64_t key, const void *img, size_t size) {
    char path[700], tmp[760];
    FILE *f;
    unsigned char head[24];
    uint64_t n = size;
    int ok;
    if (!cu->cache_dir[0]) return;
    snprintf(path, sizeof path, "%s/oscar-%016llx.bin", cu->cache_dir, (unsigned long long)key);
    snprintf(tmp, sizeof tmp, "%s.%p.tmp", path, (void *)cu);
    f = fopen(tmp, "wb");
    if (!f) return;
    memcpy(head, oscar__cache_magic, 8);
    memcpy(head + 8, &key, 8);
    memcpy(head + 16, &n, 8);
    ok = fwrite(head, 1, 24, f) == 24 && fwrite(img, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}

/* host copies of the kernel parameter blocks (kernels/oscar_common.cuh). Every kernel compile passes their sizes
   (-DOSCAR_HOST_*_PARAMS, oscar__nvrtc_compile), which the kernels' own definitions must match */
#define OSCAR__INLINE_INTS 256 /* OSCAR_INLINE_INTS in kernels/oscar_common.cuh */
typedef struct oscar__append_params {
    uint64_t k, v, jobs, pool, sink, win, krot, vrot, err, bt, kmean, vmean;
    int32_t n_jobs, layer, L, Hkv, S0, ring, P, max_pages, rot_heads, head_page_bytes, n_runs;
    int32_t wht, wlate, epoch, tr, sms;
    float k_clip, v_clip;
    int32_t inl[OSCAR__INLINE_INTS];
} oscar__append_params;

#define OSCAR__INLINE_SEQS 64 /* OSCAR_INLINE_SEQS in kernels/oscar_common.cuh */
typedef struct oscar__attn_params {
    uint64_t q, part_o, part_ml, seqinfo, pool, sink, win, bt, counts, y, vmo;
    int32_t layer, L, Hkv, S0, W, P, ring, max_pages, max_blocks, n_splits, head_page_bytes, qwht, vwht, l2pf;
    float scale_log2;
    int32_t inline_info[2 * OSCAR__INLINE_SEQS];
} oscar__attn_params;

typedef struct oscar__rot_params {
    uint64_t x, y, rot, part_o, part_ml, counts, vmo;
    int32_t layer, Hq, gqa, rot_heads, n_splits;
    int32_t hsplit;
} oscar__rot_params;

/* the sizes of the host's parameter blocks, as the kernels' static_asserts take them */
static void oscar__host_layout(char buf[3][48]) {
    snprintf(buf[0], 48, "-DOSCAR_HOST_APPEND_PARAMS=%u", (unsigned)sizeof(oscar__append_params));
    snprintf(buf[1], 48, "-DOSCAR_HOST_ATTN_PARAMS=%u", (unsigned)sizeof(oscar__attn_params));
    snprintf(buf[2], 48, "-DOSCAR_HOST_ROT_PARAMS=%u", (unsigned)sizeof(oscar__rot_params));
}

/* compile src; *image gets a malloc'd CUBIN or NUL-terminated PTX. The log lands in cu->log. */
static int oscar__nvrtc_compile(oscar_cuda *cu, const char *name, const char *src, const char *const *opts, int n_opts, int arch, int ptx, void **image, size_t *size) {
    oscar_nvrtc_program prog = NULL;
    oscar_nvrtc_result r;
    const char *hdr_names[1] = {"oscar_common.cuh"};
    const char *hdrs[1];
    char *common, archopt[32];
    const char **all;
    char extra[256], *tok[16], layout[3][48];
    size_t n = 0, logn = 0;
    int i, rc = OSCAR_OK, n_extra = 0, n_fixed;
    *image = NULL;
    *size = 0;
    if (!cu->lib_nvrtc) {
        snprintf(cu->msg, sizeof cu->msg, "NVRTC is not loaded");
        return OSCAR_ERR_NO_NVRTC;
    }
    common = oscar_cuda_source("oscar_common.cuh");
    memcpy(extra, cu->extra_options, sizeof extra);
    for (i = 0; extra[i] && n_extra < 16;) {
        while (extra[i] == ' ') extra[i++] = 0;
        if (!extra[i]) break;
        tok[n_extra++] = extra + i;
        while (extra[i] && extra[i] != ' ') i++;
    }
    all = (const char **)OSCAR_CUDA_MALLOC(sizeof(char *) * (size_t)(n_opts + n_extra + 7));
    if (!common || !all) {
        OSCAR_CUDA_FREE(common);
        OSCAR_CUDA_FREE((void *)all);
        return OSCAR_ERR_NOMEM;
    }
    hdrs[0] = common;
    /* a cubin for compute capability 9.0 is built for sm_90a (its wgmma instructions serve the
       write path's dense rotations); PTX stays compute_XX so that the driver can JIT it elsewhere */
    snprintf(archopt, sizeof archopt, "-arch=%s_%d%s", ptx ? "compute" : "sm", arch, !ptx && arch == 90 ? "a" : "");
    all[0] = archopt;
    all[1] = "-std=c++17";
    oscar__host_layout(layout);
    all[2] = layout[0], all[3] = layout[1], all[4] = layout[2];
    n_fixed = 5;
    if (cu->verbose) all[n_fixed++] = "-lineinfo";
    for (i = 0; i < n_opts; i++) all[n_fixed + i] = opts[i];
    for (i = 0; i < n_extra; i++) all[n_fixed + n_opts + i] = tok[i];
    r = cu->rtc.nvrtcCreateProgram(&prog, src, name, 1, hdrs, hdr_names);
    if (r) {
        snprintf(cu->msg, sizeof cu->msg, "nvrtcCreateProgram(%s): %s", name, cu->rtc.nvrtcGetErrorString(r));
        rc = OSCAR_ERR_COMPILE;
        goto done;
    }
    r = cu->rtc.nvrtcCompileProgram(prog, n_fixed + n_opts + n_extra, all);
    if (cu->rtc.nvrtcGetProgramLogSize(prog, &logn) == 0 && logn > 0) {
        char *l = (char *)OSCAR_CUDA_MALLOC(logn + 1);
        if (l && cu->rtc.nvrtcGetProgramLog(prog, l) == 0) {
            l[logn] = 0;
            oscar__set_log(cu, l, strlen(l));
        }
        OSCAR_CUDA_FREE(l);
    } else {
        oscar__set_log(cu, "", 0);
    }
    if (r) {
        char first[300];
        size_t k = 0;
        while (cu->log[k] && cu->log[k] != '\n' && k + 1 < sizeof first) {
            first[k] = cu->log[k];
            k++;
        }
        first[k] = 0;
        snprintf(cu->msg, sizeof cu->msg, "NVRTC failed to compile %s for %s: %s: %s (full log: oscar_cuda_log)", name, archopt + 6, cu->rtc.nvrtcGetErrorString(r), first);
        rc = OSCAR_ERR_COMPILE;
        goto done;
    }
    r = ptx ? cu->rtc.nvrtcGetPTXSize(prog, &n) : cu->rtc.nvrtcGetCUBINSize(prog, &n);
    if (!r && n > 0) {
        *image = OSCAR_CUDA_MALLOC(n + 1);
        if (!*image) {
            rc = OSCAR_ERR_NOMEM;
            goto done;
        }
        r = ptx ? cu->rtc.nvrtcGetPTX(prog, (char *)*image) : cu->rtc.nvrtcGetCUBIN(prog, (char *)*image);
        ((char *)*image)[n] = 0;
    }
    if (r || n == 0) {
        snprintf(cu->msg, sizeof cu->msg, "NVRTC produced no %s for %s (%s)", ptx ? "PTX" : "CUBIN", name, r ? cu->rtc.nvrtcGetErrorString(r) : "empty");
        OSCAR_CUDA_FREE(*image);
        *image = NULL;
        rc = OSCAR_ERR_COMPILE;
        goto done;
    }
    *size = n;
done:
    if (prog) cu->rtc.nvrtcDestroyProgram(&prog);
    OSCAR_CUDA_FREE(common);
    OSCAR_CUDA_FREE((void *)all);
    return rc;
}

static const char *oscar__prog_file(int program) {
    return program == OSCAR_CUDA_PROG_APPEND ? "oscar_append.cu" : program == OSCAR_CUDA_PROG_DECODE ? "oscar_decode.cu" : NULL;
}

static int oscar__gcd(int a, int b) {
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* the -D options of a specialisation; returns how many (into opts, storage in buf) */
static int oscar__variant_options(int program, const oscar_cuda_variant *v, char buf[8][48], const char *opts[10]) {
    int n = 0, d = v->head_dim, gs = v->group_size ? v->group_size : (d < 128 ? d : 128);
    snprintf(buf[n], 48, "-DOSCAR_D=%d", d), n++;
    snprintf(buf[n], 48, "-DOSCAR_GS=%d", v->int2 ? gs : d), n++;
    snprintf(buf[n], 48, "-DOSCAR_INT2=%d", v->int2 ? 1 : 0), n++;
    if (program == OSCAR_CUDA_PROG_DECODE) {
        int tb = 4096 / d < 64 ? 4096 / d : 64, P = v->page_size ? v->page_size : 64;
        snprintf(buf[n], 48, "-DOSCAR_G=%d", v->gqa > 0 ? v->gqa : 1), n++;
        snprintf(buf[n], 48, "-DOSCAR_TB=%d", tb), n++;
        snprintf(buf[n], 48, "-DOSCAR_TH=%d", oscar__gcd(P, v->int2 ? 64 : tb)), n++;
        snprintf(buf[n], 48, "-DOSCAR_P=%d", P), n++;
        if (v->hsplit > 1) snprintf(buf[n], 48, "-DOSCAR_HSPLIT=%d", v->hsplit), n++;
    }
    if (program == OSCAR_CUDA_PROG_APPEND && v->center) snprintf(buf[n], 48, "-DOSCAR_CENTER=1"), n++;
    if (program == OSCAR_CUDA_PROG_APPEND && (v->gain & 3)) snprintf(buf[n], 48, "-DOSCAR_GAIN=%d", v->gain & 3), n++;
    for (int i = 0; i < n; i++) opts[i] = buf[i];
    if (program == OSCAR_CUDA_PROG_APPEND) opts[n++] = "--fmad=false";
    return n;
}

#define OSCAR__MAX_HSPLIT 32  /* query-head groups per KV head (G <= 32) */
static int oscar__check_variant(oscar_cuda *cu, int program, const oscar_cuda_variant *v) {
    int d = v->head_dim, gs = v->group_size ? v->group_size : (d < 128 ? d : 128);
    if (!oscar__prog_file(program)) {
        snprintf(cu->msg, sizeof cu->msg, "unknown kernel program %d", program);
        return OSCAR_ERR_INVALID_ARG;
    }
    if (d != 64 && d != 128 && d != 256) {
        snprintf(cu->msg, sizeof cu->msg, "GPU kernels support head_dim 64, 128, 256 (got %d)", d);
        return OSCAR_ERR_DIM;
    }
    if (v->int2 && (gs < 16 || gs > d || (gs & (gs - 1)) != 0)) {
        snprintf(cu->msg, sizeof cu->msg, "GPU kernels need a power-of-two group size in [16, d] (got %d)", gs);
        return OSCAR_ERR_DIM;
    }
    if (program == OSCAR_CUDA_PROG_DECODE && (v->gqa < 1 || v->gqa > 32)) {
        snprintf(cu->msg, sizeof cu->msg, "GPU kernels support 1..32 query heads per KV head (got %d)", v->gqa);
        return OSCAR_ERR_INVALID_ARG;
    }
    if (v->page_size < 0 || (v->page_size % 4) != 0) {
        snprintf(cu->msg, sizeof cu->msg, "GPU kernels need a page size that is a multiple of 4 (got %d)", v->page_size);
        return OSCAR_ERR_INVALID_ARG;
    }
    if (program == OSCAR_CUDA_PROG_DECODE && (v->hsplit < 0 || v->hsplit > OSCAR__MAX_HSPLIT || (long long)v->gqa * (v->hsplit > 1 ? v->hsplit : 1) > 32)) {
        snprintf(cu->msg, sizeof cu->msg, "GPU kernels support 0..%d query-head groups per KV head, at most 32 heads in all (got %d groups of %d)", OSCAR__MAX_HSPLIT, v->hsplit, v->gqa);
        return OSCAR_ERR_INVALID_ARG;
    }
    return OSCAR_OK;
}

static int oscar__compile_to_image(oscar_cuda *cu, const char *file, const char *const *opts, int n_opts, int arch, int ptx, void **image, size_t *size, uint64_t *key_out) {
    char *src = oscar_cuda_source(file);
    uint64_t key = 14695981039346656037ull;
    char ver[96];
    int i, rc;
    if (!src) {
        snprintf(cu->msg, sizeof cu->msg, "no embedded source %s", file);
        return OSCAR_ERR_INVALID_ARG;
    }
    {
        char *common = oscar_cuda_source("oscar_common.cuh");
        if (common) key = oscar__fnv_str(key, common);
        OSCAR_CUDA_FREE(common);
    }
    key = oscar__fnv_str(key, file);
    key = oscar__fnv_str(key, src);
    {
        char layout[3][48];
        oscar__host_layout(layout);
        for (i = 0; i < 3; i++) key = oscar__fnv_str(key, layout[i]);
    }
    for (i = 0; i < n_opts; i++) key = oscar__fnv_str(key, opts[i]);
    snprintf(ver, sizeof ver, "nvrtc %d.%d driver %d arch %d ptx %d verbose %d", cu->nvrtc_major, cu->nvrtc_minor, cu->driver_version, arch, ptx, cu->verbose);
    key = oscar__fnv_str(key, ver);
    key = oscar__fnv_str(key, cu->extra_options);
    if (key_out) *key_out = key;
    *image = oscar__cache_read(cu, key, size);
    if (*image) {
        OSCAR_CUDA_FREE(src);
        return OSCAR_OK;
    }
    rc = oscar__nvrtc_compile(cu, file, src, opts, n_opts, arch, ptx, image, size);
    OSCAR_CUDA_FREE(src);
    if (rc == OSCAR_OK) oscar__cache_write(cu, key, *image, *size);
    return rc;
}

OSCAR_API int oscar_cuda_compile_variant(oscar_cuda *cu, int program, const oscar_cuda_variant *v, int arch, int ptx, size_t *image_bytes) {
    char buf[8][48];
    const char *opts[10];
    void *img = NULL;
    size_t n = 0;
    int no, rc;
    if (!cu || !v) return OSCAR_ERR_NULL;
    if ((rc = oscar__check_variant(cu, program, v)) != OSCAR_OK) return rc;
    no = oscar__variant_options(program, v, buf, opts);
    rc = oscar__compile_to_image(cu, oscar__prog_file(program), opts, no, arch ? arch : cu->arch, ptx, &img, &n, NULL);
    OSCAR_CUDA_FREE(img);
    if (image_bytes) *image_bytes = n;
    return rc;
}

OSCAR_API int oscar_cuda_compile_source(oscar_cuda *cu, const char *name, const char *source, const char *const *options, int n_options, int arch, int ptx, size_t *image_bytes) {
    void *img = NULL;
    size_t n = 0;
    int rc;
    if (!cu || !name || !source) return OSCAR_ERR_NULL;
    rc = oscar__nvrtc_compile(cu, name, source, options, n_options, arch ? arch : cu->arch, ptx, &img, &n);
    OSCAR_CUDA_FREE(img);
    if (image_bytes) *image_bytes = n;
    return rc;
}

/* a loaded module for one specialisation (context must be current) */
static int oscar__get_module(oscar_cuda *cu, int program, const oscar_cuda_variant *v, oscar_cu_module *out) {
    char buf[8][48], key[512];
    const char *opts[10];
    const char *file = oscar__prog_file(program);
    void *img = NULL;
    size_t n = 0, kn;
    int no, i, rc, ptx = cu->ptx;
    oscar_cu_module mod = NULL;
    oscar_cu_result r;
    if ((rc = oscar__check_variant(cu, program, v)) != OSCAR_OK) return rc;
    no = oscar__variant_options(program, v, buf, opts);
    snprintf(key, sizeof key, "%s %s", file, cu->extra_options);
    for (i = 0; i < no; i++) {
        kn = strlen(key);
        snprintf(key + kn, sizeof key - kn, " %s", opts[i]);
    }
    for (i = 0; i < cu->n_mods; i++)
        if (strcmp(cu->mods[i].key, key) == 0) {
            *out = cu->mods[i].mod;
            return OSCAR_OK;
        }
    for (;;) {
        rc = oscar__compile_to_image(cu, file, opts, no, cu->arch, ptx, &img, &n, NULL);
        if (rc) return rc;
        r = cu->drv.cuModuleLoadData(&mod, img);
        OSCAR_CUDA_FREE(img);
        img = NULL;
        if (!r) break;
        if (!ptx) { /* a CUBIN the driver refuses: let the driver compile PTX instead */
            ptx = 1;
            continue;
        }
        return oscar__cu_fail(cu, r, "cuModuleLoadData");
    }
    if (cu->n_mods == cu->cap_mods) {
        int cap = cu->cap_mods ? 2 * cu->cap_mods : 16;
        oscar_cuda_module *m = (oscar_cuda_module *)OSCAR_CUDA_MALLOC(sizeof *m * (size_t)cap);
        if (!m) {
            cu->drv.cuModuleUnload(mod);
            return OSCAR_ERR_NOMEM;
        }
        if (cu->n_mods) memcpy(m, cu->mods, sizeof *m * (size_t)cu->n_mods);
        OSCAR_CUDA_FREE(cu->mods);
        cu->mods = m;
        cu->cap_mods = cap;
    }
    kn = strlen(key) + 1;
    cu->mods[cu->n_mods].key = (char *)OSCAR_CUDA_MALLOC(kn);
    if (!cu->mods[cu->n_mods].key) {
        cu->drv.cuModuleUnload(mod);
        return OSCAR_ERR_NOMEM;
    }
    memcpy(cu->mods[cu->n_mods].key, key, kn);
    cu->mods[cu->n_mods].mod = mod;
    cu->n_mods++;
    *out = mod;
    return OSCAR_OK;
}

/* >>cuda-kv ---- the device cache ---- */


static int oscar__kv_fail(oscar_cuda_kv *kv, int rc) {
    snprintf(kv->msg, sizeof kv->msg, "%s", kv->cu->msg);
    return rc;
}

static int oscar__kv_hist(const oscar_cuda_kv *kv, int n) {
    return n >= kv->S0 + kv->W ? kv->P * ((n - kv->S0 - kv->W) / kv->P) : 0;
}

OSCAR_API void oscar_cuda_kv_free(oscar_cuda_kv *kv) {
    int i;
    if (!kv) return;
    if (kv->cu && kv->cu->have_device && oscar_cuda_push(kv->cu) == OSCAR_OK) {
        oscar_cuda *cu = kv->cu;
        cu->drv.cuCtxSynchronize();
        if (kv->pool) cu->drv.cuMemFree(kv->pool);
        if (kv->sink) cu->drv.cuMemFree(kv->sink);
        if (kv->win) cu->drv.cuMemFree(kv->win);
        if (kv->bt) cu->drv.cuMemFree(kv->bt);
        if (kv->err) cu->drv.cuMemFree(kv->err);
        if (kv->counts) cu->drv.cuMemFree(kv->counts);
        if (kv->krot) cu->drv.cuMemFree(kv->krot);
        if (kv->vrot) cu->drv.cuMemFree(kv->vrot);
        if (kv->vrot_t) cu->drv.cuMemFree(kv->vrot_t);
        if (kv->kmean) cu->drv.cuMemFree(kv->kmean);
        if (kv->vmean) cu->drv.cuMemFree(kv->vmean);
        if (kv->vmo) cu->drv.cuMemFree(kv->vmo);
        if (kv->kfrag) cu->drv.cuMemFree(kv->kfrag);
        if (kv->vfrag) cu->drv.cuMemFree(kv->vfrag);
        if (kv->jobs) cu->drv.cuMemFree(kv->jobs);
        if (kv->work) cu->drv.cuMemFree(kv->work);
        oscar_cuda_pop(cu);
    }
    if (kv->seqs)
        for (i = 0; i < kv->max_seqs; i++) {
            OSCAR_CUDA_FREE(kv->seqs[i].n_tok);
            OSCAR_CUDA_FREE(kv->seqs[i].pages);
        }
    OSCAR_CUDA_FREE(kv->seqs);
    OSCAR_CUDA_FREE(kv->refcount);
    OSCAR_CUDA_FREE(kv->free_list);
    OSCAR_CUDA_FREE(kv->h_jobs);
    OSCAR_CUDA_FREE(kv->h_kbal);
    memset(kv, 0, sizeof *kv);
}

static int oscar__kv_alloc(oscar_cuda_kv *kv, oscar_cu_ptr *p, size_t bytes) {
    oscar_cu_result r = kv->cu->drv.cuMemAlloc(p, bytes ? bytes : 16);
    if (r) {
        char what[64];
        int rc = oscar__cu_fail(kv->cu, r, "cuMemAlloc_v2");
        snprintf(what, sizeof what, " (%.1f MiB)", (double)bytes / 1048576.0);
        snprintf(kv->msg, sizeof kv->msg, "%.900s%s", kv->cu->msg, what);
        *p = 0;
        return rc;
    }
    return OSCAR_OK;
}

static int oscar__kv_upload_rot(oscar_cuda_kv *kv, oscar_cu_ptr *dst, const float *src, int transpose) {
    size_t n = (size_t)kv->L * kv->rot_heads * kv->d * kv->d, m, a, b, d = (size_t)kv->d;
    float *t = NULL;
    oscar_cu_result r;
    int rc = oscar__kv_alloc(kv, dst, n * sizeof(float));
    if (rc) return rc;
    if (transpose) {
        t = (float *)OSCAR_CUDA_MALLOC(n * sizeof(float));
        if (!t) return OSCAR_ERR_NOMEM;
        for (m = 0; m < n / (d * d); m++)
            for (a = 0; a < d; a++)
                for (b = 0; b < d; b++) t[m * d * d + b * d + a] = src[m * d * d + a * d + b];
        src = t;
    }
    r = kv->cu->drv.cuMemcpyHtoD(*dst, src, n * sizeof(float));
    OSCAR_CUDA_FREE(t);
    return r ? oscar__kv_fail(kv, oscar__cu_fail(kv->cu, r, "cuMemcpyHtoD_v2")) : OSCAR_OK;
}

/* the write path's B operands of each dense rotation (see oscar_append.cu, oscar__rotate_tile),
   Rq = oscar_rotation_q14(R) = 256 Rh + Rl with Rl in [-128, 127], 2 d^2 bytes per matrix:
   - mma.sync fragments (wg 0): [d/32 k steps][d/8 n-tiles][32 lanes] x 16 bytes; lane (g, t) of
     n-tile n, step s: Rh[32 s + 4 t + i][8 n + g] (i = 0..3), Rh[32 s + 16 + 4 t + i][..], then
     the same of Rl;
   - the shared-memory image of the wgmma kernels (wg 1): [Rh | Rl][d/32 k steps s][d/8 column
     groups][2 k halves][8 columns n][16 k]: byte (k, n) of step s at k = 32 s + 16 half + i */
static int oscar__kv_upload_frag(oscar_cuda_kv *kv, oscar_cu_ptr *dst, const float *src, int wg) {
    const int d = kv->d;
    const size_t dd = (size_t)d * d, n = (size_t)kv->L * kv->rot_heads;
    int8_t *f = (int8_t *)OSCAR_CUDA_MALLOC(n * dd * 2);
    int16_t *rq = (int16_t *)OSCAR_CUDA_MALLOC(dd * sizeof(int16_t));
    oscar_cu_result r;
    size_t m;
    int rc = OSCAR_OK;
    if (!f || !rq) rc = OSCAR_ERR_NOMEM;
    for (m = 0; !rc && m < n; m++) {
        int8_t *fm = f + m * dd * 2;
        int s, nt, lane, part, i;
        if (oscar_rotation_q14(rq, src + m * dd, d)) {
            snprintf(kv->msg, sizeof kv->msg, "rotation matrix %zu has an entry that is not finite or beyond +-1.5 (not orthogonal)", m);
            rc = OSCAR_ERR_RANGE;
            break;
        }
        if (wg) {
            int k, col;
            for (k = 0; k < d; k++)
                for (col = 0; col < d; col++) {
                    const int q = rq[(size_t)k * d + col], hi = (q + 128 + 32768) / 256 - 128; /* floor((q + 128) / 256) */
                    const size_t at = ((((size_t)(k / 32) * (d / 8) + col / 8) * 2 + (k / 16 % 2)) * 8 + col % 8) * 16 + k % 16;
                    fm[at] = (int8_t)hi;
                    fm[dd + at] = (int8_t)(q - 256 * hi);
                }
            continue;
        }
        for (s = 0; s < d / 32; s++)
            for (nt = 0; nt < d / 8; nt++)
                for (lane = 0; lane < 32; lane++)
                    for (part = 0; part < 4; part++) /* Rh k0, Rh k0 + 16, Rl k0, Rl k0 + 16 */
                        for (i = 0; i < 4; i++) {
                            const int k = 32 * s + 16 * (part & 1) + 4 * (lane & 3) + i, col = 8 * nt + (lane >> 2);
                            const int q = rq[(size_t)k * d + col], hi = (q + 128 + 32768) / 256 - 128; /* floor((q + 128) / 256) */
                            fm[(((size_t)s * (d / 8) + nt) * 32 + lane) * 16 + part * 4 + i] = (int8_t)(part < 2 ? hi : q - 256 * hi);
                        }
    }
    OSCAR_CUDA_FREE(rq);
    if (!rc) rc = oscar__kv_alloc(kv, dst, n * dd * 2);
    if (!rc && (r = kv->cu->drv.cuMemcpyHtoD(*dst, f, n * dd * 2)) != 0) rc = oscar__kv_fail(kv, oscar__cu_fail(kv->cu, r, "cuMemcpyHtoD_v2"));
    OSCAR_CUDA_FREE(f);
    if (rc == OSCAR_ERR_NOMEM) snprintf(kv->msg, sizeof kv->msg, "out of host memory for the rotation fragments");
    return rc;
}

/* cfg.center 1: the K and V means ([L][Hkv][d], checked finite and shaped by oscar_kv_config_resolve's
   rules here again) and the V mean the outputs get back, computed as the CPU cache does */
static int oscar__kv_upload_means(oscar_cuda_kv *kv, const oscar_rotations *ro) {
    const size_t d = (size_t)kv->d, nm = (size_t)kv->L * kv->Hkv * d;
    float *vo;
    size_t l, h;
    int rc = OSCAR_OK;
    if (ro->n_kv_heads != kv->Hkv || !ro->k_mean || !ro->v_mean) {
        snprintf(kv->msg, sizeof kv->msg, "center: the rotations' means are for %d KV heads, the cache has %d", ro->n_kv_heads, kv->Hkv);
        return OSCAR_ERR_SHAPE;
    }
    for (l = 0; l < nm; l++)
        if (!isfinite(ro->k_mean[l]) || !isfinite(ro->v_mean[l])) {
            snprintf(kv->msg, sizeof kv->msg, "center: NaN or Inf in the rotations' means");
            return OSCAR_ERR_NONFINITE;
        }
    vo = (float *)OSCAR_CUDA_MALLOC(nm * sizeof(float));
    if (!vo) return OSCAR_ERR_NOMEM;
    for (l = 0; l < (size_t)kv->L; l++)
        for (h = 0; h < (size_t)kv->Hkv; h++) {
            const size_t at = (l * kv->Hkv + h) * d;
            const float *Rv = ro->v_rot + (l * kv->rot_heads + (kv->rot_heads > 1 ? h : 0)) * d * d;
            if (kv->absorb_v) oscar_rotate_rows(vo + at, ro->v_mean + at, Rv, 1, (int)d, 0);
            else memcpy(vo + at, ro->v_mean + at, d * sizeof(float));
        }
    if ((rc = oscar__kv_alloc(kv, &kv->kmean, nm * sizeof(float))) == OSCAR_OK && (rc = oscar__kv_alloc(kv, &kv->vmean, nm * sizeof(float))) == OSCAR_OK &&
        (rc = oscar__kv_alloc(kv, &kv->vmo, nm * sizeof(float))) == OSCAR_OK) {
        if ((rc = oscar_cuda_upload(kv->cu, kv->kmean, ro->k_mean, nm * sizeof(float))) == OSCAR_OK && (rc = oscar_cuda_upload(kv->cu, kv->vmean, ro->v_mean, nm * sizeof(float))) == OSCAR_OK)
            rc = oscar_cuda_upload(kv->cu, kv->vmo, vo, nm * sizeof(float));
        if (rc) oscar__kv_fail(kv, rc);
    }
    OSCAR_CUDA_FREE(vo);
    return rc;
}

/* *fn: the append module's kernel `name` where the module built it (its int NAME_built is 1), else NULL; smem: it
   takes the module's dynamic shared memory (smem_append) */
static int oscar__kv_append_opt(oscar_cuda_kv *kv, const char *name, int smem, oscar_cu_function *fn) {
    oscar_cuda *cu = kv->cu;
    oscar_cu_ptr gp = 0;
    size_t gs = 0;
    int built = 0;
    oscar_cu_result r;
    char what[96];
    *fn = NULL;
    snprintf(what, sizeof what, "%s_built", name);
    if (cu->drv.cuModuleGetGlobal(&gp, &gs, kv->mod_append, what) != 0 || gs != sizeof(int) || cu->drv.cuMemcpyDtoH(&built, gp, sizeof(int)) != 0 || built != 1)
        return OSCAR_OK;
    if ((r = cu->drv.cuModuleGetFunction(fn, kv->mod_append, name)) != 0) {
        snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
        return oscar__kv_fail(kv, oscar__cu_fail(cu, r, what));
    }
    if (smem && kv->smem_append > 48 * 1024 && (r = cu->drv.cuFuncSetAttribute(*fn, OSCAR__CU_FUNC_MAX_DYN_SMEM, kv->smem_append)) != 0) {
        *fn = NULL;
        snprintf(what, sizeof what, "cuFuncSetAttribute(%s, max dynamic shared memory)", name);
        return oscar__kv_fail(kv, oscar__cu_fail(cu, r, what));
    }
    return OSCAR_OK;
}

static int oscar__kv_init_device(oscar_cuda_kv *kv) {
    oscar_cuda *cu = kv->cu;
    oscar_cuda_variant v;
    int rc;
    size_t seq_bf16 = (size_t)kv->L * kv->Hkv * 2 * (size_t)kv->d * 2;
    if ((rc = oscar__kv_alloc(kv, &kv->pool, (size_t)kv->L * kv->max_pages * kv->Hkv * kv->head_page_bytes))) return rc;
    if ((rc = oscar__kv_alloc(kv, &kv->sink, (size_t)kv->max_seqs * seq_bf16 * (size_t)kv->S0))) return rc;
    if ((rc = oscar__kv_alloc(kv, &kv->win, (size_t)kv->max_seqs * seq_bf16 * (size_t)kv->ring))) return rc;
    if ((rc = oscar__kv_alloc(kv, &kv->bt, (size_t)kv->max_seqs * kv->max_pages * sizeof(int)))) return rc;
    if ((rc = oscar__kv_alloc(kv, &kv->err, 128))) return rc; /* err[0]: error bits; err[1..19]: kernel counters of stats builds;
                                                                       err[24]: the append launches' epoch (OSCAR_ERR_EPOCH) */
    if ((rc = oscar__kv_alloc(kv, &kv->counts, (size_t)kv->max_seqs * kv->Hkv * OSCAR__MAX_HSPLIT * sizeof(int)))) return rc;
    /* sink and window rows are zeroed once so that every byte of them is defined (copies of a whole
       slab, as oscar_cuda_kv_sink_ptr users make, read no uninitialised memory: initcheck) */
    if (cu->drv.cuMemsetD8Async(kv->sink, 0, (size_t)kv->max_seqs * seq_bf16 * (size_t)kv->S0, (oscar_cu_stream)0) ||
        cu->drv.cuMemsetD8Async(kv->win, 0, (size_t)kv->max_seqs * seq_bf16 * (size_t)kv->ring, (oscar_cu_stream)0) ||
        cu->drv.cuMemsetD32Async(kv->bt, 0, (size_t)kv->max_seqs * kv->max_pages, (oscar_cu_stream)0) ||
        cu->drv.cuMemsetD32Async(kv->err, 0, 32, (oscar_cu_stream)0) ||
        cu->drv.cuMemsetD32Async(kv->counts, 0, (size_t)kv->max_seqs * kv->Hkv * OSCAR__MAX_HSPLIT, (oscar_cu_stream)0) || cu->drv.cuCtxSynchronize()) {
        snprintf(kv->msg, sizeof kv->msg, "clearing device memory failed");
        return OSCAR_ERR_CUDA;
    }
    if (kv->int2 && kv->cfg.rot) {
        const oscar_rotations *ro = kv->cfg.rot;
        if (kv->cfg.k_balance) { /* K rows through A = U diag(s) U^T R, queries through U diag(1/s) U^T R (as the CPU cache) */
            const size_t n = (size_t)kv->L * kv->rot_heads * kv->d * kv->d;
            size_t m = 0;
            kv->h_kbal = (float *)OSCAR_CUDA_MALLOC(2 * n * sizeof(float));
            if (!kv->h_kbal) return OSCAR_ERR_NOMEM;
            if ((rc = oscar_rotations_balance_matrices(ro, kv->h_kbal, kv->h_kbal + n, &m)) != OSCAR_OK) {
                snprintf(kv->msg, sizeof kv->msg, "the K balance of rotation matrix %zu: %s (each s must be in (0, 1], the rotation fitted)", m, oscar_result_string(rc));
                return rc;
            }
        }
        if ((rc = oscar__kv_upload_rot(kv, &kv->krot, kv->h_kbal ? kv->h_kbal + (size_t)kv->L * kv->rot_heads * kv->d * kv->d : ro->k_rot, 0))) return rc;
        if ((rc = oscar__kv_upload_rot(kv, &kv->vrot, ro->v_rot, 0))) return rc;
        if ((rc = oscar__kv_upload_rot(kv, &kv->vrot_t, ro->v_rot, 1))) return rc;
        if (kv->cfg.center && (rc = oscar__kv_upload_means(kv, ro))) return rc;
    }
    memset(&v, 0, sizeof v);
    v.head_dim = kv->d;
    v.group_size = kv->g;
    v.gqa = 1;
    v.int2 = kv->int2;
    v.page_size = kv->P;
    v.center = kv->cfg.center == OSCAR_CENTER_MEAN; /* own modules: the other caches' kernels stay as they were */
    v.gain = kv->int2 ? (kv->cfg.k_gain ? 1 : 0) | (kv->cfg.v_gain ? 2 : 0) : 0;
    rc = oscar__get_module(cu, OSCAR_CUDA_PROG_APPEND, &v, &kv->mod_append);
    if (rc) return oscar__kv_fail(kv, rc);
    {
        oscar_cu_result r = cu->drv.cuModuleGetFunction(&kv->fn_append, kv->mod_append, "oscar_append");
        oscar_cu_ptr sp = 0;
        size_t sz = 0;
        if (r) return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "cuModuleGetFunction(oscar_append)"));
        /* its dynamic shared memory (the rotated tile, the tile's jobs): the module says how much */
        if ((r = cu->drv.cuModuleGetGlobal(&sp, &sz, kv->mod_append, "oscar_append_smem")) != 0 || (r = cu->drv.cuMemcpyDtoH(&kv->smem_append, sp, sizeof(int))) != 0)
            return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "reading oscar_append_smem from the append module"));
        if (kv->smem_append > 48 * 1024 && (r = cu->drv.cuFuncSetAttribute(kv->fn_append, OSCAR__CU_FUNC_MAX_DYN_SMEM, kv->smem_append)) != 0)
            return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "cuFuncSetAttribute(oscar_append, max dynamic shared memory)"));
        /* the dense rotations' B operands, laid out for the module's product (wgmma or mma.sync) */
        if (kv->int2 && kv->cfg.rot && !kv->wht) {
            int wg = 0;
            if (cu->drv.cuModuleGetGlobal(&sp, &sz, kv->mod_append, "oscar_append_wgmma") != 0 || sz != sizeof(int) || cu->drv.cuMemcpyDtoH(&wg, sp, sizeof(int)) != 0)
                wg = 0;
            if ((rc = oscar__kv_upload_frag(kv, &kv->kfrag, kv->h_kbal ? kv->h_kbal : kv->cfg.rot->k_rot, wg))) return rc;
            if ((rc = oscar__kv_upload_frag(kv, &kv->vfrag, kv->cfg.rot->v_rot, wg))) return rc;
        }
        OSCAR_CUDA_FREE(kv->h_kbal);
        kv->h_kbal = NULL;
        /* the twins of oscar_append for long flush launches (d 128, sm_90+) and small launches (dense rotations,
           INT2), and the H kernel with d / 32 threads per row (sm_80+, groups of at least d / 8 channels) */
        kv->fn_append_w = kv->fn_append_s = kv->fn_append_fwht = NULL;
        if (kv->int2 && kv->cfg.rot && !kv->wht) {
            if ((rc = oscar__kv_append_opt(kv, "oscar_append_w", 1, &kv->fn_append_w)) != OSCAR_OK) return rc;
            if (kv->fn_append_w &&
                (cu->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&kv->occ_append_w, kv->fn_append_w, 128, (size_t)kv->smem_append) != 0 || kv->occ_append_w <= 0))
                kv->occ_append_w = 8;
            if ((rc = oscar__kv_append_opt(kv, "oscar_append_s", 1, &kv->fn_append_s)) != OSCAR_OK) return rc;
        }
        kv->fn_append_wht = NULL;
        if (kv->wht && (r = cu->drv.cuModuleGetFunction(&kv->fn_append_wht, kv->mod_append, "oscar_append_wht")) != 0)
            return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "cuModuleGetFunction(oscar_append_wht)"));
        if (kv->wht && (rc = oscar__kv_append_opt(kv, "oscar_append_fwht", 0, &kv->fn_append_fwht)) != OSCAR_OK) return rc;
    }
    return OSCAR_OK;
}

OSCAR_API int oscar_cuda_kv_init(oscar_cuda_kv *kv, oscar_cuda *cu, const oscar_kv_config *cfg) {
    oscar_kv_config c;
    int i, rc, d;
    if (!kv) return OSCAR_ERR_NULL;
    memset(kv, 0, sizeof *kv);
    if (!cu || !cfg) {
        snprintf(kv->msg, sizeof kv->msg, "oscar_cuda_kv_init: null context or config");
        return OSCAR_ERR_NULL;
    }
    if (!cu->have_device) {
        snprintf(kv->msg, sizeof kv->msg, "oscar_cuda_kv_init: the context has no device");
        return OSCAR_ERR_NO_DEVICE;
    }
    kv->cu = cu;
    /* defaults and validation shared with the CPU cache; then what the GPU cache lacks */
    if ((rc = oscar_kv_config_resolve(&c, cfg, kv->msg)) != OSCAR_OK) return rc;
    if (c.mode == OSCAR_KV_KIVI2) {
        snprintf(kv->msg, sizeof kv->msg, "the GPU cache has no KIVI-2 mode (a CPU baseline)");
        return OSCAR_ERR_INVALID_ARG;
    }
    if (c.v_group_size != c.group_size) {
        snprintf(kv->msg, sizeof kv->msg, "the GPU cache has one group size for K and V (v_group_size %d != group_size %d is CPU-only)", c.v_group_size, c.group_size);
        return OSCAR_ERR_INVALID_ARG;
    }
    if (c.center == OSCAR_CENTER_ROPE) {
        snprintf(kv->msg, sizeof kv->msg, "the GPU cache does not center K before RoPE yet (oscar_kv_config.center 2 is CPU-only; 1 runs on the GPU)");
        return OSCAR_ERR_INVALID_ARG;
    }
    d = c.head_dim;
    kv->cfg = c;
    kv->d = d;
    kv->g = c.group_size;
    kv->S0 = c.sink;
    kv->W = c.window;
    kv->P = c.page_size;
    kv->L = c.n_layers;
    kv->Hkv = c.n_kv_heads;
    kv->ring = kv->W + kv->P;
    kv->int2 = c.mode == OSCAR_KV_INT2;
    kv->max_pages = c.max_pages;
    kv->max_seqs = c.max_seqs;
    kv->k_clip = c.k_clip > 0.0f ? c.k_clip : -1.0f;
    kv->v_clip = c.v_clip > 0.0f ? c.v_clip : -1.0f;
    kv->absorb_v = c.absorb_v ? 1 : 0;
    {
        oscar_cuda_variant v;
        memset(&v, 0, sizeof v);
        v.head_dim = d;
        v.group_size = kv->g;
        v.gqa = 1;
        v.int2 = kv->int2;
        v.page_size = kv->P;
        if ((rc = oscar__check_variant(cu, OSCAR_CUDA_PROG_APPEND, &v)) != OSCAR_OK) return oscar__kv_fail(kv, rc);
    }
    if (kv->int2) kv->head_page_bytes = (size_t)2 * kv->P * ((size_t)d / 4 + (size_t)(d / kv->g) * 4);
    else kv->head_page_bytes = (size_t)2 * kv->P * (size_t)d * 2;
    kv->page_bytes = kv->head_page_bytes * (size_t)kv->Hkv * (size_t)kv->L;
    if (kv->int2 && c.rot) {
        const oscar_rotations *ro = c.rot;
        if (ro->head_dim != d || ro->n_layers != kv->L || (ro->per_head && ro->n_kv_heads != kv->Hkv) || !ro->k_rot || !ro->v_rot) {
            snprintf(kv->msg, sizeof kv->msg, "rotations do not fit the cache (layers %d/%d, head_dim %d/%d, kv heads %d/%d)", ro->n_layers, kv->L, ro->head_dim, d, ro->n_kv_heads, kv->Hkv);
            return OSCAR_ERR_SHAPE;
        }
        kv->rot_heads = ro->per_head ? kv->Hkv : 1;
        kv->wht = !c.k_balance && oscar_rotations_is_hadamard(ro); /* rows rotated by the fast transform, as the CPU cache does */
    }
    kv->refcount = (int *)OSCAR_CUDA_MALLOC(sizeof(int) * (size_t)kv->max_pages);
    kv->free_list = (int *)OSCAR_CUDA_MALLOC(sizeof(int) * (size_t)kv->max_pages);
    kv->seqs = (oscar_cuda_seq *)OSCAR_CUDA_MALLOC(sizeof(oscar_cuda_seq) * (size_t)kv->max_seqs);
    if (!kv->refcount || !kv->free_list || !kv->seqs) {
        oscar_cuda_kv_free(kv);
        return OSCAR_ERR_NOMEM;
    }
    memset(kv->seqs, 0, sizeof(oscar_cuda_seq) * (size_t)kv->max_seqs);
    for (i = 0; i < kv->max_seqs; i++) {
        kv->seqs[i].n_tok = (int *)OSCAR_CUDA_MALLOC(sizeof(int) * (size_t)kv->L);
        kv->seqs[i].pages = (int *)OSCAR_CUDA_MALLOC(sizeof(int) * (size_t)kv->max_pages);
        if (!kv->seqs[i].n_tok || !kv->seqs[i].pages) {
            oscar_cuda_kv_free(kv);
            return OSCAR_ERR_NOMEM;
        }
    }
    for (i = 0; i < kv->max_pages; i++) {
        kv->refcount[i] = 0;
        kv->free_list[i] = kv->max_pages - 1 - i; /* pops 0, 1, 2, ... */
    }
    kv->n_free = kv->max_pages;
    if ((rc = oscar_cuda_push(cu)) != OSCAR_OK) {
        oscar__kv_fail(kv, rc);
        {
            char m[OSCAR_CUDA_MSG_SIZE];
            memcpy(m, kv->msg, sizeof m);
            oscar_cuda_kv_free(kv);
            memcpy(kv->msg, m, sizeof m);
        }
        return rc;
    }
    rc = oscar__kv_init_device(kv);
    oscar_cuda_pop(cu);
    if (rc) {
        char m[OSCAR_CUDA_MSG_SIZE];
        memcpy(m, kv->msg, sizeof m);
        oscar_cuda_kv_free(kv);
        memcpy(kv->msg, m, sizeof m);
    }
    return rc;
}

static int oscar__kv_check_seq(const oscar_cuda_kv *kv, int seq) {
    return kv && seq >= 0 && seq < kv->max_seqs && kv->seqs[seq].used;
}

OSCAR_API int oscar_cuda_kv_seq_create(oscar_cuda_kv *kv, int *seq) {
    int i;
    if (!kv || !seq) return OSCAR_ERR_NULL;
    for (i = 0; i < kv->max_seqs; i++)
        if (!kv->seqs[i].used) {
            kv->seqs[i].used = 1;
            kv->seqs[i].n_pages = 0;
            memset(kv->seqs[i].n_tok, 0, sizeof(int) * (size_t)kv->L);
            *seq = i;
            return OSCAR_OK;
        }
    snprintf(kv->msg, sizeof kv->msg, "all %d sequence slots are in use", kv->max_seqs);
    return OSCAR_ERR_SEQ_LIMIT;
}

OSCAR_API int oscar_cuda_kv_seq_release(oscar_cuda_kv *kv, int seq) {
    oscar_cuda_seq *s;
    int i;
    if (!oscar__kv_check_seq(kv, seq)) {
        if (kv) snprintf(kv->msg, sizeof kv->msg, "no sequence %d", seq);
        return OSCAR_ERR_NO_SEQ;
    }
    s = &kv->seqs[seq];
    for (i = 0; i < s->n_pages; i++)
        if (--kv->refcount[s->pages[i]] == 0) kv->free_list[kv->n_free++] = s->pages[i];
    s->used = 0;
    s->n_pages = 0;
    return OSCAR_OK;
}

OSCAR_API int oscar_cuda_kv_seq_length(const oscar_cuda_kv *kv, int seq, int layer) {
    if (!oscar__kv_check_seq(kv, seq)) return OSCAR_ERR_NO_SEQ;
    if (layer < 0 || layer >= kv->L) return OSCAR_ERR_RANGE;
    return kv->seqs[seq].n_tok[layer];
}

OSCAR_API int oscar_cuda_kv_seq_fork(oscar_cuda_kv *kv, int src, int *dst) {
    oscar_cuda *cu;
    oscar_cuda_seq *s, *t;
    int i, rc, nd;
    size_t sb, wb;
    oscar_cu_result r;
    if (!kv || !dst) return OSCAR_ERR_NULL;
    if (!oscar__kv_check_seq(kv, src)) {
        snprintf(kv->msg, sizeof kv->msg, "no sequence %d", src);
        return OSCAR_ERR_NO_SEQ;
    }
    s = &kv->seqs[src];
    for (i = 1; i < kv->L; i++)
        if (s->n_tok[i] != s->n_tok[0]) {
            snprintf(kv->msg, sizeof kv->msg, "fork: the layers of sequence %d hold different numbers of tokens", src);
            return OSCAR_ERR_STATE;
        }
    if ((rc = oscar_cuda_kv_seq_create(kv, &nd)) != OSCAR_OK) return rc;
    s = &kv->seqs[src];
    t = &kv->seqs[nd];
    memcpy(t->n_tok, s->n_tok, sizeof(int) * (size_t)kv->L);
    memcpy(t->pages, s->pages, sizeof(int) * (size_t)s->n_pages);
    t->n_pages = s->n_pages;
    cu = kv->cu;
    if ((rc = oscar_cuda_push(cu)) != OSCAR_OK) {
        t->used = 0;
        return oscar__kv_fail(kv, rc);
    }
    sb = (size_t)kv->L * kv->Hkv * 2 * (size_t)kv->S0 * kv->d * 2;
    wb = (size_t)kv->L * kv->Hkv * 2 * (size_t)kv->ring * kv->d * 2;
    r = 0;
    if (sb) r = cu->drv.cuMemcpyDtoDAsync(kv->sink + (size_t)nd * sb, kv->sink + (size_t)src * sb, sb, kv->stream);
    if (!r && wb) r = cu->drv.cuMemcpyDtoDAsync(kv->win + (size_t)nd * wb, kv->win + (size_t)src * wb, wb, kv->stream);
    if (!r && t->n_pages) r = cu->drv.cuMemcpyHtoDAsync(kv->bt + (size_t)nd * kv->max_pages * sizeof(int), t->pages, sizeof(int) * (size_t)t->n_pages, kv->stream);
    oscar_cuda_pop(cu);
    if (r) {
        t->used = 0;
        return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "fork copy"));
    }
    for (i = 0; i < t->n_pages; i++) kv->refcount[t->pages[i]]++;
    *dst = nd;
    return OSCAR_OK;
}

/* grow a device scratch buffer (synchronises the stream before freeing the old one) */
static int oscar__kv_scratch(oscar_cuda_kv *kv, oscar_cu_ptr *buf, size_t *cap, size_t need) {
    oscar_cuda *cu = kv->cu;
    size_t n = *cap ? *cap : 4096;
    if (need <= *cap) return OSCAR_OK;
    while (n < need) n *= 2;
    if (*buf) {
        cu->drv.cuStreamSynchronize(kv->stream);
        cu->drv.cuMemFree(*buf);
        *buf = 0;
        *cap = 0;
    }
    {
        int rc = oscar__kv_alloc(kv, buf, n);
        if (rc) return rc;
    }
    *cap = n;
    return OSCAR_OK;
}

/* launches asked for with pdl run under programmatic dependent launch: the driver has cuLaunchKernelEx and the
   kernels were built for sm_90+ on such a card (kernels built for an older card hold no griddepcontrol) */
static int oscar__pdl_ok(const oscar_cuda *cu) { return cu->cuLaunchKernelEx && cu->cc >= 90 && cu->arch >= 90; }
/* pdl: the kernel may start before the previous one in the stream ends (programmatic dependent
   launch, sm_90+): it waits with griddepcontrol.wait before it reads what that kernel wrote, and
   the previous kernel lets it in with griddepcontrol.launch_dependents (else it starts when the
   previous kernel ends, as without the attribute); cluster > 0: thread block clusters of cluster
   blocks along x (gx a multiple of it; needs cuLaunchKernelEx) */
static int oscar__launch_cx(oscar_cuda_kv *kv, oscar_cu_function fn, const char *fn_name, unsigned gx, unsigned gy, unsigned gz, unsigned block, unsigned smem, void *params, int pdl,
                            unsigned cluster) {
    oscar_cuda *cu = kv->cu;
    void *args[1];
    oscar_cu_result r;
    args[0] = params;
    pdl = pdl && oscar__pdl_ok(cu);
    if (cluster && !cu->cuLaunchKernelEx) {
        snprintf(kv->msg, sizeof kv->msg, "%s: a cluster launch needs cuLaunchKernelEx, which this driver lacks", fn_name);
        return OSCAR_ERR_STATE;
    }
    if (pdl || cluster) {
        oscar__cu_launch_attr at[3];
        oscar__cu_launch_config lc;
        memset(at, 0, sizeof at);
        memset(&lc, 0, sizeof lc);
        if (pdl) {
            at[lc.numAttrs].id = OSCAR__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            at[lc.numAttrs++].value.programmaticStreamSerializationAllowed = 1;
        }
        if (cluster) {
            at[lc.numAttrs].id = OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            at[lc.numAttrs].value.cluster_dim[0] = cluster, at[lc.numAttrs].value.cluster_dim[1] = 1, at[lc.numAttrs++].value.cluster_dim[2] = 1;
            if (kv->cluster_policy != 1) { /* load balancing (measured: the only placement that paid, kernels/NOTES.md v55) */
                at[lc.numAttrs].id = OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY;
                at[lc.numAttrs++].value.cluster_policy = kv->cluster_policy == 3 ? 1 : 2;
            }
        }
        lc.gridDimX = gx, lc.gridDimY = gy, lc.gridDimZ = gz;
        lc.blockDimX = block, lc.blockDimY = 1, lc.blockDimZ = 1;
        lc.sharedMemBytes = smem;
        lc.hStream = kv->stream;
        lc.attrs = at;
        r = cu->cuLaunchKernelEx(&lc, fn, args, NULL);
    } else {
        r = cu->drv.cuLaunchKernel(fn, gx, gy, gz, block, 1, 1, smem, kv->stream, args, NULL);
    }
    if (r) {
        int rc = oscar__cu_fail(cu, r, pdl || cluster ? "cuLaunchKernelEx" : "cuLaunchKernel");
        snprintf(kv->msg, sizeof kv->msg, "%s: %.900s", fn_name, cu->msg);
        return rc;
    }
    return OSCAR_OK;
}
static int oscar__launch_ex(oscar_cuda_kv *kv, oscar_cu_function fn, const char *fn_name, unsigned gx, unsigned gy, unsigned gz, unsigned block, unsigned smem, void *params, int pdl) {
    return oscar__launch_cx(kv, fn, fn_name, gx, gy, gz, block, smem, params, pdl, 0);
}

/* rows (jobs) per oscar_append block: TR in kernels/oscar_append.cu */
#define OSCAR__APPEND_TR(d) ((d) == 256 ? 32 : 64)
#define OSCAR__FWHT_ROWS(d) (4096 / (d)) /* rows per block of oscar_append_fwht (FR) */
/* an append launch of at most this many jobs per (KV head, K|V) that oscar_append would take goes through oscar_append_s
   (append_small 0): one or two of a tile's MMA tiles hold them. Measured on the H100 (kernels/NOTES.md w40, run s33-5):
   one-token appends of fitted rotations 5.3 us back to back against 7.1-7.2 (batch 1), 9.4-9.5 against 10.7 (16
   sequences), 14.5-14.7 against 15.3 (32) */
#define OSCAR__SMALL_JOBS 32
/* a flush launch of at least this many waves of oscar_append_w (occ_append_w blocks per SM) takes it (append_wide 0) */
#ifndef OSCAR__WIDE_WAVES
#define OSCAR__WIDE_WAVES 4
#endif

/* one run of an append launch: jobs job0.. are positions pos0.. of sequence slot; input row of
   position pos: srcb + pos when pos >= n_old, else the ring; flush: page from the block table */
static void oscar__append_run(int *r, int job0, int pos0, int slot, int srcb, int n_old, int flush) {
    r[0] = job0, r[1] = pos0, r[2] = slot, r[3] = srcb;
    r[4] = n_old, r[5] = flush, r[6] = 0, r[7] = 0x7fffffff; /* no new pages in the parameters */
}

/* pages first .. first + n of sequence seq's table into the device block table, on the cache's stream */
static oscar_cu_result oscar__kv_bt_upload(oscar_cuda_kv *kv, int seq, int first, int n) {
    return kv->cu->drv.cuMemcpyHtoDAsync(kv->bt + ((size_t)seq * kv->max_pages + first) * sizeof(int), kv->seqs[seq].pages + first, sizeof(int) * (size_t)n, kv->stream);
}

/* the kernel of an append launch of n jobs per (KV head, K|V) in blocks x 2 Hkv blocks (flush: a flush launch) for
   which fa was chosen: where fa is oscar_append, oscar_append_w for long flush launches (append_wide) and
   oscar_append_s for small launches (append_small); *name follows it */
static oscar_cu_function oscar__kv_append_fn(const oscar_cuda_kv *kv, oscar_cu_function fa, int n, unsigned blocks, int flush, const char **name) {
    const long long sms = kv->cu->sm_count > 0 ? kv->cu->sm_count : 132;
    if (fa != kv->fn_append) return fa;
    if (flush && kv->fn_append_w && kv->append_wide != 2 &&
        (kv->append_wide == 1 || (long long)blocks * kv->Hkv * 2 >= (long long)OSCAR__WIDE_WAVES * kv->occ_append_w * sms)) {
        *name = "oscar_append_w";
        return kv->fn_append_w;
    }
    if (kv->fn_append_s && kv->append_small != 2 && (kv->append_small == 1 || n <= OSCAR__SMALL_JOBS)) {
        *name = "oscar_append_s";
        return kv->fn_append_s;
    }
    return fa;
}

/* the append of counts[i] tokens to seqs[i] (rows src0[i].. of k, v) for one layer */
static int oscar__kv_append_many(oscar_cuda_kv *kv, int layer, int n_items, const int *seqs, const int *counts, const int *src0, oscar_cu_ptr k, oscar_cu_ptr v) {
    oscar_cuda *cu = kv->cu;
    int i, pos, need_pages = 0, n_flush = 0, n_write = 0, n_runs = 0, n_frun = 0, rc, pinl, pf[16], pn[16], np = 0, rflush = 0;
    int *jb;
    oscar__append_params p;
    for (i = 0; i < n_items; i++) {
        oscar_cuda_seq *s;
        int hn, k2;
        if (!oscar__kv_check_seq(kv, seqs[i])) {
            snprintf(kv->msg, sizeof kv->msg, "no sequence %d", seqs[i]);
            return OSCAR_ERR_NO_SEQ;
        }
        for (k2 = 0; k2 < i; k2++)
            if (seqs[k2] == seqs[i]) {
                snprintf(kv->msg, sizeof kv->msg, "sequence %d appears twice in one batch", seqs[i]);
                return OSCAR_ERR_INVALID_ARG;
            }
        if (counts[i] < 0) return OSCAR_ERR_INVALID_ARG;
        s = &kv->seqs[seqs[i]];
        if ((long long)s->n_tok[layer] + counts[i] > 0x3fffffff) {
            snprintf(kv->msg, sizeof kv->msg, "sequence too long");
            return OSCAR_ERR_RANGE;
        }
        hn = oscar__kv_hist(kv, s->n_tok[layer] + counts[i]) / kv->P;
        if (hn > s->n_pages) need_pages += hn - s->n_pages;
        if (hn > kv->max_pages) {
            snprintf(kv->msg, sizeof kv->msg, "sequence %d would need %d pages; the pool has %d", seqs[i], hn, kv->max_pages);
            return OSCAR_ERR_POOL_FULL;
        }
    }
    if (need_pages > kv->n_free) {
        snprintf(kv->msg, sizeof kv->msg, "page pool exhausted: %d pages needed, %d free", need_pages, kv->n_free);
        return OSCAR_ERR_POOL_FULL;
    }
    if ((size_t)n_items * 3 * 8 > kv->h_jobs_cap) { /* runs: one flush and up to two writes per item */
        size_t cap = (size_t)n_items * 3 * 8 + 1024;
        int *h = (int *)OSCAR_CUDA_MALLOC(cap * sizeof(int));
        if (!h) return OSCAR_ERR_NOMEM;
        OSCAR_CUDA_FREE(kv->h_jobs);
        kv->h_jobs = h;
        kv->h_jobs_cap = cap;
    }
    if ((rc = oscar_cuda_push(cu)) != OSCAR_OK) return oscar__kv_fail(kv, rc);
    /* the new pages travel in the flush launch's parameters, after its runs (at most one per item), where they fit
       (the write launch's runs, at most two per item, then fit too): the kernel writes them into bt */
    pinl = kv->append_inline != 2 && n_items <= 16 && 8 * n_items + need_pages <= OSCAR__INLINE_INTS;
    /* pages first (nothing can fail after this point but the driver) */
    for (i = 0; i < n_items; i++) {
        oscar_cuda_seq *s = &kv->seqs[seqs[i]];
        int hn = oscar__kv_hist(kv, s->n_tok[layer] + counts[i]) / kv->P, first = s->n_pages;
        if (hn > first) { /* popped from the free list's end, in locals: through the struct fields (which the int
                             stores may alias) a 131,072-token prefill's 2,043 pages took 7.5 us of host time before
                             the first launch, 1.9 us this way (H100 host, run s39-4, tools/hostprobe.c) */
            const int take = hn - first, *fl = kv->free_list + kv->n_free - 1;
            int *dst = s->pages + first, *ref = kv->refcount, j;
            for (j = 0; j < take; j++) {
                const int pg = fl[-j];
                ref[pg] = 1;
                dst[j] = pg;
            }
            kv->n_free -= take;
            s->n_pages = hn;
        }
        if (pinl) {
            pf[i] = first;
            pn[i] = s->n_pages - first;
        } else if (s->n_pages > first) {
            oscar_cu_result r = oscar__kv_bt_upload(kv, seqs[i], first, s->n_pages - first);
            if (r) {
                oscar_cuda_pop(cu);
                return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "cuMemcpyHtoDAsync_v2"));
            }
        }
    }
    /* flush runs, then write runs (oscar_append_params.jobs); the kernel takes pages from bt */
    jb = kv->h_jobs;
    for (i = 0; i < n_items; i++) {
        oscar_cuda_seq *s = &kv->seqs[seqs[i]];
        int n_old = s->n_tok[layer], n_new = n_old + counts[i];
        int h_old = oscar__kv_hist(kv, n_old), h_new = oscar__kv_hist(kv, n_new);
        if (h_new > h_old) {
            oscar__append_run(jb + 8 * n_runs, n_flush, kv->S0 + h_old, seqs[i], src0[i] - n_old, n_old, 1);
            if (pinl && pn[i]) { /* the offset (after the runs) is completed below */
                jb[8 * n_runs + 6] = np | pn[i] << 16;
                jb[8 * n_runs + 7] = pf[i];
                np += pn[i];
            }
            n_runs++;
            n_flush += h_new - h_old;
            if (kv->S0 + h_old < n_old) rflush = 1; /* rows of the window go to pages */
        }
    }
    n_frun = n_runs;
    if (pinl)
        for (i = 0; i < n_frun; i++)
            if (jb[8 * i + 6]) jb[8 * i + 6] += 8 * n_frun;
    for (i = 0; i < n_items; i++) {
        oscar_cuda_seq *s = &kv->seqs[seqs[i]];
        int n_old = s->n_tok[layer], n_new = n_old + counts[i];
        int h_new = oscar__kv_hist(kv, n_new), e;
        /* positions not quantised straight from the input: [n_old, S0) and [S0 + h_new, n_new) */
        e = n_new < kv->S0 ? n_new : kv->S0;
        if (e > n_old) {
            oscar__append_run(jb + 8 * n_runs++, n_write, n_old, seqs[i], src0[i] - n_old, n_old, 0);
            n_write += e - n_old;
        }
        pos = n_old > kv->S0 + h_new ? n_old : kv->S0 + h_new;
        if (n_new > pos) {
            oscar__append_run(jb + 8 * n_runs++, n_write, pos, seqs[i], src0[i] - n_old, n_old, 0);
            n_write += n_new - pos;
        }
    }
    rc = OSCAR_OK;
    if (n_flush + n_write > 0) {
        size_t bytes = (size_t)n_runs * 8 * sizeof(int);
        /* each launch's runs travel in its parameters where they fit (no upload on the stream before it) */
        const int inl = pinl || (kv->append_inline != 2 && 8 * n_frun <= OSCAR__INLINE_INTS && 8 * (n_runs - n_frun) <= OSCAR__INLINE_INTS);
        oscar_cu_result r;
        if (!inl) {
            rc = oscar__kv_scratch(kv, &kv->jobs, &kv->jobs_cap, bytes);
            if (!rc) {
                r = cu->drv.cuMemcpyHtoDAsync(kv->jobs, kv->h_jobs, bytes, kv->stream);
                if (r) rc = oscar__kv_fail(kv, oscar__cu_fail(cu, r, "cuMemcpyHtoDAsync_v2"));
            }
        }
        memset(&p, 0, sizeof p);
        p.k = k;
        p.v = v;
        p.pool = kv->pool;
        p.sink = kv->sink;
        p.win = kv->win;
        p.krot = kv->wht ? kv->krot : kv->kfrag;
        p.vrot = kv->wht ? kv->vrot : kv->vfrag;
        p.err = kv->err;
        p.bt = kv->bt;
        p.kmean = kv->kmean;
        p.vmean = kv->vmean;
        p.layer = layer;
        p.L = kv->L;
        p.Hkv = kv->Hkv;
        p.S0 = kv->S0;
        p.ring = kv->ring;
        p.P = kv->P;
        p.max_pages = kv->max_pages;
        p.rot_heads = kv->rot_heads;
        p.head_page_bytes = (int32_t)kv->head_page_bytes;
        p.wht = kv->wht;
        p.k_clip = kv->k_clip;
        p.v_clip = kv->v_clip;
        /* the tiled kernel; for caches whose rotations are all H, d / 32 threads per row (sm_80+,
           16-byte aligned input) or else the warp-per-row twin */
        const int fwht = kv->fn_append_fwht && !kv->wht_warp && ((k | v) & 15u) == 0;
        oscar_cu_function fa = fwht ? kv->fn_append_fwht : kv->fn_append_wht ? kv->fn_append_wht : kv->fn_append;
        const char *fa_name = fwht ? "oscar_append_fwht" : kv->fn_append_wht ? "oscar_append_wht" : "oscar_append";
        const size_t fa_rows = fwht ? OSCAR__FWHT_ROWS(kv->d) : OSCAR__APPEND_TR(kv->d); /* rows per block */
        const unsigned fa_smem = fa == kv->fn_append ? (unsigned)kv->smem_append : 0u;
        /* the write launch behind a flush launch through oscar_append_w that reads no window row waits for it at its
           end (append_wlate: it had ended 18-19 us after the flush, run s38-3; behind short flushes the later appends
           on the stream took ~1.5 us more each, run s41-7); the flush publishes an epoch after its own wait, which
           the write launch takes before it reads input rows */
        const unsigned fblocks = (unsigned)(((size_t)n_flush + fa_rows - 1) / fa_rows);
        const char *ffn_name = fa_name;
        const oscar_cu_function ffn = n_flush ? oscar__kv_append_fn(kv, fa, n_flush, fblocks, 1, &ffn_name) : 0;
        const int wl = n_flush && n_write && !rflush && kv->append_wlate != 2 && kv->append_pdl != 2 && fa == kv->fn_append && oscar__pdl_ok(cu) &&
                       (kv->append_wlate == 1 || ffn == kv->fn_append_w);
        if (wl) kv->append_epoch = kv->append_epoch % 0x7ffffffe + 1;
        p.epoch = wl ? kv->append_epoch : 0;
        if (!rc && n_flush) {
            if (inl) memcpy(p.inl, kv->h_jobs, sizeof(int) * 8 * (size_t)n_frun);
            else p.jobs = kv->jobs;
            if (pinl) /* the new pages after the runs, in run order */
                for (i = 0, np = 8 * n_frun; i < n_items; i++)
                    if (pn[i]) { /* (new pages come with a flush run) */
                        memcpy(p.inl + np, kv->seqs[seqs[i]].pages + pf[i], sizeof(int) * (size_t)pn[i]);
                        np += pn[i];
                    }
            p.n_jobs = n_flush;
            p.n_runs = n_frun;
            /* oscar_append_w's first wave by rank on the SM (append_stagger), where the launch has at least two waves */
            p.sms = ffn == kv->fn_append_w && kv->append_stagger != 2 && cu->sm_count > 0 &&
                            (kv->append_stagger == 1 || (long long)fblocks * kv->Hkv * 2 >= 2LL * kv->occ_append_w * cu->sm_count) ? cu->sm_count : 0;
            rc = oscar__launch_ex(kv, ffn, ffn_name, fblocks, (unsigned)kv->Hkv * 2, 1, 128, fa_smem, &p, kv->append_pdl != 2);
            if (rc && pinl) /* the block tables must still name the pages the sequences now hold */
                for (i = 0; i < n_items; i++)
                    if (pn[i]) oscar__kv_bt_upload(kv, seqs[i], pf[i], pn[i]);
        }
        if (!rc && n_write) {
            unsigned blocks = (unsigned)(((size_t)n_write + fa_rows - 1) / fa_rows);
            if (inl) memcpy(p.inl, kv->h_jobs + 8 * (size_t)n_frun, sizeof(int) * 8 * (size_t)(n_runs - n_frun));
            else p.jobs = kv->jobs + (size_t)n_frun * 8 * sizeof(int);
            const char *fn_name = fa_name;
            oscar_cu_function fn = oscar__kv_append_fn(kv, fa, n_write, blocks, 0, &fn_name);
            /* blocks of 16 jobs (append_wsplit): behind a late flush (wl), its 80 whole tiles of a prefill's 320 sink /
               window rows (8 KV heads) ended 6.4-6.7 us after the flush, their own work done 21 us after they started;
               320 blocks of 16 end 1.1 us after it (runs s39-7 / s39-8, H100). Where whole tiles would leave SMs without a
               block (a chunked prefill's 256 window rows: 64 tiles), a tile's ~17 us chain sat between every append's
               flush and the next (w49); so do oscar_append_s's launches of 17-32 jobs, two MMA tiles of 2 warps each in one
               block (a decode step of 17-32 sequences, w49b) */
            const int wfew = (fn == kv->fn_append || (fn == kv->fn_append_s && n_write > 16)) &&
                             (long long)blocks * kv->Hkv * 2 < (long long)(cu->sm_count > 0 ? cu->sm_count : 132);
            if (kv->fn_append_s && kv->append_wsplit != 2 && (wl || wfew || (kv->append_wsplit == 1 && fn == kv->fn_append))) {
                fn = kv->fn_append_s;
                fn_name = "oscar_append_s";
                blocks = (unsigned)(((size_t)n_write + 15) / 16);
                p.tr = 16;
            }
            p.n_jobs = n_write;
            p.n_runs = n_runs - n_frun;
            p.sms = 0;
            p.wlate = wl; /* (behind this call's flush launch, which reads no window row: see wl) */
            rc = oscar__launch_ex(kv, fn, fn_name, blocks, (unsigned)kv->Hkv * 2, 1, 128, fa_smem, &p, kv->append_pdl != 2);
        }
    }
    oscar_cuda_pop(cu);
    if (rc) return rc;
    for (i = 0; i < n_items; i++) kv->seqs[seqs[i]].n_tok[layer] += counts[i];
    return OSCAR_OK;
}

OSCAR_API int oscar_cuda_kv_append(oscar_cuda_kv *kv, int seq, int layer, oscar_cu_ptr k, oscar_cu_ptr v, int n) {
    int zero = 0;
    if (!kv) return OSCAR_ERR_NULL;
    if (layer < 0 || layer >= kv->L || n < 0) {
        snprintf(kv->msg, sizeof kv->msg, "append: bad layer %d or count %d", layer, n);
        return OSCAR_ERR_RANGE;
    }
    if (n == 0) return oscar__kv_check_seq(kv, seq) ? OSCAR_OK : OSCAR_ERR_NO_SEQ;
    if (!k || !v) return OSCAR_ERR_NULL;
    return oscar__kv_append_many(kv, layer, 1, &seq, &n, &zero, k, v);
}

OSCAR_API int oscar_cuda_kv_append_batch(oscar_cuda_kv *kv, int layer, const int *seqs, int n_seqs, oscar_cu_ptr k, oscar_cu_ptr v) {
    int *cnt, i, rc;
    if (!kv || !seqs) return OSCAR_ERR_NULL;
    if (layer < 0 || layer >= kv->L || n_seqs < 0) {
        snprintf(kv->msg, sizeof kv->msg, "append_batch: bad layer %d or count %d", layer, n_seqs);
        return OSCAR_ERR_RANGE;
    }
    if (n_seqs == 0) return OSCAR_OK;
    if (!k || !v) return OSCAR_ERR_NULL;
    cnt = (int *)OSCAR_CUDA_MALLOC(sizeof(int) * 2 * (size_t)n_seqs);
    if (!cnt) return OSCAR_ERR_NOMEM;
    for (i = 0; i < n_seqs; i++) {
        cnt[i] = 1;
        cnt[n_seqs + i] = i;
    }
    rc = oscar__kv_append_many(kv, layer, n_seqs, seqs, cnt, cnt + n_seqs, k, v);
    OSCAR_CUDA_FREE(cnt);
    return rc;
}

OSCAR_API int oscar_cuda_kv_errors(oscar_cuda_kv *kv) {
    oscar_cuda *cu;
    unsigned int bits = 0;
    oscar_cu_result r;
    int rc;
    if (!kv || !kv->cu) return OSCAR_ERR_NULL;
    cu = kv->cu;
    if ((rc = oscar_cuda_push(cu)) != OSCAR_OK) return oscar__kv_fail(kv, rc);
    r = cu->drv.cuStreamSynchronize(kv->stream);
    if (!r) r = cu->drv.cuMemcpyDtoH(&bits, kv->err, 4);
    if (!r && bits) r = cu->drv.cuMemsetD32Async(kv->err, 0, 1, kv->stream);
    if (!r && bits) r = cu->drv.cuStreamSynchronize(kv->stream);
    oscar_cuda_pop(cu);
    if (r) return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "oscar_cuda_kv_errors"));
    if (bits & 1u) {
        snprintf(kv->msg, sizeof kv->msg, "non-finite input rows were stored as zeros");
        return OSCAR_ERR_NONFINITE;
    }
    if (bits & 2u) {
        snprintf(kv->msg, sizeof kv->msg, "input rows with a norm over 32768 were stored as zeros");
        return OSCAR_ERR_RANGE;
    }
    return OSCAR_OK;
}

OSCAR_API const int *oscar_cuda_kv_block_table(const oscar_cuda_kv *kv, int seq, int *n_pages) {
    if (!oscar__kv_check_seq(kv, seq)) {
        if (n_pages) *n_pages = 0;
        return NULL;
    }
    if (n_pages) *n_pages = kv->seqs[seq].n_pages;
    return kv->seqs[seq].pages;
}

OSCAR_API oscar_cu_ptr oscar_cuda_kv_page_ptr(const oscar_cuda_kv *kv, int layer, int page, int kv_head) {
    if (!kv || layer < 0 || layer >= kv->L || page < 0 || page >= kv->max_pages || kv_head < 0 || kv_head >= kv->Hkv) return 0;
    return kv->pool + (((size_t)layer * kv->max_pages + (size_t)page) * kv->Hkv + (size_t)kv_head) * kv->head_page_bytes;
}

OSCAR_API oscar_cu_ptr oscar_cuda_kv_sink_ptr(const oscar_cuda_kv *kv, int seq, int layer, int kv_head) {
    if (!oscar__kv_check_seq(kv, seq) || layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return 0;
    return kv->sink + ((((size_t)seq * kv->L + (size_t)layer) * kv->Hkv + (size_t)kv_head) * 2 * (size_t)kv->S0 * kv->d) * 2;
}

OSCAR_API oscar_cu_ptr oscar_cuda_kv_window_ptr(const oscar_cuda_kv *kv, int seq, int layer, int kv_head) {
    if (!oscar__kv_check_seq(kv, seq) || layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return 0;
    return kv->win + ((((size_t)seq * kv->L + (size_t)layer) * kv->Hkv + (size_t)kv_head) * 2 * (size_t)kv->ring * kv->d) * 2;
}

/* how many clusters of `cluster` blocks (along x) of fn's grid (gx, gy, gz) with block threads and smem bytes
   of dynamic shared memory the device holds at once; -1 where the driver cannot say */
static int oscar__clusters_held(const oscar_cuda *cu, oscar_cu_function fn, unsigned cluster, unsigned gx, unsigned gy, unsigned gz, unsigned block, unsigned smem) {
    int n = 0;
    oscar__cu_launch_attr at;
    oscar__cu_launch_config lc;
    if (!cu->cuOccupancyMaxActiveClusters) return -1;
    memset(&at, 0, sizeof at);
    memset(&lc, 0, sizeof lc);
    at.id = OSCAR__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    at.value.cluster_dim[0] = cluster, at.value.cluster_dim[1] = 1, at.value.cluster_dim[2] = 1;
    lc.gridDimX = gx, lc.gridDimY = gy, lc.gridDimZ = gz;
    lc.blockDimX = block, lc.blockDimY = 1, lc.blockDimZ = 1;
    lc.sharedMemBytes = smem;
    lc.attrs = &at;
    lc.numAttrs = 1;
    return cu->cuOccupancyMaxActiveClusters(&n, fn, &lc) == 0 ? n : -1;
}

/* the largest cluster of the cluster-merge decode kernels (oscar_decode_wc, oscar_decode_w_ilc) of group G the
   device schedules with smem bytes per block: 16 where the driver allows clusters beyond the portable 8 and
   says one fits, else 8 where one of 8 fits (or the driver cannot say: 8 is portable), else 0 */
static int oscar__kv_cmax(oscar_cuda_kv *kv, int G, int smem) {
    oscar_cuda *cu = kv->cu;
    int c, k, ok16 = 1;
    if (!cu->cuOccupancyMaxActiveClusters) return 8;
    for (k = 7; k <= 8; k++)
        if (kv->fn_decode[G][k] && cu->drv.cuFuncSetAttribute(kv->fn_decode[G][k], OSCAR__CU_FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1) != 0) ok16 = 0;
    for (c = ok16 ? 16 : 8; c >= 8; c -= 8)
        if (oscar__clusters_held(cu, kv->fn_decode[G][7], (unsigned)c, (unsigned)c, 1, 1, (unsigned)kv->thr_decode[G], (unsigned)smem) >= 1) return c;
    return 0;
}

/* >>cuda-attn ---- decode attention ---- */

static int oscar__kv_decode_module_hs(oscar_cuda_kv *kv, int G, int hs) {
    oscar_cuda *cu = kv->cu;
    oscar_cuda_variant v;
    oscar_cu_ptr gp;
    size_t gb = 0;
    int rc, smem = 0, k;
    oscar_cu_result r;
    if (kv->mod_decode[G]) return OSCAR_OK;
    memset(&v, 0, sizeof v);
    v.head_dim = kv->d;
    v.group_size = kv->g;
    v.gqa = G / hs;
    v.hsplit = hs;
    kv->hs_decode[G] = hs;
    v.int2 = kv->int2;
    v.page_size = kv->P;
    rc = oscar__get_module(cu, OSCAR_CUDA_PROG_DECODE, &v, &kv->mod_decode[G]);
    if (rc) return oscar__kv_fail(kv, rc);
    r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_decode_smem_bytes");
    if (!r) r = cu->drv.cuMemcpyDtoH(&smem, gp, sizeof smem);
    if (r) {
        kv->mod_decode[G] = NULL;
        return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "reading oscar_decode_smem_bytes"));
    }
    if (smem > cu->smem_optin && cu->smem_optin > 0) {
        kv->mod_decode[G] = NULL;
        snprintf(kv->msg, sizeof kv->msg, "decode kernel needs %d bytes of shared memory; the device allows %d", smem, cu->smem_optin);
        return OSCAR_ERR_INVALID_ARG;
    }
    kv->smem_decode[G] = smem;
    kv->thr_decode[G] = 128;
    kv->wk_decode[G] = 0;
    {
        /* the warp-owned kernel (oscar_decode_w) where the specialisation has it, else oscar_decode */
        int occ = 0, on = 0, wsmem = 0, wthr = 0;
        r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_decode_w_on");
        if (!r) r = cu->drv.cuMemcpyDtoH(&on, gp, sizeof on);
        if (!r) r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_decode_w_smem_bytes");
        if (!r) r = cu->drv.cuMemcpyDtoH(&wsmem, gp, sizeof wsmem);
        if (!r) r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_decode_w_threads");
        if (!r) r = cu->drv.cuMemcpyDtoH(&wthr, gp, sizeof wthr);
        if (!r && on && wthr > 0 && (wsmem <= cu->smem_optin || cu->smem_optin <= 0)) {
            r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][0], kv->mod_decode[G], "oscar_decode_w");
            smem = kv->smem_decode[G] = wsmem;
            kv->thr_decode[G] = wthr;
            kv->wk_decode[G] = 1;
        } else if (!r) {
            r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][0], kv->mod_decode[G], "oscar_decode");
        }
        int shape[5] = {0, 0, 0, 0, 0}; /* query heads per block; chunks and threads of oscar_rotate_q, oscar_rotate_q1 */
        if (!r) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][1], kv->mod_decode[G], "oscar_rotate_q");
        if (!r) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][4], kv->mod_decode[G], "oscar_rotate_q1");
        if (!r) r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_rotate_q_shape");
        if (!r) r = cu->drv.cuMemcpyDtoH(shape, gp, sizeof shape);
        kv->rqh_decode[G] = shape[0];
        for (k = 0; k < 2; k++) kv->rqc_decode[G][k] = shape[1 + 2 * k], kv->rqt_decode[G][k] = shape[2 + 2 * k];
        if (!r && (shape[0] < 1 || G % shape[0] || shape[1] < 1 || shape[1] > kv->d || shape[3] < 1 || shape[3] > kv->d || shape[2] < 32 || shape[2] > 1024 ||
                   shape[2] % 32 || shape[4] < 32 || shape[4] > 1024 || shape[4] % 32)) {
            cu->drv.cuModuleUnload(kv->mod_decode[G]);
            kv->mod_decode[G] = NULL;
            snprintf(kv->msg, sizeof kv->msg, "decode kernels report %d query heads, %d / %d column chunks and %d / %d threads per rotation block for a group of %d", shape[0],
                     shape[1], shape[3], shape[2], shape[4], G);
            return OSCAR_ERR_STATE;
        }
        kv->poll_decode[G] = 0;
        if (!r && kv->wk_decode[G]) r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_merge_polls");
        if (!r && kv->wk_decode[G]) r = cu->drv.cuMemcpyDtoH(&kv->poll_decode[G], gp, sizeof(int));
        if (!r) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][2], kv->mod_decode[G], "oscar_merge");
        if (!r) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][3], kv->mod_decode[G], "oscar_merge_g");
        if (!r) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][5], kv->mod_decode[G], "oscar_merge_h");
        kv->fn_decode[G][6] = kv->fn_decode[G][7] = kv->fn_decode[G][8] = NULL; /* oscar_decode_w_il, oscar_decode_wc, oscar_decode_w_ilc: built for
                                                                                    some specialisations only (oscar_decode_w_il_on, oscar_decode_wc_on) */
        kv->cmax_decode[G] = 0;
        if (!r && kv->wk_decode[G]) {
            int il_on = 0, wc_on = 0;
            r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_decode_w_il_on");
            if (!r) r = cu->drv.cuMemcpyDtoH(&il_on, gp, sizeof il_on);
            if (!r && il_on) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][6], kv->mod_decode[G], "oscar_decode_w_il");
            if (!r) r = cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_decode_wc_on");
            if (!r) r = cu->drv.cuMemcpyDtoH(&wc_on, gp, sizeof wc_on);
            if (!r && wc_on && cu->cuLaunchKernelEx) {
                r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][7], kv->mod_decode[G], "oscar_decode_wc");
                if (!r && il_on) r = cu->drv.cuModuleGetFunction(&kv->fn_decode[G][8], kv->mod_decode[G], "oscar_decode_w_ilc");
                /* up to the device's limit: a cluster launch may ask for more than the kernel uses, to cap the blocks per SM */
                for (k = 7; !r && k <= 8; k++)
                    if (kv->fn_decode[G][k] && cu->smem_optin > 48 * 1024) r = cu->drv.cuFuncSetAttribute(kv->fn_decode[G][k], OSCAR__CU_FUNC_MAX_DYN_SMEM, cu->smem_optin > smem ? cu->smem_optin : smem);
                if (!r) kv->cmax_decode[G] = oscar__kv_cmax(kv, G, smem);
            }
        }
        if (!r && kv->fn_decode[G][6] && smem > 48 * 1024) r = cu->drv.cuFuncSetAttribute(kv->fn_decode[G][6], OSCAR__CU_FUNC_MAX_DYN_SMEM, smem);
        if (!r && smem > 48 * 1024) r = cu->drv.cuFuncSetAttribute(kv->fn_decode[G][0], OSCAR__CU_FUNC_MAX_DYN_SMEM, smem);
        /* the small kernels ask for the decode's shared-memory split of the SM (the decode grid is
           placed while oscar_rotate_q runs, and a merge while the decode runs): measured 0.9-1.1 us
           less per batch-1 call on the H100 with the same splits (kernels/NOTES.md v42; which
           placement it changes was not found). A hint: a driver that refuses it loses only that */
        for (k = 1; !r && k <= 5; k++) (void)cu->drv.cuFuncSetAttribute(kv->fn_decode[G][k], OSCAR__CU_FUNC_PREFERRED_CARVEOUT, 100);
        if (!r) r = cu->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kv->fn_decode[G][0], kv->thr_decode[G], (size_t)smem);
        if (r) {
            kv->mod_decode[G] = NULL;
            return oscar__kv_fail(kv, oscar__cu_fail(cu, r, "oscar_decode occupancy"));
        }
        kv->occ_decode[G] = occ > 0 ? occ : 1;
    }
    if (hs > 1 && !kv->wk_decode[G]) { /* the split pays only with the warp-owned kernel */
        kv->mod_decode[G] = NULL;
        return oscar__kv_decode_module_hs(kv, G, 1);
    }
    return OSCAR_OK;
}

/* the decode module of group G, split into hs query-head groups per KV head (oscar_cuda_kv.hsplit) */
static int oscar__kv_decode_module(oscar_cuda_kv *kv, int G) {
    int hs = 1;
    if (kv->hsplit != 1 && (kv->d == 64 || kv->d == 128 || kv->d == 256)) {
        const int maxg = kv->d == 256 ? 4 : 8; /* the warp-owned kernel's largest group */
        if (kv->hsplit >= 2 && kv->hsplit <= OSCAR__MAX_HSPLIT && G % kv->hsplit == 0) hs = kv->hsplit;
        else if (G > maxg) { /* the fewest groups of 3 to maxg heads */
            for (hs = 2; hs <= G && (G % hs || G / hs > maxg || G / hs < 3); hs++) {}
            if (hs > G) hs = 1;
        }
    }
    return oscar__kv_decode_module_hs(kv, G, hs);
}

/* splits per (sequence, KV head): blocks = per * splits should fill whole waves of the resident
   block slots, since the blocks of one launch do equal work and a partly filled last wave costs
   as long as a full one. The fewest splits whose waves are at least 95% full (the best found when
   none is), at most cap; force > 0 overrides (clamped to 1..cap). */
static int oscar__kv_splits(int slots, int per, int cap, int force) {
    int s, best = 1;
    double best_eff = 0.0;
    if (cap < 1) cap = 1;
    if (force > 0) return force < cap ? force : cap;
    if (slots < 1 || per < 1) return 1;
    for (s = 1; s <= cap; s++) {
        long long blocks = (long long)per * s, waves = (blocks + slots - 1) / slots;
        double eff = (double)blocks / (double)(waves * slots);
        if (eff > best_eff + 1e-9) {
            best_eff = eff;
            best = s;
        }
        if (eff >= 0.95 || waves > 8) break;
    }
    return best;
}

/* 1: the queries of group G are rotated inside oscar_decode_w (every rotation is H), no rotation launch */
static int oscar__kv_qwht(const oscar_cuda_kv *kv, int G) { return kv->krot && kv->wht && kv->wk_decode[G] && kv->qwht != 2; }
/* 1: a query-rotation launch (oscar_rotate_q / oscar_rotate_q1) precedes the decode of group G */
static int oscar__kv_rq_launch(const oscar_cuda_kv *kv, int G) { return kv->krot && !oscar__kv_qwht(kv, G); }

/* the merge kernel of an attend call (index into oscar__merge_fn / oscar__merge_name): 0 oscar_merge,
   one query head per block while the blocks fit two waves (batch 1: the shortest chain); 1
   oscar_merge_g, a KV head's heads per block (fewer waves at large batches); 2 oscar_merge_h, one
   head per block un-rotating by the fast transform (R_v^T = H: every rotation H, kv->wht, and R_v
   not absorbed) where the grid is one wave or oscar_cuda_kv.merge 1 asks for one head per block
   (kernels/NOTES.md v46: 0.3-0.4 us less at batch 1, slower at batch 8-32). How the queries were
   rotated (oscar_cuda_kv.qwht, the decode kernel) does not enter: the merge sees only the partials */
static const int oscar__merge_fn[3] = {2, 3, 5}; /* oscar_cuda_kv.fn_decode[G][.] */
static const char *const oscar__merge_name[3] = {"oscar_merge", "oscar_merge_g", "oscar_merge_h"};
static int oscar__kv_merge_kind(const oscar_cuda_kv *kv, int G, int n_q_heads, int n_seqs) {
    const long long blocks = (long long)n_q_heads * n_seqs, sms = kv->cu->sm_count > 0 ? kv->cu->sm_count : 100;
    if (kv->merge == 2 || (kv->merge != 1 && kv->rqh_decode[G] > 1 && blocks > 2 * sms)) return 1;
    if (kv->vrot_t && !kv->absorb_v && kv->wht && (kv->merge == 1 || blocks <= sms)) return 2;
    return 0;
}

/* partial loads per thread in flight of oscar_merge_h: OSCAR_MHMW in kernels/oscar_decode.cu */
#define OSCAR__MERGE_H_MW 24

/* threads per oscar_merge_h block for a decode of `splits` splits: at d 128, 256 where every split's partial is
   loaded in one round (two slices of 128 threads: splits <= 2 x OSCAR__MERGE_H_MW), else 512; merge_threads > 0
   forces a count (a multiple of d, at most 512). 32 blocks of 16 warps issued ~423 instructions per warp at batch 1
   (run s34-5); with 8 warps per block 1 x 8K took 9.4 against 9.7-9.8 us in a graph (run s34-6, kernels/NOTES.md v61). With
   v62 (each warp sums and transforms its own splits) 512 threads at d 128 took 9.7-9.8 against 9.4 (run s35-1). Other
   head dimensions keep 512 */
static unsigned oscar__merge_h_threads(const oscar_cuda_kv *kv, int splits) {
    if (kv->merge_threads > 0 && kv->merge_threads <= 512 && kv->merge_threads % kv->d == 0) return (unsigned)kv->merge_threads;
    return kv->d == 128 && splits <= 2 * OSCAR__MERGE_H_MW ? 256u : 512u;
}

/* 1: the outputs of group G's decode may be merged by clusters (oscar_decode_wc / oscar_decode_w_ilc): built,
   the device takes clusters, and the outputs need no un-rotation other than o . H (fitted R_v keep the merge
   kernels' product); il: the decode is the interleaved one */
static int oscar__kv_cm_ok(const oscar_cuda_kv *kv, int G, int il) {
    return kv->cmerge != 2 && kv->cmax_decode[G] > 0 && kv->fn_decode[G][il ? 8 : 7] && (!(kv->vrot_t && !kv->absorb_v) || kv->wht);
}

/* 1: the decode's splits merge inside clusters (*splits: capped at the largest cluster where cmerge 1 asks for
   them everywhere). Automatic where they fit one cluster and the batch holds >= 64 (sequence, KV head) pairs.
   Measured on the H100 (kernels/NOTES.md v55, run s26-5), graph us against the merge launch: 8 x 32K 64.3
   against 67.3-67.4, 12 x 32K 91.4 against 93.8-94.2, 16 x 32K 118.7-119.0 against 119.8-119.9, level (within
   0.5%) at 24-48 x 32K, 8 and 16 x 128K, BF16 8 x 32K. Below 64 pairs the clusters are 8-16 blocks at 1-2 per
   SM, which the GPCs do not all hold at once: 2 x 32K 35.3 against 22.5 (run s26-4), 1 x 32K with 8-warp blocks
   in clusters of 16 27.8-28.0 against 15.5-15.6 for the same blocks with the merge launch (run s26-8) */
static int oscar__kv_cm(const oscar_cuda_kv *kv, int G, int il, int n_seqs, int nkh, int *splits) {
    int cmax = kv->cmax_decode[G];
    if (!oscar__kv_cm_ok(kv, G, il)) return 0;
    if (kv->cluster_max >= 2 && cmax > kv->cluster_max) cmax = kv->cluster_max;
    if (kv->cmerge == 1 && *splits > cmax) *splits = cmax;
    return *splits <= cmax && (kv->cmerge == 1 || (long long)n_seqs * nkh >= 64);
}

/* the dynamic shared memory of a cluster launch of nb blocks: enough that an SM takes no more than the
   ceil(nb / SMs) blocks an even spread gives it (the hardware places a cluster's blocks within one GPC and
   would otherwise fill the first SMs up to the kernel's occupancy), at least what the kernel uses
   (oscar_cuda_kv.cluster_cap 0: the kernel's own) */
static int oscar__kv_cm_smem(const oscar_cuda_kv *kv, int G, long long nb) {
    const oscar_cuda *cu = kv->cu;
    const int smem = kv->smem_decode[G];
    long long t, c;
    if (kv->cluster_cap == 2 || cu->sm_count <= 0 || cu->smem_sm <= 0 || cu->smem_optin <= 0) return smem;
    t = (nb + cu->sm_count - 1) / cu->sm_count;
    if (t >= kv->occ_decode[G]) return smem;
    c = ((cu->smem_sm / t - cu->smem_reserved) / 128) * 128; /* t blocks fit, t + 1 do not */
    if (c > cu->smem_optin) c = cu->smem_optin;
    return c > smem ? (int)c : smem;
}

/* the split count of an attend call: n_seqs sequences of nkh query-head groups, the longest max_n
   tokens, at most cap splits; *pdl: whether the decode starts while the query rotation runs; *rq1:
   which rotation launch runs before it (1 oscar_rotate_q1, 0 oscar_rotate_q) */
/* 1: the decode is the interleaved one (oscar_decode_w_il), where it is built and the batch holds >= 64
   (sequence, KV head) pairs (oscar_cuda_kv.wig) */
static int oscar__kv_il(const oscar_cuda_kv *kv, int G, int n_seqs, int nkh) {
    return kv->fn_decode[G][6] && kv->wig != 2 && (kv->wig == 1 || (long long)n_seqs * nkh >= 64);
}

/* splits per (sequence, KV head) for the interleaved decode (oscar_decode_w_il): the busiest SM's work. With
   b = ceil(per s / sms) blocks on the busiest SM, each 1 / s of a pair, the cost is b / s times a preference
   for b measured on the H100 (occupancy 4; kernels/NOTES.md v52): occ - 1 blocks per SM best (8 x 32K at 6
   splits 67.0 us against 68.0 for the slot-filling 8; 12 x 32K at 4 splits 93.4 against 99.2 for 11 in two
   waves), then occ, then fewer; more than one wave 1.1 (40 x 32K: 8 splits in five waves 287.5 against 310.0
   for one wave of 1 split, 56 SMs holding 3 blocks of a whole pair). Used where the kernel fits 4 blocks
   per SM, as measured; other cards keep the slot-filling count */
static double oscar__kv_il_cost(int sms, int occ, int per, int s) {
    const long long b = ((long long)per * s + sms - 1) / sms;
    const double pref = b > occ ? 1.1 : b == occ - 1 ? 1.0 : b == occ ? 1.015 : b == 1 ? 1.5 : 1.02;
    return (double)b / s * pref;
}
/* the one-wave split count of least cost, or fill (the slot-filling choice) where that costs less */
static int oscar__kv_splits_il(int sms, int occ, int per, int cap, int fill) {
    int s, best = fill;
    double best_c = oscar__kv_il_cost(sms, occ, per, fill);
    for (s = 1; s <= cap && ((long long)per * s + sms - 1) / sms <= occ; s++) {
        const double c = oscar__kv_il_cost(sms, occ, per, s);
        if (c < best_c - 1e-9) {
            best_c = c;
            best = s;
        }
    }
    return best;
}

static int oscar__kv_pick_splits(const oscar_cuda_kv *kv, int G, int n_seqs, int nkh, int cap, int max_n, int il, int *pdl, int *rq1) {
    const oscar_cuda *cu = kv->cu;
    int splits = oscar__kv_splits(kv->occ_decode[G] * (cu->sm_count > 0 ? cu->sm_count : 100), nkh * n_seqs, cap, kv->splits), s;
    *pdl = kv->wk_decode[G] && kv->decode_pdl != 2;
    *rq1 = kv->rotate_q1 == 1;
    /* not behind a query-rotation launch (fitted rotations): its blocks, placed first, leave the decode's
       grid fewer slots on some SMs, and fewer splits then load the others more (8 x 128K dense, back to
       back: 257.8 us at 6 splits against 223.6 at 8, run s25-10) */
    if (il && kv->splits <= 0 && (long long)n_seqs * nkh >= 64 && cu->sm_count > 0 && kv->occ_decode[G] == 4 && !oscar__kv_rq_launch(kv, G)) {
        return oscar__kv_splits_il(cu->sm_count, kv->occ_decode[G], nkh * n_seqs, cap, splits);
    }
    /* below 64 pairs, BF16 caches and INT2 caches of 2-7 sequences not behind a query-rotation launch: 2
       blocks per SM (measured on the H100, kernels/NOTES.md v53, v54). BF16 (with the warps of a block
       taking its units in turn, v51): 1 x 32K 51.5 us in a graph against 53.7-53.8 for the slot-filling 66
       splits, 1 x 128K 184.5-184.7 against 189.5, 1 x 4K-64K 3-6% faster, 2 x 32K 96.4-96.5 against
       98.3-98.4, 4 x 32K 185.9-186.2 against 189.1-189.4. INT2: 2 x 32K 22.3-22.4 against 24.6-24.7, 2 x 128K
       60.8-61.1 against 64.7-64.8, 4 x 32K 37.5-37.8 against 40.1-40.2, 4 x 128K 113.1-113.3 against
       116.3-116.5 (one sequence has its own rule below) */
    if ((!kv->int2 || (n_seqs >= 2 && !oscar__kv_rq_launch(kv, G))) && kv->wk_decode[G] && kv->splits <= 0 && kv->occ_decode[G] == 4 && cu->sm_count > 0 &&
        (long long)n_seqs * nkh < 64) {
        s = 2 * cu->sm_count / (nkh * n_seqs);
        return s >= 1 && s < splits ? s : splits;
    }
    /* measured on the H100 for one sequence of an INT2 cache whose decode kernel fits 4 blocks per SM
       (8 KV heads, d 128, G 4; kernels/NOTES.md v42, v43); other cases keep the slot-filling count */
    if (n_seqs != 1 || !kv->int2 || kv->splits > 0 || kv->occ_decode[G] != 4 || cu->sm_count <= 0) return splits;
    /* from 16K tokens 2 blocks per SM (33 splits on 132 SMs) behind oscar_rotate_q1 (whose blocks leave
       room for two decode blocks on their SMs), below 2.5 (41) behind oscar_rotate_q: in one run, graph
       us for 25 / 33 / 41 / 49 splits behind oscar_rotate_q1: 8K 11.8 / 12.0 / 11.4 / 11.4, 16K 13.7 /
       13.8 / 14.1 / 14.3, 32K 18.4 / 17.0 / 18.2 / 17.2, 128K 42.0 / 36.1 / 39.1 / 38.3 (8K with 41
       splits behind oscar_rotate_q: 11.3) */
    if (max_n >= 12288) {
        s = 2 * cu->sm_count / nkh;
        *rq1 = kv->rotate_q1 == 1 || (kv->rotate_q1 == 0 && s >= 1 && s < splits);
    } else {
        s = 5 * cu->sm_count / 2 / nkh;
    }
    return s >= 1 && s < splits ? s : splits;
}

OSCAR_API int oscar_cuda_kv_attend(oscar_cuda_kv *kv, int layer, const int *seqs, int n_seqs, oscar_cu_ptr out, oscar_cu_ptr q, int n_q_heads, float scale) {
    oscar_cuda *cu;
    int G, i, rc, max_tiles = 0, max_units = 0, max_n = 0, splits, tb, th, poll, decode_launched = 0, hs, nkh, dpdl, rq1, qw, il, cm;
    size_t off_q, off_o, off_ml, off_si, need;
    int *si, si_small[2 * OSCAR__INLINE_SEQS]; /* small batches: no allocation (this call's host time is batch 1's critical path) */
    oscar__attn_params ap;
    oscar__rot_params rp;
    oscar_cu_result r;
    oscar_cu_ptr qr;
    if (!kv || !seqs || !kv->cu) return OSCAR_ERR_NULL;
    cu = kv->cu;
    if (layer < 0 || layer >= kv->L || n_seqs <= 0 || n_seqs > 65535) {
        snprintf(kv->msg, sizeof kv->msg, "attend: bad layer %d or batch %d", layer, n_seqs);
        return OSCAR_ERR_RANGE;
    }
    if (!out || !q) return OSCAR_ERR_NULL;
    if (n_q_heads <= 0 || n_q_heads % kv->Hkv != 0 || n_q_heads / kv->Hkv > 32) {
        snprintf(kv->msg, sizeof kv->msg, "attend: %d query heads for %d KV heads (need a multiple, at most 32 per KV head)", n_q_heads, kv->Hkv);
        return OSCAR_ERR_SHAPE;
    }
    G = n_q_heads / kv->Hkv;
    if (!(scale >= 0.0f) || !(scale < 3.0e38f)) {
        snprintf(kv->msg, sizeof kv->msg, "attend: scale must be finite and >= 0");
        return OSCAR_ERR_RANGE;
    }
    if (scale == 0.0f) scale = 1.0f / sqrtf((float)kv->d);
    tb = 4096 / kv->d < 64 ? 4096 / kv->d : 64;
    th = oscar__gcd(kv->P, kv->int2 ? 64 : tb);
    si = n_seqs <= OSCAR__INLINE_SEQS ? si_small : (int *)OSCAR_CUDA_MALLOC(sizeof(int) * 2 * (size_t)n_seqs);
    if (!si) return OSCAR_ERR_NOMEM;
#define OSCAR__SI_FREE() \
    do {                 \
        if (si != si_small) OSCAR_CUDA_FREE(si); \
    } while (0)
    for (i = 0; i < n_seqs; i++) {
        int n, ns, h, nw, t;
        if (!oscar__kv_check_seq(kv, seqs[i])) {
            OSCAR__SI_FREE();
            snprintf(kv->msg, sizeof kv->msg, "attend: no sequence %d", seqs[i]);
            return OSCAR_ERR_NO_SEQ;
        }
        n = kv->seqs[seqs[i]].n_tok[layer];
        if (n == 0) {
            OSCAR__SI_FREE();
            snprintf(kv->msg, sizeof kv->msg, "attend: sequence %d layer %d holds no tokens", seqs[i], layer);
            return OSCAR_ERR_STATE;
        }
        ns = n < kv->S0 ? n : kv->S0;
        h = oscar__kv_hist(kv, n);
        nw = n - ns - h;
        t = (ns + tb - 1) / tb + h / th + (nw + tb - 1) / tb;
        if (t > max_tiles) max_tiles = t;
        t = (ns + 7) / 8 + h / (kv->int2 ? th : (th < 8 ? th : 8)) + (nw + 7) / 8; /* oscar_decode_w's units */
        if (t > max_units) max_units = t;
        si[2 * i] = seqs[i];
        si[2 * i + 1] = n;
        if (n > max_n) max_n = n;
    }
    if ((rc = oscar_cuda_push(cu)) != OSCAR_OK) { /* one push for the whole call: popped at the end */
        OSCAR__SI_FREE();
        return oscar__kv_fail(kv, rc);
    }
    rc = oscar__kv_decode_module(kv, G);
    if (rc) {
        oscar_cuda_pop(cu);
        OSCAR__SI_FREE();
        return rc;
    }
    hs = kv->hs_decode[G];
    nkh = kv->Hkv * hs; /* query-head groups per sequence: blocks along y */
    if (kv->wk_decode[G]) max_tiles = (max_units + kv->thr_decode[G] / 32 - 1) / (kv->thr_decode[G] / 32);
    if (max_tiles > 1024 / kv->rqh_decode[G]) max_tiles = 1024 / kv->rqh_decode[G]; /* oscar_merge_g: RHB x splits <= 1024 */
    /* the merge polls per-KV-head split counts where oscar_decode_w keeps them (counts: a row per
       batch entry, so batches of up to max_seqs) */
    poll = kv->wk_decode[G] && kv->poll_decode[G] && n_seqs <= kv->max_seqs && kv->poll != 2 && (kv->poll == 1 || (long long)n_seqs * nkh >= 64);
    il = oscar__kv_il(kv, G, n_seqs, nkh);
    splits = oscar__kv_pick_splits(kv, G, n_seqs, nkh, max_tiles, max_n, il, &dpdl, &rq1);
    cm = oscar__kv_cm(kv, G, il, n_seqs, nkh, &splits);
    if (cm) poll = 0;
    off_si = 0;
    off_q = 256 + ((sizeof(int) * 2 * (size_t)n_seqs + 255) / 256) * 256;
    off_o = off_q + ((sizeof(float) * (size_t)n_seqs * n_q_heads * kv->d + 255) / 256) * 256;
    off_ml = off_o + ((sizeof(float) * (size_t)n_seqs * n_q_heads * splits * kv->d + 255) / 256) * 256;
    need = off_ml + sizeof(float) * 2 * (size_t)n_seqs * n_q_heads * splits;
    rc = oscar__kv_scratch(kv, &kv->work, &kv->work_cap, need);
    memset(&ap, 0, sizeof ap);
    if (!rc && n_seqs > OSCAR__INLINE_SEQS) { /* small batches travel in the kernel parameters */
        r = cu->drv.cuMemcpyHtoDAsync(kv->work + off_si, si, sizeof(int) * 2 * (size_t)n_seqs, kv->stream);
        if (r) rc = oscar__kv_fail(kv, oscar__cu_fail(cu, r, "cuMemcpyHtoDAsync_v2"));
        ap.seqinfo = kv->work + off_si;
    } else {
        memcpy(ap.inline_info, si, sizeof(int) * 2 * (size_t)n_seqs);
    }
    OSCAR__SI_FREE();
    qr = q;
    memset(&rp, 0, sizeof rp);
    rp.layer = layer;
    rp.Hq = n_q_heads;
    rp.gqa = G;
    rp.hsplit = hs;
    rp.rot_heads = kv->rot_heads;
    rp.n_splits = splits;
    if (!rc && kv->prof_ev[0]) cu->drv.cuEventRecord(kv->prof_ev[0], kv->stream);
    qw = oscar__kv_qwht(kv, G);
    if (!rc && oscar__kv_rq_launch(kv, G)) {
        rp.x = q;
        rp.y = kv->work + off_q;
        rp.rot = kv->krot;
        qr = rp.y;
        rc = oscar__launch_ex(kv, kv->fn_decode[G][rq1 ? 4 : 1], rq1 ? "oscar_rotate_q1" : "oscar_rotate_q", (unsigned)(n_q_heads / kv->rqh_decode[G] * kv->rqc_decode[G][rq1]), (unsigned)n_seqs, 1,
                              (unsigned)kv->rqt_decode[G][rq1], 0, &rp, 1);
    }
    if (!rc && kv->prof_ev[0]) cu->drv.cuEventRecord(kv->prof_ev[1], kv->stream);
    if (!rc) {
        ap.q = qr;
        ap.qwht = qw;
        ap.part_o = kv->work + off_o;
        ap.part_ml = kv->work + off_ml;
        ap.pool = kv->pool;
        ap.sink = kv->sink;
        ap.win = kv->win;
        ap.bt = kv->bt;
        ap.layer = layer;
        ap.L = kv->L;
        ap.Hkv = kv->Hkv;
        ap.S0 = kv->S0;
        ap.W = kv->W;
        ap.P = kv->P;
        ap.ring = kv->ring;
        ap.max_pages = kv->max_pages;
        ap.max_blocks = kv->max_pages;
        ap.n_splits = splits;
        ap.head_page_bytes = (int32_t)kv->head_page_bytes;
        ap.scale_log2 = scale * 1.4426950408889634f;
        ap.l2pf = kv->int2 && cu->arch >= 90 && kv->l2pf != 2 && (kv->l2pf == 1 || (long long)n_seqs * nkh >= 64) ? 2 : 0;
        if (poll) ap.counts = kv->counts;
        if (cm) { /* the clusters write the outputs */
            ap.y = out;
            ap.vmo = kv->vmo;
            ap.vwht = kv->vrot_t && !kv->absorb_v;
            rc = oscar__launch_cx(kv, kv->fn_decode[G][il ? 8 : 7], il ? "oscar_decode_w_ilc" : "oscar_decode_wc", (unsigned)splits, (unsigned)nkh, (unsigned)n_seqs, (unsigned)kv->thr_decode[G],
                                  (unsigned)oscar__kv_cm_smem(kv, G, (long long)splits * nkh * n_seqs), &ap, dpdl, (unsigned)splits);
        } else {
            rc = oscar__launch_ex(kv, kv->fn_decode[G][il ? 6 : 0], il ? "oscar_decode_w_il" : "oscar_decode", (unsigned)splits, (unsigned)nkh, (unsigned)n_seqs, (unsigned)kv->thr_decode[G],
                                  (unsigned)kv->smem_decode[G], &ap, dpdl);
        }
        decode_launched = !rc;
    }
    if (!rc && kv->prof_ev[0]) cu->drv.cuEventRecord(kv->prof_ev[2], kv->stream);
    if (!rc && !cm) {
        rp.x = 0;
        if (poll) rp.counts = kv->counts;
        rp.y = out;
        rp.rot = (kv->vrot_t && !kv->absorb_v) ? kv->vrot_t : 0;
        rp.vmo = kv->vmo;
        rp.part_o = kv->work + off_o;
        rp.part_ml = kv->work + off_ml;
        const int mk = oscar__kv_merge_kind(kv, G, n_q_heads, n_seqs);
        if (mk == 2) rp.rot = 0; /* o . H inside oscar_merge_h */
        const unsigned mth = mk == 2 ? oscar__merge_h_threads(kv, splits) : 512u;
        rc = oscar__launch_ex(kv, kv->fn_decode[G][oscar__merge_fn[mk]], oscar__merge_name[mk], (unsigned)(n_q_heads / (mk == 1 ? kv->rqh_decode[G] : 1)), (unsigned)n_seqs, 1, mth, 0, &rp,
                              1);
    }
    if (!rc && kv->prof_ev[0]) cu->drv.cuEventRecord(kv->prof_ev[3], kv->stream);
    /* a decode that counted without its merge (the merge's launch failed) leaves counts that the
       next call's merge would take as done: clear them behind it on the stream */
    if (rc && poll && decode_launched) cu->drv.cuMemsetD32Async(kv->counts, 0, (size_t)kv->max_seqs * kv->Hkv * OSCAR__MAX_HSPLIT, kv->stream);
    oscar_cuda_pop(cu);
    return rc;
#undef OSCAR__SI_FREE
}

#ifdef __cplusplus
}
#endif
#endif /* OSCAR_CUDA_IMPLEMENTATION_DONE */
#endif /* OSCAR_CUDA_IMPLEMENTATION */

/*
   HISTORY
     0.1.0  first version: loader, NVRTC, device cache, write path, decode attention (INT2, BF16)

   LICENSE
     MIT. Copyright (c) the oscar authors. Permission is hereby granted, free of charge, to any
     person obtaining a copy of this software and associated documentation files (the
     "Software"), to deal in the Software without restriction, including without limitation the
     rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
     the Software, and to permit persons to whom the Software is furnished to do so, subject to
     the following conditions: The above copyright notice and this permission notice shall be
     included in all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED
     "AS IS", WITHOUT WARRANTY OF ANY KIND.
*/
