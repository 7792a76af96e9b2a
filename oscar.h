/* oscar.h - v0.1.0 - INT2 KV-cache compression (OSCAR) - MIT - single-file C99 library

   OSCAR (Offline Spectral Covariance-Aware Rotation) compresses the key/value cache of a
   transformer to about 2.25 bits per element: keys and values are rotated by fitted orthogonal
   matrices, clipped, and quantised to 2 bits with an fp16 scale/min per group; the first tokens
   (the "sink") and the most recent ones (the "window") stay in BF16. This header is the CPU
   reference: every GPU kernel (oscar_cuda.h) is checked against it.

   DO THIS
       #define OSCAR_IMPLEMENTATION      (in exactly one .c or .cpp file, before the include)
       #include "oscar.h"
   Link with -lm. Nothing else is needed.

   USAGE (decode one token of one layer)
       oscar_kv kv; oscar_kv_config cfg = {0};
       cfg.n_layers = 30; cfg.n_kv_heads = 3; cfg.head_dim = 64;
       cfg.mode = OSCAR_KV_INT2; cfg.rot = &rotations;      // from oscar_rotations_load()
       if (oscar_kv_init(&kv, &cfg) != OSCAR_OK) { puts(kv.msg); return 1; }
       int seq; oscar_kv_seq_create(&kv, &seq);
       for each token, for each layer l:
           oscar_kv_append(&kv, seq, l, k, v, 1);            // k, v: [1][Hkv][d], post-RoPE
           oscar_kv_attend(&kv, seq, l, out, q, n_q_heads, 0.0f);   // out, q: [Hq][d]
       oscar_kv_free(&kv);

   COMPILE-TIME OPTIONS (define before including)
       OSCAR_STATIC            make every function static (private copy per translation unit)
       OSCAR_API               linkage of public functions (default: extern)
       OSCAR_MALLOC(sz), OSCAR_REALLOC(p,sz), OSCAR_FREE(p)
                               allocator (define all three or none; default libc)
       OSCAR_ASSERT(x)         internal invariant checks (default: assert.h assert)
       OSCAR_MAX_HEAD_DIM      largest head dimension accepted (default 1024)

   API INDEX
     general      oscar_version, oscar_result_string
     numbers      oscar_f32_to_f16, oscar_f16_to_f32, oscar_f32_to_bf16, oscar_bf16_to_f32
     >>wht        oscar_wht, oscar_bitrev, oscar_hadamard_matrix, oscar_is_pow2
     >>jacobi     oscar_jacobi_eig                 symmetric eigensolver, double precision
     >>calib      oscar_calib_init/_add_q/_add_kv/_targets/_free   statistics of SPEC section 2
     >>fit        oscar_rotation_fit, oscar_rotation_orth_error, oscar_composition_name/_parse
     >>rot        oscar_rotations_alloc/_free/_save/_load/_set_fixed/_k/_v
     >>int2       oscar_int2_clip_threshold, oscar_int2_quantize_row, oscar_int2_dequantize_row
     >>kv         oscar_kv_init/_free, oscar_kv_seq_create/_fork/_release/_length,
                  oscar_kv_append, oscar_kv_segments, oscar_kv_read_row, oscar_kv_memory_usage,
                  oscar_kv_block_table, oscar_kv_page_ptr, oscar_kv_sink_ptr, oscar_kv_window_ptr
     >>attn       oscar_kv_attend, oscar_attend_rows (plain softmax attention over rows)
     >>safetensors oscar_st_open/_parse/_close/_find/_meta/_read_f32, oscar_st_write

   CONVENTIONS
     * Every function returns an oscar_result (OSCAR_OK = 0, errors negative) unless it is a pure
       computation that cannot fail. Objects (oscar_kv, oscar_calib, oscar_rotations, oscar_st)
       are structs owned by the caller; on error a one-line explanation is left in their `msg`.
       Stateless functions that can fail on input take an optional `char *msg` of OSCAR_MSG_SIZE.
     * Vectors are row vectors; a rotation R is d x d row-major fp32 applied as x_rot = x . R.
     * Shapes are written in comments as [n][Hkv][d]; everything is row-major and contiguous.

   THE CACHE (SPEC section 5), per sequence, per layer, per KV head
     * sink: positions [0, S0) in BF16 (default S0 = 64)
     * window: the newest tokens in BF16, a ring of W + P rows (default W = 256, P = page = 64)
     * history: full pages of P tokens, INT2 codes + fp16 (scale, min) per group of g channels.
     Flush rule: after appending a token, if the window holds W + P tokens, its oldest P tokens are
     quantised into a new history page. So at length n the BF16 tokens are [0, S0) and
     [S0 + H, n) where H = P * floor((n - S0 - W) / P) if n >= S0 + W, else 0 (history = [S0, S0+H)).
     History pages are always full: no partially filled page is ever read.
     In OSCAR_KV_BF16 mode the same rule applies but pages hold BF16 rows (exact baseline).
     Pages belong to the whole sequence (one block table, all layers): page id p of layer l lives
     at oscar_kv_page_ptr(kv, l, p, head). Head-page layout, INT2 mode (bytes):
         [K codes: P][d/4] [K scale,min: P][d/g][2] fp16 [V codes: P][d/4] [V scale,min: P][d/g][2]
     BF16 mode:  [K: P][d] bf16 [V: P][d] bf16.
     Window slot of position t >= S0 is (t - S0) % (W + P). P must divide W.

   THREAD SAFETY
     No global state. Distinct objects may be used from distinct threads at the same time. One
     object (a cache, a calibration accumulator) must not be used from two threads at once
     (oscar_kv_attend uses scratch memory inside the cache).

   MEMORY
     All allocation goes through OSCAR_MALLOC/OSCAR_REALLOC/OSCAR_FREE. oscar_kv allocates its page
     pool once in oscar_kv_init (oscar_kv_config.max_pages) and each sequence's BF16 sink/window
     when the sequence is created; appends never allocate except to grow a block table.
*/
#ifndef OSCAR_H
#define OSCAR_H

#include <stddef.h>
#include <stdint.h>

#define OSCAR_VERSION_MAJOR 0
#define OSCAR_VERSION_MINOR 1
#define OSCAR_VERSION_PATCH 0
#define OSCAR_VERSION_STRING "0.1.0"

#ifndef OSCAR_API
#ifdef OSCAR_STATIC
#define OSCAR_API static
#else
#define OSCAR_API extern
#endif
#endif

#ifndef OSCAR_MAX_HEAD_DIM
#define OSCAR_MAX_HEAD_DIM 1024
#endif

#define OSCAR_MSG_SIZE 256
#define OSCAR_NONE (-1) /* in configs: "none" where 0 means "default" */

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, text): the one list the enum and oscar_result_string() are built from. */
#define OSCAR_RESULT_LIST(X)                                                        \
    X(OSCAR_OK, 0, "ok")                                                            \
    X(OSCAR_ERR_INVALID_ARG, -1, "invalid argument")                                \
    X(OSCAR_ERR_NULL, -2, "null pointer argument")                                  \
    X(OSCAR_ERR_DIM, -3, "dimension not a power of two or group not dividing it")   \
    X(OSCAR_ERR_SHAPE, -4, "shape mismatch")                                        \
    X(OSCAR_ERR_NONFINITE, -5, "non-finite value (NaN or Inf)")                     \
    X(OSCAR_ERR_RANGE, -6, "value out of range")                                    \
    X(OSCAR_ERR_NOMEM, -7, "out of memory")                                         \
    X(OSCAR_ERR_POOL_FULL, -8, "page pool exhausted")                               \
    X(OSCAR_ERR_NO_SEQ, -9, "no such sequence")                                     \
    X(OSCAR_ERR_SEQ_LIMIT, -10, "too many sequences")                               \
    X(OSCAR_ERR_STATE, -11, "call out of order")                                    \
    X(OSCAR_ERR_IO, -12, "file I/O error")                                          \
    X(OSCAR_ERR_FORMAT, -13, "malformed file")                                      \
    X(OSCAR_ERR_NOT_FOUND, -14, "tensor or key not found")                          \
    X(OSCAR_ERR_DTYPE, -15, "unsupported or wrong dtype")                           \
    X(OSCAR_ERR_NOT_ORTHOGONAL, -16, "rotation is not orthogonal")                  \
    X(OSCAR_ERR_NO_CONVERGENCE, -17, "eigensolver did not converge")                \
    X(OSCAR_ERR_NO_DRIVER, -100, "CUDA driver library not found")                   \
    X(OSCAR_ERR_DRIVER_STUB, -101, "CUDA toolkit stub loaded instead of the driver") \
    X(OSCAR_ERR_NO_NVRTC, -102, "NVRTC library not found")                          \
    X(OSCAR_ERR_NO_DEVICE, -103, "no CUDA device")                                  \
    X(OSCAR_ERR_COMPILE, -104, "kernel compilation failed")                         \
    X(OSCAR_ERR_DEVICE_OOM, -105, "out of device memory")                           \
    X(OSCAR_ERR_CUDA, -106, "CUDA driver call failed")

#define OSCAR__ENUM_ITEM(name, value, text) name = value,
typedef enum oscar_result { OSCAR_RESULT_LIST(OSCAR__ENUM_ITEM) OSCAR_RESULT_END_ = -1000 } oscar_result;
#undef OSCAR__ENUM_ITEM

OSCAR_API const char *oscar_version(void);
OSCAR_API const char *oscar_result_string(int result);

/* ---- numbers: IEEE fp16 and bfloat16, round to nearest even ---- */
OSCAR_API uint16_t oscar_f32_to_f16(float f);
OSCAR_API float oscar_f16_to_f32(uint16_t h);
OSCAR_API uint16_t oscar_f32_to_bf16(float f);
OSCAR_API float oscar_bf16_to_f32(uint16_t h);

/* >>wht ---- Walsh-Hadamard transform, bit reversal ---- */
OSCAR_API int oscar_is_pow2(int n);
/* x: [d], in place: x <- x . H (normalised Sylvester Hadamard, d a power of two) */
OSCAR_API void oscar_wht(float *x, int d);
OSCAR_API void oscar_wht_f64(double *x, int d);
/* the log2(d)-bit reverse of i */
OSCAR_API int oscar_bitrev(int i, int d);
/* H: [d][d] <- normalised Hadamard matrix */
OSCAR_API int oscar_hadamard_matrix(float *H, int d);

/* >>jacobi ---- cyclic Jacobi eigensolver ----
   U: [d][d] eigenvectors in the columns, evals: [d], S: [d][d] symmetric (only read).
   Eigenvalues come out sorted descending (column i of U belongs to evals[i]).
   work: NULL (allocates) or [d][d] doubles. Meets ||S U - U L||_F <= 1e-10 ||S||_F and
   ||U^T U - I||_max <= 1e-12 for d <= 256 (SPEC section 3). */
OSCAR_API int oscar_jacobi_eig(double *U, double *evals, const double *S, int d, double *work);

/* >>calib ---- calibration statistics (SPEC section 2) ---- */
typedef struct oscar_calib {
    int d, n_q_heads, n_kv_heads;
    int phase;            /* 0: taking queries, 1: taking keys/values */
    int64_t n_q, n_kv;    /* tokens seen in each pass */
    double *sq;           /* [Hkv][d][d] sum of q^T q over the group's heads (upper triangle) */
    double *sv;           /* [Hkv][d][d] sum of w_t v^T v */
    double *sv_plain;     /* [Hkv][d][d] sum of v^T v (used when all weights vanish) */
    double *wsum;         /* [Hkv] sum of w_t */
    double *sqn;          /* [Hkv][d][d] full normalised Sq_j, built when pass 2 starts */
    double *buf;          /* scratch */
    char msg[OSCAR_MSG_SIZE];
} oscar_calib;

OSCAR_API int oscar_calib_init(oscar_calib *c, int d, int n_q_heads, int n_kv_heads);
/* q: [n][Hq][d] post-RoPE queries. All queries must be added before the first keys/values. */
OSCAR_API int oscar_calib_add_q(oscar_calib *c, const float *q, int64_t n);
/* k, v: [n][Hkv][d] post-RoPE keys and values (second pass). */
OSCAR_API int oscar_calib_add_kv(oscar_calib *c, const float *k, const float *v, int64_t n);
/* sk, sv: [d][d] (either may be NULL). kv_head < 0: the shared (per-layer) targets, else that
   head's (per-head mode). */
OSCAR_API int oscar_calib_targets(oscar_calib *c, int kv_head, double *sk, double *sv);
OSCAR_API void oscar_calib_free(oscar_calib *c);

/* >>fit ---- rotation fitting (SPEC section 3) ---- */
typedef enum oscar_composition {
    OSCAR_COMP_R_H_PBR = 0, /* R = U . H . P   (default) */
    OSCAR_COMP_HADAMARD = 1, /* R = H            (data free) */
    OSCAR_COMP_IDENTITY = 2, /* R = I */
    OSCAR_COMP_PLAIN = 3     /* R = U */
} oscar_composition;

OSCAR_API const char *oscar_composition_name(int comp);
OSCAR_API int oscar_composition_parse(const char *name); /* -1 if unknown */
/* R: [d][d] fp32, evals: [d] eigenvalues in the order of U's columns (may be NULL),
   S: [d][d] target (may be NULL for hadamard/identity). */
OSCAR_API int oscar_rotation_fit(float *R, float *evals, const double *S, int d, int comp);
/* max |R^T R - I| */
OSCAR_API double oscar_rotation_orth_error(const float *R, int d);
/* y: [n][d] <- x: [n][d] . R (transpose != 0: . R^T). y may not alias x. */
OSCAR_API void oscar_rotate_rows(float *y, const float *x, const float *R, int n, int d, int transpose);

/* >>rot ---- a model's rotations (SPEC section 7) ---- */
typedef struct oscar_rotations {
    int n_layers, head_dim, n_kv_heads, per_head; /* per_head: one rotation per KV head */
    int composition;
    float k_clip, v_clip;
    int group_size;
    char model[128];
    char calibration[256];
    float *k_rot, *v_rot;     /* [n_layers][nh][d][d], nh = per_head ? n_kv_heads : 1 */
    float *k_eval, *v_eval;   /* [n_layers][nh][d] */
    char msg[OSCAR_MSG_SIZE];
} oscar_rotations;

/* Allocates identity rotations with zero eigenvalues, clips 0.96/0.92, group min(128,d). */
OSCAR_API int oscar_rotations_alloc(oscar_rotations *r, int n_layers, int head_dim, int n_kv_heads, int per_head);
OSCAR_API void oscar_rotations_free(oscar_rotations *r);
/* Fill every layer/head with a data-free composition (hadamard or identity). */
OSCAR_API int oscar_rotations_set_fixed(oscar_rotations *r, int comp);
OSCAR_API float *oscar_rotations_k(const oscar_rotations *r, int layer, int kv_head);
OSCAR_API float *oscar_rotations_v(const oscar_rotations *r, int layer, int kv_head);
OSCAR_API int oscar_rotations_save(oscar_rotations *r, const char *path);
/* Strict: rejects wrong metadata, shapes, dtype, NaN, non-orthogonal (> 1e-4) rotations. */
OSCAR_API int oscar_rotations_load(oscar_rotations *r, const char *path);
OSCAR_API int oscar_rotations_load_memory(oscar_rotations *r, const void *bytes, size_t size, const char *name);

/* >>int2 ---- the INT2 codec (SPEC section 4) ---- */
/* threshold of the clip for one row: a[min(floor(c*d), d-1)] of sorted |x|; +inf if c <= 0.
   tmp: [d] scratch or NULL for stack use (d <= OSCAR_MAX_HEAD_DIM). */
OSCAR_API float oscar_int2_clip_threshold(const float *x, int d, float clip);
/* codes: [d/4] bytes, sm: [d/g][2] fp16 (scale, min), x: [d] rotated row.
   Errors: OSCAR_ERR_DIM, OSCAR_ERR_NONFINITE, OSCAR_ERR_RANGE (scale/min overflow fp16). */
OSCAR_API int oscar_int2_quantize_row(uint8_t *codes, uint16_t *sm, const float *x, int d, int g, float clip);
/* x: [d] <- mn16 + q * scale16 */
OSCAR_API void oscar_int2_dequantize_row(float *x, const uint8_t *codes, const uint16_t *sm, int d, int g);

/* >>kv ---- the paged mixed-precision cache (SPEC section 5) ---- */
typedef enum oscar_kv_mode { OSCAR_KV_BF16 = 0, OSCAR_KV_INT2 = 1 } oscar_kv_mode;

typedef struct oscar_kv_config {
    int n_layers, n_kv_heads, head_dim; /* required */
    int mode;          /* OSCAR_KV_BF16 (default) or OSCAR_KV_INT2 */
    int group_size;    /* 0: min(128, d) */
    int sink;          /* 0: 64, OSCAR_NONE: no sink */
    int window;        /* 0: 256, OSCAR_NONE: 0 */
    int page_size;     /* 0: 64 tokens; must divide the window */
    int max_pages;     /* 0: 1024; pool size in pages (each page: all layers, all heads) */
    int max_seqs;      /* 0: 16 */
    float k_clip;      /* 0: 0.96, < 0: no clip */
    float v_clip;      /* 0: 0.92, < 0: no clip */
    const oscar_rotations *rot; /* NULL: no rotation. Copied. Used in INT2 mode only. */
    int absorb_v;      /* 1: R_v is folded into the model; outputs stay in the rotated V basis */
} oscar_kv_config;

typedef struct oscar_kv_seq {
    int used;
    int *n_tok;      /* [n_layers] tokens appended per layer */
    int *n_hist;     /* [n_layers] tokens in history pages per layer */
    int *pages;      /* block table: page ids, shared by all layers */
    int n_pages, cap_pages;
    uint16_t *sink;  /* [n_layers][Hkv][2][S0][d] bf16 (K then V) */
    uint16_t *win;   /* [n_layers][Hkv][2][W+P][d] bf16 ring */
} oscar_kv_seq;

typedef struct oscar_kv {
    oscar_kv_config cfg;  /* with defaults filled in */
    int d, g, S0, W, P, L, Hkv, ring, int2;
    float k_clip, v_clip;
    size_t head_page_bytes, page_bytes;
    uint8_t *pool;        /* [L][max_pages][Hkv][head_page_bytes] */
    int *refcount;        /* [max_pages] */
    int *free_list;       /* stack of free page ids */
    int n_free;
    oscar_kv_seq *seqs;   /* [max_seqs] */
    float *k_rot, *v_rot; /* [L][nh][d][d] or NULL */
    int rot_heads;        /* nh: 1 shared or Hkv */
    float *scratch;
    char msg[OSCAR_MSG_SIZE];
} oscar_kv;

typedef struct oscar_kv_memory {
    int64_t n_tokens, n_sink, n_window, n_history; /* tokens (layer 0) */
    size_t sink_bytes, window_bytes;   /* BF16 bytes in use, all layers, K and V */
    size_t code_bytes, scale_bytes;    /* INT2 codes and fp16 scale/min bytes, all layers, K and V */
    size_t history_bf16_bytes;         /* history bytes in BF16 mode */
    size_t total_bytes;                /* sum of the above */
    size_t bf16_equiv_bytes;           /* what an all-BF16 cache would need */
    double bytes_per_token;            /* total / n_tokens (all layers) */
    double bits_per_element;           /* total * 8 / (n_tokens * L * Hkv * d * 2) */
    double history_bits_per_element;   /* bits per element inside the INT2 region */
} oscar_kv_memory;

OSCAR_API int oscar_kv_init(oscar_kv *kv, const oscar_kv_config *cfg);
OSCAR_API void oscar_kv_free(oscar_kv *kv);
OSCAR_API int oscar_kv_seq_create(oscar_kv *kv, int *seq);
/* dst gets a copy of src's sink and window; history pages are shared (reference counted).
   All layers of src must hold the same number of tokens. */
OSCAR_API int oscar_kv_seq_fork(oscar_kv *kv, int src, int *dst);
OSCAR_API int oscar_kv_seq_release(oscar_kv *kv, int seq);
/* tokens held by layer `layer` of the sequence (or a negative error) */
OSCAR_API int oscar_kv_seq_length(const oscar_kv *kv, int seq, int layer);
/* k, v: [n][Hkv][d] keys (post-RoPE) and values, unrotated. All-or-nothing: on error nothing is
   appended (NaN/Inf rows, a row norm over 32768 in INT2 mode, a full pool). */
OSCAR_API int oscar_kv_append(oscar_kv *kv, int seq, int layer, const float *k, const float *v, int n);
/* token counts of the three segments for (seq, layer) */
OSCAR_API int oscar_kv_segments(const oscar_kv *kv, int seq, int layer, int *n_sink, int *n_hist, int *n_recent);
/* k, v: [d] the stored row at position pos, in the rotated basis, dequantised (either may be NULL) */
OSCAR_API int oscar_kv_read_row(const oscar_kv *kv, int seq, int layer, int kv_head, int pos, float *k, float *v);
OSCAR_API int oscar_kv_memory_usage(const oscar_kv *kv, int seq, oscar_kv_memory *m);
OSCAR_API const int *oscar_kv_block_table(const oscar_kv *kv, int seq, int *n_pages);
OSCAR_API uint8_t *oscar_kv_page_ptr(const oscar_kv *kv, int layer, int page, int kv_head);
/* [2][S0][d] bf16 (K then V) and [2][W+P][d] bf16 ring of one (seq, layer, head) */
OSCAR_API uint16_t *oscar_kv_sink_ptr(const oscar_kv *kv, int seq, int layer, int kv_head);
OSCAR_API uint16_t *oscar_kv_window_ptr(const oscar_kv *kv, int seq, int layer, int kv_head);
/* the layer's K / V rotation for a KV head (NULL when none) */
OSCAR_API const float *oscar_kv_rotation(const oscar_kv *kv, int layer, int kv_head, int is_v);

/* >>attn ---- decode attention (SPEC section 6) ----
   out: [Hq][d], q: [Hq][d] (unrotated, post-RoPE). scale 0: 1/sqrt(d). Query head h reads KV
   head h / (Hq / Hkv). The three segments are merged by log-sum-exp; accumulation in double. */
OSCAR_API int oscar_kv_attend(oscar_kv *kv, int seq, int layer, float *out, const float *q, int n_q_heads, float scale);
/* plain softmax attention of one query over n rows (the oracle's building block):
   out: [d], q: [d], k, v: [n][stride]; returns the log-sum-exp of the scores in *lse if not NULL */
OSCAR_API void oscar_attend_rows(float *out, double *lse, const float *q, const float *k, const float *v, int n, int d, int stride, float scale);

/* >>safetensors ---- reader and writer ---- */
typedef enum oscar_dtype { OSCAR_F32 = 0, OSCAR_F16 = 1, OSCAR_BF16 = 2, OSCAR_U8 = 3, OSCAR_I32 = 4, OSCAR_DTYPE_COUNT } oscar_dtype;
OSCAR_API const char *oscar_dtype_name(int dtype);
OSCAR_API size_t oscar_dtype_size(int dtype);

#define OSCAR_ST_MAX_DIMS 8
typedef struct oscar_st_tensor {
    char *name;
    int dtype, ndim;
    int64_t shape[OSCAR_ST_MAX_DIMS];
    uint64_t begin, end;  /* byte range inside the data buffer */
} oscar_st_tensor;

typedef struct oscar_st {
    uint8_t *bytes;       /* the whole file */
    size_t size;
    const uint8_t *data;  /* data buffer (after the header) */
    size_t data_size;
    oscar_st_tensor *tensors;
    int n_tensors;
    char **meta;          /* [n_meta][2]: key, value */
    int n_meta;
    char name[160];       /* file name, for messages */
    char msg[OSCAR_MSG_SIZE];
} oscar_st;

OSCAR_API int oscar_st_open(oscar_st *st, const char *path);
/* parses a copy of bytes; name is used in messages */
OSCAR_API int oscar_st_parse(oscar_st *st, const void *bytes, size_t size, const char *name);
OSCAR_API void oscar_st_close(oscar_st *st);
OSCAR_API const oscar_st_tensor *oscar_st_find(const oscar_st *st, const char *name);
OSCAR_API const char *oscar_st_meta(const oscar_st *st, const char *key);
/* elements of t converted to fp32 (F32, F16, BF16); rejects NaN/Inf when check_finite */
OSCAR_API int oscar_st_read_f32(oscar_st *st, const oscar_st_tensor *t, float *out, int check_finite);
OSCAR_API int64_t oscar_st_numel(const oscar_st_tensor *t);

typedef struct oscar_st_entry {
    const char *name;
    int dtype, ndim;
    int64_t shape[OSCAR_ST_MAX_DIMS];
    const void *data;     /* little-endian, numel * dtype size bytes */
} oscar_st_entry;
/* meta: [n_meta][2] key/value strings. msg: NULL or OSCAR_MSG_SIZE bytes for the error. */
OSCAR_API int oscar_st_write(const char *path, const oscar_st_entry *entries, int n_entries, const char *const *meta, int n_meta, char *msg);

#ifdef __cplusplus
}
#endif
#endif /* OSCAR_H */
