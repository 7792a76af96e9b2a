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
     >>wht        oscar_wht, oscar_bitrev, oscar_hadamard_matrix, oscar_is_pow2, oscar_rope_row
     >>jacobi     oscar_jacobi_eig                 symmetric eigensolver, double precision
     >>calib      oscar_calib_init/_add_q/_add_kv/_targets/_means/_free   statistics of SPEC section 2
     >>fit        oscar_rotation_fit, oscar_rotation_orth_error, oscar_composition_name/_parse,
                  oscar_rotate_rows, oscar_rotation_q14 + oscar_rotate_row_q14 (the cache's rows),
                  oscar_rotation_eigvecs, oscar_balance_fit, oscar_balance_matrices (THE K BALANCE)
     >>rot        oscar_rotations_alloc/_alloc_means/_alloc_rope_mean/_alloc_balance/_free/_save/_load/_set_fixed/
                  _is_hadamard/_k/_v
     >>int2       oscar_int2_clip_threshold, oscar_int2_quantize_row(_ex), oscar_int2_dequantize_row,
                  oscar_int2_quantize_channels, oscar_int2_dequantize_channels (KIVI-2 keys)
     >>kv         oscar_kv_config_resolve, oscar_kv_init/_free, oscar_kv_seq_create/_fork/_release/_length,
                  oscar_kv_append, oscar_kv_segments, oscar_kv_read_row, oscar_kv_memory_usage,
                  oscar_kv_block_table, oscar_kv_page_ptr, oscar_kv_sink_ptr, oscar_kv_window_ptr,
                  oscar_kv_rotation, oscar_kv_query_rotation
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
     A history row is quantised from its BF16 window row (the rotated row rounded to BF16), so
     its codes depend only on what the window held; appends rotate x . R in fixed point
     (oscar_rotate_row_q14; by oscar_wht when every rotation is H) and round to BF16 (nearest even).
     In OSCAR_KV_BF16 mode the same rule applies but pages hold BF16 rows (exact baseline).
     OSCAR_KV_KIVI2 (baseline) keeps the layout but K's scale/min are per channel over the page:
         [K codes: P][d/4] [K scale,min: d][2] fp16 [V codes: P][d/4] [V scale,min: P][d/g][2]
     Pages belong to the whole sequence (one block table, all layers): page id p of layer l lives
     at oscar_kv_page_ptr(kv, l, p, head). Head-page layout, INT2 mode (bytes):
         [K codes: P][d/4] [K scale,min: P][d/g][2] fp16 [V codes: P][d/4] [V scale,min: P][d/gv][2]
     where gv = cfg.v_group_size (default g; an extension of the SPEC, CPU cache only: a smaller K
     group gives K more bits than V, 2 + 32/g against 2 + 32/gv per element).
     BF16 mode:  [K: P][d] bf16 [V: P][d] bf16.
     Window slot of position t >= S0 is (t - S0) % (W + P). P must divide W.

   CENTERED ROWS (cfg.center; an extension of the SPEC; center 1 on the CPU and GPU caches, center 2 CPU only)
     With rotations that carry calibration means (k_mean / v_mean: `oscar calibrate` and
     `oscar fit` store them as layers.{i}.k.mean / v.mean), every K and V row is stored as
     (x - mean) . R: sink, window and history alike. Attention is unchanged in exact arithmetic
     (q . mean is one constant added to every score of a query, which the softmax ignores, and
     the weights sum to 1, so the V mean is added back to the output), but an INT2 row no longer
     spends its 4 levels on a per-channel offset shared by all tokens: with head dim 64 (one
     group per row) this cut the KL divergence against BF16 by 46-67 % at 1K-8K tokens on
     SmolLM2-135M (RESULTS.md).
     A fixed post-RoPE mean only removes the part of the keys' offset that RoPE leaves still: a
     pre-RoPE offset mu on the pair (i, i + d/2) turns with the position at speed theta_i, averages
     to about zero over the calibration text where theta_i is fast, and drifts away from the
     calibration average at positions the calibration never reached. OSCAR_CENTER_ROPE (center = 2)
     stores each K row less RoPE(pos) mu, mu the calibration's pre-RoPE mean (k_rope_mean:
     oscar_rope_row undone at each row's position, then averaged), and adds the left-out term
     q . RoPE(pos) mu = sum_i A_i cos(pos theta_i) + B_i sin(pos theta_i) (A, B from the query, once
     per call) to every score, in double: the attention is again unchanged in exact arithmetic, and
     the INT2 rows see only the keys' spread around their moving mean (on SmolLM2-135M the keys'
     INT2 score error at positions 4096-8191 fell 3.4x against the fixed mean: RESULTS.md).

   THE GAIN ENCODER (cfg.k_gain / v_gain, OSCAR_INT2_GAIN; an extension of the SPEC; CPU and GPU caches)
     A clip, and 2-bit rounding toward the middle of a group, shorten a row along its own
     direction, so a query that aligns with a key sees it scaled down. The gain encoder keeps the
     SPEC's codes and multiplies the group's stored (scale, min) by sum x^2 / sum x . x^, so the
     dequantised row keeps its projection onto the original; the layout and the decoder are the
     SPEC's, so any reader (the GPU decode kernels included) reads such rows unchanged. A rotation
     file can ask for it (metadata k_gain / v_gain). On SmolLM2-135M, K clip 0.88 with the gain
     kept each query's top keys unbiased where the SPEC encoder at that clip lowered them by 0.39
     logits; with OSCAR_CENTER_ROPE it brought the 8K perplexity within 3.8 % of BF16 and found
     the same 8K needles as BF16 (RESULTS.md, "The gain encoder").

   THE K BALANCE (cfg.k_balance, rotations with k_balance; an extension of the SPEC; CPU and GPU caches)
     The fitted rotation spreads a key row's INT2 error evenly over the directions, but a query
     weighs the directions by its own covariance Sq = U diag(lambda) U^T, while the keys' spread
     kappa_i along U_i is another matter. With a balance s (one value per column of U, in (0, 1]),
     K rows are stored as k . A, A = U diag(s) U^T R, and queries turned by U diag(1/s) U^T R: each
     score is unchanged in exact arithmetic, the error along U_i is scaled by s_i, and
     s_i ~ (lambda_i / kappa_i)^(1/4) (oscar_balance_fit) minimises the expected score error of an
     encoder whose error grows with the row's energy. It composes with centering (kappa is measured
     on the rows as the cache stores them) and with the gain encoder. V rows are unchanged. A
     rotation file carries it as tensors layers.{i}.k.balance (`oscar calibrate --k-balance`).

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
/* RoPE of one row in the cache's basis (HF "half-split" pairs: channel i turns with channel i + d/2,
   by the angle pos * base^(-2i/d), computed in double): y = RoPE(pos) x, or its inverse when
   inverse != 0. y may alias x. d even, base > 1. */
OSCAR_API void oscar_rope_row(float *y, const float *x, int d, double base, int64_t pos, int inverse);
/* the log2(d)-bit reverse of i (-1 when d is not a power of two or i is outside [0, d)).
   The void functions below do nothing when given null pointers or a bad d. */
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
    double *ksum, *vsum;  /* [Hkv][d] sums of the k and v rows (their means: oscar_calib_means) */
    double *sqn;          /* [Hkv][d][d] full normalised Sq_j, built when pass 2 starts */
    double *buf;          /* scratch [d][d] */
    double *rows;         /* scratch [3][64][d]: a block of rows, weighted copies, k . Sq */
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
/* km, vm: [d] the mean k and v row of KV head kv_head over the keys/values added (either may be NULL). */
OSCAR_API int oscar_calib_means(const oscar_calib *c, int kv_head, double *km, double *vm);
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
/* U: [d][d] (eigenvectors in the columns, double) <- R of a fitted composition (r_h_pbr: R = U H P, P
   rebuilt from evals ranked descending, ties by index, as SPEC section 7 says a reader can; plain: U = R).
   OSCAR_ERR_INVALID_ARG for the data-free compositions, which have no U. */
OSCAR_API int oscar_rotation_eigvecs(double *U, const float *R, const float *evals, int d, int comp);
/* THE K BALANCE (an extension of the SPEC). After R's rotation the INT2 error of a K row is about
   isotropic, but a query weighs it by its own covariance Sq = U diag(lambda) U^T. Storing K rows as
   k . A, A = U diag(s) U^T R, and turning queries by B = U diag(1/s) U^T R keeps every score
   (q B) . (k A) = q . k in exact arithmetic while the error is scaled by s per direction: with
   kappa_i = U_i^T Ck U_i the stored keys' variance along U_i, s_i^2 ~ sqrt(lambda_i / kappa_i)
   minimises the expected score error (sum_i s_i^2 kappa_i)(sum_i lambda_i / s_i^2) of a quantiser
   whose error grows with the row's energy.
   s: [d] <- the balance of one rotation (R, evals as fitted by oscar_rotation_fit, r_h_pbr or plain),
   Ck: [d][d] the covariance (or second moment) of the K rows as the cache will store them, centered
   if the cache centers. s is scaled to max 1 and kept >= 1/256 (lambda and kappa are floored at 1e-9
   of their largest). */
OSCAR_API int oscar_balance_fit(float *s, const float *R, const float *evals, const double *Ck, int d, int comp);
/* A, B: [d][d] (either may be NULL) <- U diag(s) U^T R and U diag(1/s) U^T R (computed in double). */
OSCAR_API int oscar_balance_matrices(float *A, float *B, const float *R, const float *evals, const float *s, int d, int comp);
/* max |R^T R - I| */
OSCAR_API double oscar_rotation_orth_error(const float *R, int d);
/* y: [n][d] <- x: [n][d] . R (transpose != 0: . R^T). y may not alias x. */
OSCAR_API void oscar_rotate_rows(float *y, const float *x, const float *R, int n, int d, int transpose);
/* The cache's rotation of K and V rows (x . R as every cache row is stored; the GPU write path
   computes the same bits, on integer tensor cores). Fixed point, exact:
     e    = max(E - 126, -98), E the biased fp32 exponent of max_i |x_i|  (so max |x| < 2^e)
     X_i  = rint(x_i * 2^(14 - e))              |X_i| <= 2^14, error <= 2^(e-15) per input
     Rq   = rint(R * 2^14)                      (oscar_rotation_q14), error <= 2^-15 per entry
     P_j  = sum_i X_i Rq[i][j]                  exact (64-bit integers)
     y_j  = fp32(P_j) * 2^(e - 28)              two roundings to nearest even
   Against the exact x . R the error of an output is about 2^-15.5 ||x|| RMS (at most 2^-13 ||x||
   in the tests), below the BF16 rounding of the stored row (2^-9 |y_j|, |y_j| ~ ||x|| / sqrt(d)).
   Rq: [d][d]; returns OSCAR_ERR_RANGE (Rq untouched) if an entry of R is not finite or
   |R_ij| > 1.5 (an orthogonal matrix has |R_ij| <= 1). */
OSCAR_API int oscar_rotation_q14(int16_t *Rq, const float *R, int d);
/* y: [d] <- x: [d] . R as above; x must be finite (the cache checks rows before rotating) */
OSCAR_API void oscar_rotate_row_q14(float *y, const float *x, const int16_t *Rq, int d);

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
    float *k_mean, *v_mean;   /* [n_layers][n_kv_heads][d] or NULL: the calibration text's mean post-RoPE K
                                 and V rows (optional tensors layers.{i}.k.mean / v.mean, an extension of
                                 SPEC section 7), for caches that store centered rows (oscar_kv_config.center) */
    float *k_rope_mean;       /* [n_layers][n_kv_heads][d] or NULL: the mean K row *before* RoPE (each row's
                                 RoPE undone at its position, oscar_rope_row; tensor layers.{i}.k.rope_mean,
                                 an extension), for caches centered with OSCAR_CENTER_ROPE */
    double rope_base;         /* > 1 with k_rope_mean (metadata rope_base): theta_i = base^(-2i/d) */
    int k_gain, v_gain;       /* 1: the file's clips were chosen for the gain encoder (OSCAR_INT2_GAIN) on K / V
                                 rows (optional metadata k_gain / v_gain, "0" or "1", written when either is
                                 1; an extension), which caches built from the file should use */
    float *k_balance;         /* [n_layers][nh][d] or NULL: the K balance s (tensor layers.{i}.k.balance, [d] or
                                 [Hkv, d] per head, an extension; 0 < s <= 1, one value per column of U in the
                                 order of k_eval): caches with oscar_kv_config.k_balance store K rows through
                                 U diag(s) U^T R and turn queries by U diag(1/s) U^T R (see THE K BALANCE) */
    char msg[OSCAR_MSG_SIZE];
} oscar_rotations;

/* Allocates identity rotations with zero eigenvalues, clips 0.96/0.92, group min(128,d). */
OSCAR_API int oscar_rotations_alloc(oscar_rotations *r, int n_layers, int head_dim, int n_kv_heads, int per_head);
OSCAR_API void oscar_rotations_free(oscar_rotations *r);
/* Allocates r->k_mean / v_mean (zeros) if they are not there yet. */
OSCAR_API int oscar_rotations_alloc_means(oscar_rotations *r);
/* Allocates r->k_rope_mean (zeros) if it is not there yet and sets r->rope_base (> 1, finite). */
OSCAR_API int oscar_rotations_alloc_rope_mean(oscar_rotations *r, double rope_base);
/* Allocates r->k_balance (all ones: no balance) if it is not there yet. */
OSCAR_API int oscar_rotations_alloc_balance(oscar_rotations *r);
/* A, B: [n_layers][nh][d][d] <- oscar_balance_matrices of every K rotation of r (rows' and queries'
   matrices), each checked finite; on error *bad (if not NULL) is the failing matrix's index. */
OSCAR_API int oscar_rotations_balance_matrices(const oscar_rotations *r, float *A, float *B, size_t *bad);
/* Fill every layer/head with a data-free composition (hadamard or identity). */
OSCAR_API int oscar_rotations_set_fixed(oscar_rotations *r, int comp);
/* 1 if every K and V matrix of r is, bit for bit, the normalised Sylvester Hadamard matrix of
   oscar_hadamard_matrix (the "hadamard" composition): a cache with such rotations rotates its rows
   by oscar_wht (d log2 d adds and one scale, SPEC section 3) instead of the dense product. */
OSCAR_API int oscar_rotations_is_hadamard(const oscar_rotations *r);
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
/* The same with flags. OSCAR_INT2_GAIN (an extension of the SPEC's encoder; the decoder and layout are
   the SPEC's): after the codes are chosen from the clipped group, its stored (scale, min) are both
   multiplied by gamma = sum x^2 / sum x . x^ over the group's unclipped values x and their dequantised
   x^ (gamma kept in [1/2, 2]; 1 where sum x . x^ <= 0 or the product would overflow fp16), so that
   the row's projection onto itself is kept: x . x^ = |x|^2 up to fp16 rounding. A clip (and any
   2-bit rounding toward the middle) shrinks a row along its own direction, and with it the scores of
   the keys a query aligns with most (RESULTS.md: -0.20 logits on each query's top 8 keys at clip 0.92
   on SmolLM2-135M); the gain takes that shrink out while the clip still spends the 4 levels on the
   bulk of the row. */
enum { OSCAR_INT2_GAIN = 1 };
OSCAR_API int oscar_int2_quantize_row_ex(uint8_t *codes, uint16_t *sm, const float *x, int d, int g, float clip, unsigned flags);
/* x: [d] <- mn16 + q * scale16 */
OSCAR_API void oscar_int2_dequantize_row(float *x, const uint8_t *codes, const uint16_t *sm, int d, int g);
/* KIVI-2 keys: one fp16 (scale, min) per channel over n rows. codes: [n][d/4], sm: [d][2], x: [n][d] */
OSCAR_API int oscar_int2_quantize_channels(uint8_t *codes, uint16_t *sm, const float *x, int n, int d);
/* x: [d] <- one row (codes: [d/4]) of a per-channel block with sm: [d][2] */
OSCAR_API void oscar_int2_dequantize_channels(float *x, const uint8_t *codes, const uint16_t *sm, int d);

/* >>kv ---- the paged mixed-precision cache (SPEC section 5) ---- */
typedef enum oscar_kv_mode {
    OSCAR_KV_BF16 = 0,  /* everything BF16: the exact baseline */
    OSCAR_KV_INT2 = 1,  /* OSCAR: rotated, clipped, per-token INT2 with fp16 scale/min per group */
    OSCAR_KV_KIVI2 = 2  /* KIVI-2 baseline: K per channel over each page's tokens, V per token; no
                           rotation, no clip. K costs 2 + 32/P bits, V 2 + 32/g */
} oscar_kv_mode;

typedef struct oscar_kv_config {
    int n_layers, n_kv_heads, head_dim; /* required */
    int mode;          /* OSCAR_KV_BF16 (default), OSCAR_KV_INT2 or OSCAR_KV_KIVI2 */
    int group_size;    /* 0: min(128, d); the K rows' group (and V's unless v_group_size is set) */
    int v_group_size;  /* 0: group_size. The V rows' group in INT2 mode, so that K can take more bits than V
                          (for example K at 32, V at 64: 3 and 2.5 bits); an extension of the SPEC's cache,
                          CPU only (the GPU cache wants v_group_size == group_size) */
    int sink;          /* 0: 64, OSCAR_NONE: no sink */
    int window;        /* 0: 256, OSCAR_NONE: 0 */
    int page_size;     /* 0: 64 tokens; must divide the window */
    int max_pages;     /* 0: 1024; pool size in pages (each page: all layers, all heads) */
    int max_seqs;      /* 0: 16 */
    float k_clip;      /* 0: 0.96, < 0: no clip */
    float v_clip;      /* 0: 0.92, < 0: no clip */
    int k_gain, v_gain; /* 1: the history's K (V) rows are encoded with OSCAR_INT2_GAIN (an extension of the
                          SPEC's encoder, same layout and decoder; INT2 mode; the GPU cache too) */
    const oscar_rotations *rot; /* NULL: no rotation. Copied. Used in INT2 mode only. */
    int absorb_v;      /* 1: R_v is folded into the model; outputs stay in the rotated V basis */
    int center;        /* 1 (INT2 with rot carrying k_mean / v_mean): every K and V row is stored less its
                          calibration mean (sink, window and history alike), so that the INT2 groups see
                          the row's spread instead of a per-channel offset; attention is unchanged in
                          exact arithmetic (a shift shared by all keys cancels in the softmax, and the V
                          mean is added back to the output). An extension of the SPEC's cache (the GPU
                          cache has it too). OSCAR_CENTER_ROPE (2; rotations with k_rope_mean and
                          v_mean; CPU cache only): K rows are stored
                          less RoPE(pos) applied to the file's pre-RoPE K mean, so the position-dependent
                          part of the keys' offset goes too (see CENTERED ROWS); needs the cache's token
                          index to be the RoPE position (sequences start at position 0). */
    int k_balance;     /* 1 (INT2 with fitted rotations carrying k_balance): K rows are stored through
                          A = U diag(s) U^T R_k and queries turned by U diag(1/s) U^T R_k (oscar_balance_fit);
                          scores are unchanged in exact arithmetic. An extension of the SPEC's cache (the GPU
                          cache has it too: its write path rotates by A, its query kernel by B). */
} oscar_kv_config;

enum { OSCAR_CENTER_NONE = 0, OSCAR_CENTER_MEAN = 1, OSCAR_CENTER_ROPE = 2 }; /* oscar_kv_config.center */

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
    int d, g, gv, S0, W, P, L, Hkv, ring, int2, kivi; /* g / gv: K / V group; int2: history is quantised (INT2 or KIVI2) */
    float k_clip, v_clip;
    unsigned k_flags, v_flags; /* oscar_int2_quantize_row_ex flags of K and V rows */
    size_t head_page_bytes, page_bytes, k_part; /* k_part: bytes of K inside a head page */
    float *flush_buf;     /* KIVI2: [P][d] one page of K rows */
    uint8_t *pool;        /* [L][max_pages][Hkv][head_page_bytes] */
    int *refcount;        /* [max_pages] */
    int *free_list;       /* stack of free page ids */
    int n_free;
    oscar_kv_seq *seqs;   /* [max_seqs] */
    float *k_rot, *v_rot; /* [L][nh][d][d] or NULL (with k_balance, k_rot is A = U diag(s) U^T R_k) */
    float *k_qrot;        /* [L][nh][d][d] (k_balance: U diag(1/s) U^T R_k) or NULL: queries are turned by k_rot */
    int16_t *k_rotq, *v_rotq; /* the same, fixed point (oscar_rotation_q14): rows are rotated with these */
    int rot_heads;        /* nh: 1 shared or Hkv */
    int wht;              /* every rotation is H: rows are rotated by oscar_wht */
    float *k_mean, *v_mean; /* [L][Hkv][d] (cfg.center) or NULL: subtracted from rows before they are stored */
    float *v_mean_out;    /* [L][Hkv][d]: added to attention outputs (v_mean, or v_mean . R_v with absorb_v) */
    float *k_rope_mean;   /* [L][Hkv][d] (OSCAR_CENTER_ROPE) or NULL: K rows are stored less RoPE(pos) of it */
    double *rope_step;    /* [d/2][3] with k_rope_mean: theta_i = base^(-2i/d), cos theta_i, sin theta_i */
    double *scratch;      /* attention scratch, grown for the largest GQA group seen */
    int scratch_g;
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

/* out <- in with every default filled in (all-zero fields, OSCAR_NONE), validated; rot is kept
   only for OSCAR_KV_INT2. What oscar_kv_init (and the GPU cache) run first. msg: NULL or
   OSCAR_MSG_SIZE bytes. */
OSCAR_API int oscar_kv_config_resolve(oscar_kv_config *out, const oscar_kv_config *in, char *msg);
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
/* k, v: [d] the stored row at position pos, in the rotated basis, dequantised (either may be NULL);
   with cfg.k_balance K rows are in the basis of A = U diag(s) U^T R_k, which a query meets after
   oscar_kv_query_rotation */
OSCAR_API int oscar_kv_read_row(const oscar_kv *kv, int seq, int layer, int kv_head, int pos, float *k, float *v);
OSCAR_API int oscar_kv_memory_usage(const oscar_kv *kv, int seq, oscar_kv_memory *m);
OSCAR_API const int *oscar_kv_block_table(const oscar_kv *kv, int seq, int *n_pages);
OSCAR_API uint8_t *oscar_kv_page_ptr(const oscar_kv *kv, int layer, int page, int kv_head);
/* [2][S0][d] bf16 (K then V) and [2][W+P][d] bf16 ring of one (seq, layer, head) */
OSCAR_API uint16_t *oscar_kv_sink_ptr(const oscar_kv *kv, int seq, int layer, int kv_head);
OSCAR_API uint16_t *oscar_kv_window_ptr(const oscar_kv *kv, int seq, int layer, int kv_head);
/* the layer's K / V rotation for a KV head (NULL when none): the matrix rows are stored through */
OSCAR_API const float *oscar_kv_rotation(const oscar_kv *kv, int layer, int kv_head, int is_v);
/* the matrix queries are turned by before they meet the stored keys: the K rotation, or with
   cfg.k_balance U diag(1/s) U^T R_k (NULL when the cache has no rotation) */
OSCAR_API const float *oscar_kv_query_rotation(const oscar_kv *kv, int layer, int kv_head);

/* >>attn ---- decode attention (SPEC section 6) ----
   out: [Hq][d], q: [Hq][d] (unrotated, post-RoPE). scale 0: 1/sqrt(d). Query head h reads KV
   head h / (Hq / Hkv). The three segments are merged by log-sum-exp; accumulation in double. */
OSCAR_API int oscar_kv_attend(oscar_kv *kv, int seq, int layer, float *out, const float *q, int n_q_heads, float scale);
/* plain softmax attention of one query over n rows (the oracle's building block):
   out: [d], q: [d], k, v: [n][stride]; returns the log-sum-exp of the scores in *lse if not NULL */
OSCAR_API void oscar_attend_rows(float *out, double *lse, const float *q, const float *k, const float *v, int n, int d, int stride, float scale);

/* >>safetensors ---- reader and writer ---- */
typedef enum oscar_dtype {
    OSCAR_F32 = 0, OSCAR_F16, OSCAR_BF16, OSCAR_F64, OSCAR_I64, OSCAR_I32, OSCAR_I16, OSCAR_I8, OSCAR_U8, OSCAR_BOOL,
    OSCAR_DTYPE_COUNT
} oscar_dtype;
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

/* ============================================================================================ */
/*                                       IMPLEMENTATION                                         */
/* ============================================================================================ */
#ifdef OSCAR_IMPLEMENTATION
#ifndef OSCAR_IMPLEMENTATION_DONE
#define OSCAR_IMPLEMENTATION_DONE

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OSCAR_MALLOC) && defined(OSCAR_FREE) && defined(OSCAR_REALLOC)
#elif !defined(OSCAR_MALLOC) && !defined(OSCAR_FREE) && !defined(OSCAR_REALLOC)
#define OSCAR_MALLOC(sz) malloc(sz)
#define OSCAR_REALLOC(p, sz) realloc(p, sz)
#define OSCAR_FREE(p) free(p)
#else
#error "define all of OSCAR_MALLOC, OSCAR_REALLOC and OSCAR_FREE, or none"
#endif

#ifndef OSCAR_ASSERT
#include <assert.h>
#define OSCAR_ASSERT(x) assert(x)
#endif

#ifdef OSCAR_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define OSCAR_DEF static __attribute__((unused)) /* a private copy need not use every function */
#else
#define OSCAR_DEF static
#endif
#else
#define OSCAR_DEF
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* >>general ---------------------------------------------------------------------------------- */
OSCAR_DEF const char *oscar_version(void) { return OSCAR_VERSION_STRING; }

OSCAR_DEF const char *oscar_result_string(int result) {
    switch (result) {
#define OSCAR__STR_ITEM(name, value, text) case value: return text;
        OSCAR_RESULT_LIST(OSCAR__STR_ITEM)
#undef OSCAR__STR_ITEM
    default: return "unknown result code";
    }
}

/* writes "fmt..." into msg (if msg) and returns code */
static int oscar__fail(char *msg, int code, const char *fmt, ...) {
    if (msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, OSCAR_MSG_SIZE, fmt, ap);
        va_end(ap);
    }
    return code;
}

static void *oscar__calloc(size_t n, size_t size) {
    void *p;
    if (size && n > (size_t)-1 / size) return NULL;
    p = OSCAR_MALLOC((n * size) > 0 ? n * size : 1);
    if (p) memset(p, 0, n * size);
    return p;
}

OSCAR_DEF int oscar_is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

static int oscar__log2(int n) {
    int l = 0;
    while ((1 << l) < n) l++;
    return l;
}

static int oscar__finite_f32(const float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return 0;
    }
    return 1;
}

/* >>numbers ---------------------------------------------------------------------------------- */
OSCAR_DEF uint16_t oscar_f32_to_f16(float f) {
    uint32_t x, sign, ax;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to infinity */
    if (ax < 0x38800000u) {                                     /* fp16 subnormal or zero */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, shift, r, half, rem;
        if (ax < 0x33000000u) return (uint16_t)sign; /* below 2^-25: rounds to zero */
        shift = 126u - e;                            /* 14 .. 24 */
        r = m >> shift;
        rem = m & ((1u << shift) - 1u);
        half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u))) r++;
        return (uint16_t)(sign | r);
    }
    ax -= (127u - 15u) << 23;
    ax = (ax + 0x0fffu + ((ax >> 13) & 1u)) >> 13;
    return (uint16_t)(sign | ax);
}

OSCAR_DEF float oscar_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    float f;
    if (e == 0) {
        f = (float)m * (1.0f / 16777216.0f); /* m * 2^-24 */
        memcpy(&x, &f, 4);
        x |= sign;
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e + 112u) << 23) | (m << 13);
    }
    memcpy(&f, &x, 4);
    return f;
}

OSCAR_DEF uint16_t oscar_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

OSCAR_DEF float oscar_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* >>wht -------------------------------------------------------------------------------------- */
#define OSCAR__WHT_BODY(T, x, d)                                  \
    do {                                                          \
        int len_, i_, j_;                                         \
        T s_;                                                     \
        for (len_ = 1; len_ < (d); len_ <<= 1)                    \
            for (i_ = 0; i_ < (d); i_ += len_ << 1)               \
                for (j_ = i_; j_ < i_ + len_; j_++) {             \
                    T a_ = (x)[j_], b_ = (x)[j_ + len_];          \
                    (x)[j_] = a_ + b_;                            \
                    (x)[j_ + len_] = a_ - b_;                     \
                }                                                 \
        s_ = (T)(1.0 / sqrt((double)(d)));                        \
        for (i_ = 0; i_ < (d); i_++) (x)[i_] *= s_;               \
    } while (0)

OSCAR_DEF void oscar_wht(float *x, int d) {
    if (!x || !oscar_is_pow2(d)) return; /* nothing to do for bad input */
    OSCAR__WHT_BODY(float, x, d);
}
OSCAR_DEF void oscar_wht_f64(double *x, int d) {
    if (!x || !oscar_is_pow2(d)) return;
    OSCAR__WHT_BODY(double, x, d);
}

/* the body of oscar_rope_row with theta_i = f[i * fstride] given (the cache keeps them) */
static void oscar__rope_row_f(float *y, const float *x, int d, const double *f, int fstride, int64_t pos, int inverse) {
    int i, h = d / 2;
    for (i = 0; i < h; i++) {
        const double th = (double)pos * f[(size_t)i * fstride], c = cos(th), sn = inverse ? -sin(th) : sin(th);
        const double a = x[i], b = x[i + h];
        y[i] = (float)(a * c - b * sn);
        y[i + h] = (float)(a * sn + b * c);
    }
}

OSCAR_DEF void oscar_rope_row(float *y, const float *x, int d, double base, int64_t pos, int inverse) {
    double f[OSCAR_MAX_HEAD_DIM / 2];
    int i;
    if (!y || !x || d < 2 || d % 2 || d > OSCAR_MAX_HEAD_DIM || !(base > 1.0)) return; /* nothing to do for bad input */
    for (i = 0; i < d / 2; i++) f[i] = pow(base, -2.0 * i / d);
    oscar__rope_row_f(y, x, d, f, 1, pos, inverse);
}

OSCAR_DEF int oscar_bitrev(int i, int d) {
    int bits, r = 0, b;
    if (!oscar_is_pow2(d) || i < 0 || i >= d) return -1;
    bits = oscar__log2(d);
    for (b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    return r;
}

OSCAR_DEF int oscar_hadamard_matrix(float *H, int d) {
    int i, j;
    double s;
    if (!H) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d)) return OSCAR_ERR_DIM;
    s = 1.0 / sqrt((double)d);
    for (i = 0; i < d; i++)
        for (j = 0; j < d; j++) {
            /* H[i][j] = (-1)^popcount(i & j) / sqrt(d) */
            int v = i & j, p = 0;
            while (v) { p ^= 1; v &= v - 1; }
            H[(size_t)i * d + j] = (float)(p ? -s : s);
        }
    return OSCAR_OK;
}

/* >>jacobi ----------------------------------------------------------------------------------- */
/* Cyclic Jacobi: sweeps over all (p, q) pairs, each rotation zeroing A[p][q] (Rutishauser's
   stable formulas), until the off-diagonal norm is below 1e-15 of ||S||_F. */
OSCAR_DEF int oscar_jacobi_eig(double *U, double *evals, const double *S, int d, double *work) {
    double *A, norm = 0.0;
    int i, j, k, p, q, sweep, converged = 0;
    if (!U || !evals || !S) return OSCAR_ERR_NULL;
    if (d < 1 || d > OSCAR_MAX_HEAD_DIM) return OSCAR_ERR_DIM;
    for (i = 0; i < d * d; i++)
        if (!(S[i] - S[i] == 0.0)) return OSCAR_ERR_NONFINITE;
    A = work ? work : (double *)OSCAR_MALLOC(sizeof(double) * (size_t)d * d);
    if (!A) return OSCAR_ERR_NOMEM;
    for (i = 0; i < d; i++)
        for (j = 0; j < d; j++) {
            A[i * d + j] = 0.5 * (S[i * d + j] + S[j * d + i]);
            U[i * d + j] = i == j ? 1.0 : 0.0;
            norm += A[i * d + j] * A[i * d + j];
        }
    norm = sqrt(norm);
    for (sweep = 0; sweep < 100; sweep++) {
        double off = 0.0;
        for (p = 0; p < d; p++)
            for (q = p + 1; q < d; q++) off += A[p * d + q] * A[p * d + q];
        if (off == 0.0 || sqrt(2.0 * off) <= 1e-15 * norm) { converged = 1; break; }
        for (p = 0; p < d - 1; p++)
            for (q = p + 1; q < d; q++) {
                double apq = A[p * d + q], app, aqq, theta, t, c, s;
                if (apq == 0.0) continue;
                app = A[p * d + p];
                aqq = A[q * d + q];
                /* negligible against both diagonal entries: set to zero (classic NR rule) */
                if (sweep > 3 && fabs(apq) * 1e18 < fabs(app) && fabs(apq) * 1e18 < fabs(aqq)) {
                    A[p * d + q] = A[q * d + p] = 0.0;
                    continue;
                }
                theta = (aqq - app) / (2.0 * apq);
                if (fabs(theta) > 1e150) t = 0.5 / theta;
                else t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                s = t * c;
                for (k = 0; k < d; k++) { /* columns p, q of A */
                    double akp = A[k * d + p], akq = A[k * d + q];
                    A[k * d + p] = c * akp - s * akq;
                    A[k * d + q] = s * akp + c * akq;
                }
                for (k = 0; k < d; k++) { /* rows p, q of A */
                    double apk = A[p * d + k], aqk = A[q * d + k];
                    A[p * d + k] = c * apk - s * aqk;
                    A[q * d + k] = s * apk + c * aqk;
                }
                A[p * d + q] = A[q * d + p] = 0.0;
                for (k = 0; k < d; k++) {
                    double ukp = U[k * d + p], ukq = U[k * d + q];
                    U[k * d + p] = c * ukp - s * ukq;
                    U[k * d + q] = s * ukp + c * ukq;
                }
            }
    }
    for (i = 0; i < d; i++) evals[i] = A[i * d + i];
    /* sort descending, moving U's columns along */
    for (i = 0; i < d - 1; i++) {
        int m = i;
        for (j = i + 1; j < d; j++)
            if (evals[j] > evals[m]) m = j;
        if (m != i) {
            double t = evals[i];
            evals[i] = evals[m];
            evals[m] = t;
            for (k = 0; k < d; k++) {
                t = U[k * d + i];
                U[k * d + i] = U[k * d + m];
                U[k * d + m] = t;
            }
        }
    }
    if (!work) OSCAR_FREE(A);
    return converged ? OSCAR_OK : OSCAR_ERR_NO_CONVERGENCE;
}

/* >>calib ------------------------------------------------------------------------------------ */
#define OSCAR__BLOCK 64 /* rows per syrk block */

/* S (upper triangle, [d][d]) += sum_r A[r]^T B[r] over n <= OSCAR__BLOCK rows, A, B: [n][d] doubles
   (B = A: plain covariance; B = w.A: weighted). Tiles of 4 x 8 outputs stay in registers while the
   rows stream past. Products of fp32 inputs are exact in double; sums are in double. */
static void oscar__syrk(double *S, const double *A, const double *B, int n, int d) {
    int i0, j0, r, a, b;
    if (d < 8) {
        for (r = 0; r < n; r++)
            for (a = 0; a < d; a++)
                for (b = a; b < d; b++) S[a * d + b] += A[r * d + a] * B[r * d + b];
        return;
    }
    for (i0 = 0; i0 < d; i0 += 4)
        for (j0 = i0 & ~7; j0 < d; j0 += 8) {
            double acc[4][8];
            memset(acc, 0, sizeof acc);
            for (r = 0; r < n; r++) {
                const double *ar = A + (size_t)r * d + i0, *br = B + (size_t)r * d + j0;
                for (a = 0; a < 4; a++)
                    for (b = 0; b < 8; b++) acc[a][b] += ar[a] * br[b];
            }
            for (a = 0; a < 4; a++)
                for (b = 0; b < 8; b++) S[(size_t)(i0 + a) * d + j0 + b] += acc[a][b];
        }
}

/* full symmetric [d][d] <- upper triangle of U scaled by s */
static void oscar__sym_from_upper(double *F, const double *Up, int d, double s) {
    int i, j;
    for (i = 0; i < d; i++)
        for (j = i; j < d; j++) F[(size_t)i * d + j] = F[(size_t)j * d + i] = Up[(size_t)i * d + j] * s;
}

OSCAR_DEF int oscar_calib_init(oscar_calib *c, int d, int n_q_heads, int n_kv_heads) {
    size_t dd;
    if (!c) return OSCAR_ERR_NULL;
    memset(c, 0, sizeof(*c));
    if (!oscar_is_pow2(d) || d > OSCAR_MAX_HEAD_DIM)
        return oscar__fail(c->msg, OSCAR_ERR_DIM, "head dim %d is not a power of two <= %d", d, OSCAR_MAX_HEAD_DIM);
    if (n_kv_heads < 1 || n_q_heads < 1 || n_q_heads % n_kv_heads)
        return oscar__fail(c->msg, OSCAR_ERR_SHAPE, "GQA mismatch: %d query heads, %d KV heads", n_q_heads, n_kv_heads);
    c->d = d;
    c->n_q_heads = n_q_heads;
    c->n_kv_heads = n_kv_heads;
    dd = (size_t)d * d;
    c->sq = (double *)oscar__calloc(dd * n_kv_heads, sizeof(double));
    c->sv = (double *)oscar__calloc(dd * n_kv_heads, sizeof(double));
    c->sv_plain = (double *)oscar__calloc(dd * n_kv_heads, sizeof(double));
    c->sqn = (double *)oscar__calloc(dd * n_kv_heads, sizeof(double));
    c->wsum = (double *)oscar__calloc((size_t)n_kv_heads, sizeof(double));
    c->ksum = (double *)oscar__calloc((size_t)n_kv_heads * d, sizeof(double));
    c->vsum = (double *)oscar__calloc((size_t)n_kv_heads * d, sizeof(double));
    c->buf = (double *)oscar__calloc(dd, sizeof(double));
    c->rows = (double *)oscar__calloc((size_t)3 * OSCAR__BLOCK * d, sizeof(double));
    if (!c->sq || !c->sv || !c->sv_plain || !c->sqn || !c->wsum || !c->ksum || !c->vsum || !c->buf || !c->rows) {
        oscar_calib_free(c);
        return oscar__fail(c->msg, OSCAR_ERR_NOMEM, "out of memory for %d x %d statistics", d, d);
    }
    return OSCAR_OK;
}

OSCAR_DEF void oscar_calib_free(oscar_calib *c) {
    if (!c) return;
    OSCAR_FREE(c->sq);
    OSCAR_FREE(c->sv);
    OSCAR_FREE(c->sv_plain);
    OSCAR_FREE(c->sqn);
    OSCAR_FREE(c->wsum);
    OSCAR_FREE(c->ksum);
    OSCAR_FREE(c->vsum);
    OSCAR_FREE(c->buf);
    OSCAR_FREE(c->rows);
    c->sq = c->sv = c->sv_plain = c->sqn = c->wsum = c->ksum = c->vsum = c->buf = c->rows = NULL;
}

OSCAR_DEF int oscar_calib_add_q(oscar_calib *c, const float *q, int64_t n) {
    int d, G, j;
    int64_t t, nrow;
    if (!c || !q) return c ? oscar__fail(c->msg, OSCAR_ERR_NULL, "calib_add_q: null queries") : OSCAR_ERR_NULL;
    if (!c->sq) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_add_q: accumulator not initialised");
    if (c->phase != 0) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_add_q: queries must all come before keys/values");
    if (n < 0) return oscar__fail(c->msg, OSCAR_ERR_INVALID_ARG, "calib_add_q: negative token count");
    d = c->d;
    G = c->n_q_heads / c->n_kv_heads;
    if (!oscar__finite_f32(q, (size_t)n * c->n_q_heads * d))
        return oscar__fail(c->msg, OSCAR_ERR_NONFINITE, "calib_add_q: NaN or Inf in queries");
    for (j = 0; j < c->n_kv_heads; j++) {
        int nr = 0, i;
        nrow = n * G;
        for (t = 0; t < nrow; t++) {
            int64_t tok = t / G, h = j * G + t % G;
            const float *src = q + ((size_t)tok * c->n_q_heads + (size_t)h) * d;
            for (i = 0; i < d; i++) c->rows[nr * d + i] = src[i];
            if (++nr == OSCAR__BLOCK) { oscar__syrk(c->sq + (size_t)j * d * d, c->rows, c->rows, nr, d); nr = 0; }
        }
        if (nr) oscar__syrk(c->sq + (size_t)j * d * d, c->rows, c->rows, nr, d);
    }
    c->n_q += n;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_calib_add_kv(oscar_calib *c, const float *k, const float *v, int64_t n) {
    int d, j, a, b;
    size_t dd;
    if (!c || !k || !v) return c ? oscar__fail(c->msg, OSCAR_ERR_NULL, "calib_add_kv: null keys or values") : OSCAR_ERR_NULL;
    if (!c->sq) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_add_kv: accumulator not initialised");
    if (c->n_q == 0) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_add_kv: add queries first (pass 1)");
    if (n < 0) return oscar__fail(c->msg, OSCAR_ERR_INVALID_ARG, "calib_add_kv: negative token count");
    d = c->d;
    dd = (size_t)d * d;
    if (!oscar__finite_f32(k, (size_t)n * c->n_kv_heads * d) || !oscar__finite_f32(v, (size_t)n * c->n_kv_heads * d))
        return oscar__fail(c->msg, OSCAR_ERR_NONFINITE, "calib_add_kv: NaN or Inf in keys or values");
    if (c->phase == 0) { /* pass 2 starts: freeze the normalised query covariances */
        double s = 1.0 / ((double)c->n_q * (c->n_q_heads / c->n_kv_heads));
        for (j = 0; j < c->n_kv_heads; j++) oscar__sym_from_upper(c->sqn + j * dd, c->sq + j * dd, d, s);
        c->phase = 1;
    }
    for (j = 0; j < c->n_kv_heads; j++) {
        const double *Sq = c->sqn + j * dd;
        double *X = c->rows, *WX = X + (size_t)OSCAR__BLOCK * d, *KY = WX + (size_t)OSCAR__BLOCK * d;
        int64_t t0;
        for (t0 = 0; t0 < n; t0 += OSCAR__BLOCK) {
            int nr = n - t0 < OSCAR__BLOCK ? (int)(n - t0) : OSCAR__BLOCK, r, i;
            for (r = 0; r < nr; r++) {
                const float *kr = k + ((size_t)(t0 + r) * c->n_kv_heads + j) * d, *vr = v + ((size_t)(t0 + r) * c->n_kv_heads + j) * d;
                double *y = KY + (size_t)r * d, wt = 0.0;
                for (i = 0; i < d; i++) {
                    X[r * d + i] = vr[i];
                    y[i] = 0.0;
                    c->ksum[(size_t)j * d + i] += kr[i];
                    c->vsum[(size_t)j * d + i] += vr[i];
                }
                for (a = 0; a < d; a++) { /* y = k . Sq, row by row of Sq (vectorises over b) */
                    const double *Sa = Sq + (size_t)a * d;
                    double ka = kr[a];
                    for (b = 0; b < d; b++) y[b] += ka * Sa[b];
                }
                for (i = 0; i < d; i++) wt += y[i] * kr[i]; /* w_t = k Sq k^T */
                if (wt < 0.0) wt = 0.0; /* Sq is positive semidefinite; only rounding can go below */
                c->wsum[j] += wt;
                for (i = 0; i < d; i++) WX[r * d + i] = wt * X[r * d + i];
            }
            oscar__syrk(c->sv + j * dd, X, WX, nr, d);
            oscar__syrk(c->sv_plain + j * dd, X, X, nr, d);
        }
    }
    c->n_kv += n;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_calib_means(const oscar_calib *c, int kv_head, double *km, double *vm) {
    int i;
    if (!c || !c->ksum) return OSCAR_ERR_NULL;
    if (kv_head < 0 || kv_head >= c->n_kv_heads) return OSCAR_ERR_INVALID_ARG;
    if (c->n_kv == 0) return OSCAR_ERR_STATE;
    for (i = 0; i < c->d; i++) {
        if (km) km[i] = c->ksum[(size_t)kv_head * c->d + i] / (double)c->n_kv;
        if (vm) vm[i] = c->vsum[(size_t)kv_head * c->d + i] / (double)c->n_kv;
    }
    return OSCAR_OK;
}

OSCAR_DEF int oscar_calib_targets(oscar_calib *c, int kv_head, double *sk, double *sv) {
    int d, j, j0, j1;
    size_t dd, i;
    if (!c) return OSCAR_ERR_NULL;
    if (!c->sq) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_targets: accumulator not initialised");
    if (kv_head >= c->n_kv_heads) return oscar__fail(c->msg, OSCAR_ERR_INVALID_ARG, "calib_targets: KV head %d out of range", kv_head);
    if (c->n_q == 0) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_targets: no queries were added");
    if (sv && c->n_kv == 0) return oscar__fail(c->msg, OSCAR_ERR_STATE, "calib_targets: no keys/values were added (pass 2)");
    d = c->d;
    dd = (size_t)d * d;
    j0 = kv_head < 0 ? 0 : kv_head;
    j1 = kv_head < 0 ? c->n_kv_heads : kv_head + 1;
    if (sk) memset(sk, 0, dd * sizeof(double));
    if (sv) memset(sv, 0, dd * sizeof(double));
    for (j = j0; j < j1; j++) {
        double inv = 1.0 / (j1 - j0);
        if (sk) {
            oscar__sym_from_upper(c->buf, c->sq + j * dd, d, 1.0 / ((double)c->n_q * (c->n_q_heads / c->n_kv_heads)));
            for (i = 0; i < dd; i++) sk[i] += inv * c->buf[i];
        }
        if (sv) {
            if (c->wsum[j] > 0.0) oscar__sym_from_upper(c->buf, c->sv + j * dd, d, 1.0 / c->wsum[j]);
            else oscar__sym_from_upper(c->buf, c->sv_plain + j * dd, d, 1.0 / (double)c->n_kv);
            for (i = 0; i < dd; i++) sv[i] += inv * c->buf[i];
        }
    }
    return OSCAR_OK;
}

/* >>fit -------------------------------------------------------------------------------------- */
static const char *const oscar__comp_names[] = {"r_h_pbr", "hadamard", "identity", "plain"};

OSCAR_DEF const char *oscar_composition_name(int comp) {
    return comp >= 0 && comp < 4 ? oscar__comp_names[comp] : "unknown";
}

OSCAR_DEF int oscar_composition_parse(const char *name) {
    int i;
    if (!name) return -1;
    for (i = 0; i < 4; i++)
        if (!strcmp(name, oscar__comp_names[i])) return i;
    return -1;
}

OSCAR_DEF int oscar_rotation_fit(float *R, float *evals_out, const double *S, int d, int comp) {
    double *U = NULL, *ev = NULL, *row = NULL;
    int *perm = NULL, i, j, rc = OSCAR_OK;
    if (!R) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d) || d > OSCAR_MAX_HEAD_DIM) return OSCAR_ERR_DIM;
    if (comp < 0 || comp > 3) return OSCAR_ERR_INVALID_ARG;
    if (comp == OSCAR_COMP_HADAMARD || comp == OSCAR_COMP_IDENTITY) {
        if (comp == OSCAR_COMP_HADAMARD) oscar_hadamard_matrix(R, d);
        else
            for (i = 0; i < d * d; i++) R[i] = (i / d == i % d) ? 1.0f : 0.0f;
        if (evals_out) {
            if (S) for (i = 0; i < d; i++) evals_out[i] = (float)S[(size_t)i * d + i];
            else memset(evals_out, 0, sizeof(float) * (size_t)d);
        }
        return OSCAR_OK;
    }
    if (!S) return OSCAR_ERR_NULL;
    U = (double *)OSCAR_MALLOC(sizeof(double) * (size_t)d * d * 2);
    ev = (double *)OSCAR_MALLOC(sizeof(double) * (size_t)d * 2);
    perm = (int *)OSCAR_MALLOC(sizeof(int) * (size_t)d);
    if (!U || !ev || !perm) { rc = OSCAR_ERR_NOMEM; goto done; }
    row = ev + d;
    rc = oscar_jacobi_eig(U, ev, S, d, U + (size_t)d * d);
    if (rc != OSCAR_OK) goto done;
    if (evals_out)
        for (i = 0; i < d; i++) evals_out[i] = (float)ev[i];
    if (comp == OSCAR_COMP_PLAIN) {
        for (i = 0; i < d * d; i++) R[i] = (float)U[i];
        goto done;
    }
    /* ranks: oscar_jacobi_eig sorts descending, so r_i = i; perm[br(i)] = r_i */
    for (i = 0; i < d; i++) perm[oscar_bitrev(i, d)] = i;
    for (i = 0; i < d; i++) {
        for (j = 0; j < d; j++) row[j] = U[(size_t)i * d + j];
        oscar_wht_f64(row, d);                                  /* row of U . H */
        for (j = 0; j < d; j++) R[(size_t)i * d + j] = (float)row[perm[j]]; /* . P */
    }
done:
    OSCAR_FREE(U);
    OSCAR_FREE(ev);
    OSCAR_FREE(perm);
    return rc;
}

OSCAR_DEF int oscar_rotation_eigvecs(double *U, const float *R, const float *evals, int d, int comp) {
    int rank[OSCAR_MAX_HEAD_DIM], perm[OSCAR_MAX_HEAD_DIM], i, j;
    double z[OSCAR_MAX_HEAD_DIM];
    if (!U || !R) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d) || d > OSCAR_MAX_HEAD_DIM) return OSCAR_ERR_DIM;
    if (comp == OSCAR_COMP_PLAIN) {
        for (i = 0; i < d * d; i++) U[i] = R[i];
        return OSCAR_OK;
    }
    if (comp != OSCAR_COMP_R_H_PBR) return OSCAR_ERR_INVALID_ARG;
    if (!evals) return OSCAR_ERR_NULL;
    for (i = 0; i < d; i++) { /* rank[r] = index of the r-th largest eigenvalue (ties: lower index first) */
        int r = 0;
        for (j = 0; j < d; j++) r += evals[j] > evals[i] || (evals[j] == evals[i] && j < i);
        rank[r] = i;
    }
    for (i = 0; i < d; i++) perm[oscar_bitrev(i, d)] = rank[i];
    for (i = 0; i < d; i++) { /* row i of U H: (U H)[i][perm[j]] = R[i][j]; then . H (H H = I) */
        for (j = 0; j < d; j++) z[perm[j]] = R[(size_t)i * d + j];
        oscar_wht_f64(z, d);
        for (j = 0; j < d; j++) U[(size_t)i * d + j] = z[j];
    }
    return OSCAR_OK;
}

OSCAR_DEF int oscar_balance_fit(float *s, const float *R, const float *evals, const double *Ck, int d, int comp) {
    double *U, lam[OSCAR_MAX_HEAD_DIM], kap[OSCAR_MAX_HEAD_DIM], lmax = 0.0, kmax = 0.0, smax = 0.0;
    int i, a, b, rc;
    if (!s || !R || !evals || !Ck) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d) || d > OSCAR_MAX_HEAD_DIM) return OSCAR_ERR_DIM;
    U = (double *)OSCAR_MALLOC(sizeof(double) * (size_t)d * d);
    if (!U) return OSCAR_ERR_NOMEM;
    rc = oscar_rotation_eigvecs(U, R, evals, d, comp);
    for (i = 0; rc == OSCAR_OK && i < d; i++) { /* kappa_i = U_i^T Ck U_i */
        double k = 0.0;
        for (a = 0; a < d; a++) {
            double t = 0.0;
            for (b = 0; b < d; b++) t += Ck[(size_t)a * d + b] * U[(size_t)b * d + i];
            k += U[(size_t)a * d + i] * t;
        }
        lam[i] = evals[i];
        kap[i] = k;
        if (!(lam[i] == lam[i]) || !(k == k) || lam[i] > 1e300 || k > 1e300) rc = OSCAR_ERR_NONFINITE;
        if (lam[i] > lmax) lmax = lam[i];
        if (k > kmax) kmax = k;
    }
    OSCAR_FREE(U);
    if (rc != OSCAR_OK) return rc;
    if (!(lmax > 0.0) || !(kmax > 0.0)) return OSCAR_ERR_RANGE; /* no query or key energy to balance */
    for (i = 0; i < d; i++) {
        const double l = lam[i] > 1e-9 * lmax ? lam[i] : 1e-9 * lmax, k = kap[i] > 1e-9 * kmax ? kap[i] : 1e-9 * kmax;
        lam[i] = sqrt(sqrt(l / k)); /* s_i before scaling */
        if (lam[i] > smax) smax = lam[i];
    }
    for (i = 0; i < d; i++) {
        const double v = lam[i] / smax;
        s[i] = (float)(v > 1.0 / 256 ? v : 1.0 / 256);
    }
    return OSCAR_OK;
}

OSCAR_DEF int oscar_balance_matrices(float *A, float *B, const float *R, const float *evals, const float *s, int d, int comp) {
    double *U, *M, *W;
    int i, j, k, rc, pass;
    if (!R || !s) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d) || d > OSCAR_MAX_HEAD_DIM) return OSCAR_ERR_DIM;
    for (i = 0; i < d; i++)
        if (!(s[i] > 0.0f && s[i] <= 1.0f)) return OSCAR_ERR_RANGE;
    U = (double *)OSCAR_MALLOC(sizeof(double) * (size_t)d * d * 3);
    if (!U) return OSCAR_ERR_NOMEM;
    M = U + (size_t)d * d;
    W = M + (size_t)d * d;
    rc = oscar_rotation_eigvecs(U, R, evals, d, comp);
    for (pass = 0; rc == OSCAR_OK && pass < 2; pass++) {
        float *out = pass ? B : A;
        if (!out) continue;
        for (i = 0; i < d; i++) /* W = U diag(s or 1/s) */
            for (j = 0; j < d; j++) W[(size_t)i * d + j] = pass ? U[(size_t)i * d + j] / s[j] : U[(size_t)i * d + j] * s[j];
        for (i = 0; i < d; i++) /* M = W U^T */
            for (j = 0; j < d; j++) {
                double t = 0.0;
                for (k = 0; k < d; k++) t += W[(size_t)i * d + k] * U[(size_t)j * d + k];
                M[(size_t)i * d + j] = t;
            }
        for (i = 0; i < d; i++) /* out = M R */
            for (j = 0; j < d; j++) {
                double t = 0.0;
                for (k = 0; k < d; k++) t += M[(size_t)i * d + k] * R[(size_t)k * d + j];
                out[(size_t)i * d + j] = (float)t;
            }
    }
    OSCAR_FREE(U);
    return rc;
}

OSCAR_DEF double oscar_rotation_orth_error(const float *R, int d) {
    double worst = 0.0;
    int i, j, k;
    if (!R || d < 1) return INFINITY;
    for (i = 0; i < d; i++)
        for (j = i; j < d; j++) {
            double s = 0.0, e;
            for (k = 0; k < d; k++) s += (double)R[(size_t)k * d + i] * R[(size_t)k * d + j];
            e = fabs(s - (i == j ? 1.0 : 0.0));
            if (!(e <= worst)) worst = e; /* NaN propagates as the worst */
        }
    return worst;
}

/* x . R must round exactly like the GPU write path (one multiply, one add, in increasing i):
   floating-point contraction into fused multiply-adds is switched off for this function (gcc:
   whatever the flags; clang: unless -ffp-contract=fast is given, which overrides the pragma). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
OSCAR_DEF void oscar_rotate_rows(float *y, const float *x, const float *R, int n, int d, int transpose) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
    int r, i, j;
    if (!y || !x || !R || n < 1 || d < 1) return;
    for (r = 0; r < n; r++) {
        const float *xr = x + (size_t)r * d;
        float *yr = y + (size_t)r * d;
        if (transpose) { /* y_j = sum_i x_i R[j][i] */
            for (j = 0; j < d; j++) {
                const float *Rj = R + (size_t)j * d;
                float s = 0.0f;
                for (i = 0; i < d; i++) s += xr[i] * Rj[i];
                yr[j] = s;
            }
        } else { /* y_j = sum_i x_i R[i][j] */
            for (j = 0; j < d; j++) yr[j] = 0.0f;
            for (i = 0; i < d; i++) {
                const float *Ri = R + (size_t)i * d;
                float xi = xr[i];
                for (j = 0; j < d; j++) yr[j] += xi * Ri[j];
            }
        }
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

OSCAR_DEF int oscar_rotation_q14(int16_t *Rq, const float *R, int d) {
    size_t i, n;
    if (!Rq || !R || d < 1 || d > OSCAR_MAX_HEAD_DIM) return OSCAR_ERR_INVALID_ARG;
    n = (size_t)d * d;
    for (i = 0; i < n; i++)
        if (!(R[i] >= -1.5f && R[i] <= 1.5f)) return OSCAR_ERR_RANGE;
    for (i = 0; i < n; i++) Rq[i] = (int16_t)lrintf(R[i] * 16384.0f); /* exact scaling, one rounding */
    return OSCAR_OK;
}

static float oscar__pow2f(int e) { /* 2^e, -126 <= e <= 127 */
    union { uint32_t u; float f; } b;
    b.u = (uint32_t)(e + 127) << 23;
    return b.f;
}

OSCAR_DEF void oscar_rotate_row_q14(float *y, const float *x, const int16_t *Rq, int d) {
    int32_t X[OSCAR_MAX_HEAD_DIM];
    int64_t P[OSCAR_MAX_HEAD_DIM];
    union { float f; uint32_t u; } m;
    float up, down;
    int i, j, e;
    if (!y || !x || !Rq || d < 1 || d > OSCAR_MAX_HEAD_DIM) return;
    m.f = 0.0f;
    for (i = 0; i < d; i++) m.f = fabsf(x[i]) > m.f ? fabsf(x[i]) : m.f;
    e = (int)((m.u >> 23) & 0xffu) - 126;
    if (e < -98) e = -98;
    up = oscar__pow2f(14 - e);
    down = oscar__pow2f(e - 28);
    for (i = 0; i < d; i++) X[i] = (int32_t)lrintf(x[i] * up);
    for (j = 0; j < d; j++) P[j] = 0;
    for (i = 0; i < d; i++) {
        const int16_t *Ri = Rq + (size_t)i * d;
        const int64_t xi = X[i];
        if (xi)
            for (j = 0; j < d; j++) P[j] += xi * Ri[j];
    }
    for (j = 0; j < d; j++) y[j] = (float)P[j] * down;
}

/* >>int2 ------------------------------------------------------------------------------------- */
/* k-th smallest of a[0..n) (quickselect, a is reordered) */
static float oscar__select(float *a, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

OSCAR_DEF float oscar_int2_clip_threshold(const float *x, int d, float clip) {
    float a[OSCAR_MAX_HEAD_DIM];
    int i, idx;
    if (!(clip > 0.0f) || !x || d < 1 || d > OSCAR_MAX_HEAD_DIM) return INFINITY;
    for (i = 0; i < d; i++) a[i] = fabsf(x[i]);
    idx = (int)floorf(clip * (float)d);
    if (idx > d - 1) idx = d - 1;
    return oscar__select(a, d, idx);
}

OSCAR_DEF int oscar_int2_quantize_row(uint8_t *codes, uint16_t *sm, const float *x, int d, int g, float clip) {
    return oscar_int2_quantize_row_ex(codes, sm, x, d, g, clip, 0);
}

OSCAR_DEF int oscar_int2_quantize_row_ex(uint8_t *codes, uint16_t *sm, const float *x, int d, int g, float clip, unsigned flags) {
    float c[OSCAR_MAX_HEAD_DIM], thr;
    uint8_t q[OSCAR_MAX_HEAD_DIM];
    uint16_t out_sm[2 * OSCAR_MAX_HEAD_DIM]; /* written to sm only when the whole row succeeds */
    int i, k, ng, d4;
    if (!codes || !sm || !x) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d) || d < 4 || d > OSCAR_MAX_HEAD_DIM || !oscar_is_pow2(g) || g > d) return OSCAR_ERR_DIM;
    if (!oscar__finite_f32(x, (size_t)d)) return OSCAR_ERR_NONFINITE;
    thr = oscar_int2_clip_threshold(x, d, clip);
    for (i = 0; i < d; i++) c[i] = x[i] > thr ? thr : (x[i] < -thr ? -thr : x[i]);
    ng = d / g;
    for (k = 0; k < ng; k++) {
        const float *xg = c + k * g;
        float mn = xg[0], mx = xg[0], scale, mn16, sc16;
        uint16_t hs, hm;
        for (i = 1; i < g; i++) {
            if (xg[i] < mn) mn = xg[i];
            if (xg[i] > mx) mx = xg[i];
        }
        scale = (mx - mn) / 3.0f;
        hs = oscar_f32_to_f16(scale);
        hm = oscar_f32_to_f16(mn);
        if ((hs & 0x7c00u) == 0x7c00u || (hm & 0x7c00u) == 0x7c00u) return OSCAR_ERR_RANGE;
        sc16 = oscar_f16_to_f32(hs);
        mn16 = oscar_f16_to_f32(hm);
        for (i = 0; i < g; i++) {
            float t;
            int v;
            if (sc16 == 0.0f) { q[k * g + i] = 0; continue; }
            t = floorf((xg[i] - mn16) / sc16 + 0.5f);
            v = t < 0.0f ? 0 : (t > 3.0f ? 3 : (int)t);
            q[k * g + i] = (uint8_t)v;
        }
        if (flags & OSCAR_INT2_GAIN) { /* gamma = sum x^2 / sum x . x^ over the unclipped group */
            const float *x0 = x + k * g;
            double xx = 0.0, xh = 0.0, gam;
            for (i = 0; i < g; i++) {
                double h = (double)(mn16 + (float)q[k * g + i] * sc16);
                xx += (double)x0[i] * x0[i];
                xh += (double)x0[i] * h;
            }
            if (xh > 0.0 && xx > 0.0) {
                uint16_t hs2, hm2;
                gam = xx / xh;
                if (gam < 0.5) gam = 0.5;
                if (gam > 2.0) gam = 2.0;
                hs2 = oscar_f32_to_f16((float)(sc16 * gam));
                hm2 = oscar_f32_to_f16((float)(mn16 * gam));
                if ((hs2 & 0x7c00u) != 0x7c00u && (hm2 & 0x7c00u) != 0x7c00u) { hs = hs2; hm = hm2; }
            }
        }
        out_sm[2 * k] = hs;
        out_sm[2 * k + 1] = hm;
    }
    memcpy(sm, out_sm, sizeof(uint16_t) * 2 * (size_t)ng);
    d4 = d / 4;
    for (i = 0; i < d4; i++)
        codes[i] = (uint8_t)(q[i] | (q[i + d4] << 2) | (q[i + 2 * d4] << 4) | (q[i + 3 * d4] << 6));
    return OSCAR_OK;
}

OSCAR_DEF void oscar_int2_dequantize_row(float *x, const uint8_t *codes, const uint16_t *sm, int d, int g) {
    uint8_t q[OSCAR_MAX_HEAD_DIM];
    int i, k, quarter, d4 = d / 4;
    if (!x || !codes || !sm || !oscar_is_pow2(d) || d < 4 || d > OSCAR_MAX_HEAD_DIM || !oscar_is_pow2(g) || g > d) return;
    if (g >= d4) { /* each quarter of the row lies in one group: constant shifts over codes widened
                      to 32 bits, loops that vectorise */
        uint32_t w[OSCAR_MAX_HEAD_DIM / 4];
        float sc[4], mn[4];
        for (i = 0; i < d4; i++) w[i] = codes[i];
        for (quarter = 0; quarter < 4; quarter++) {
            k = quarter * d4 / g;
            sc[quarter] = oscar_f16_to_f32(sm[2 * k]);
            mn[quarter] = oscar_f16_to_f32(sm[2 * k + 1]);
        }
        for (i = 0; i < d4; i++) x[i] = mn[0] + (float)(w[i] & 3) * sc[0];
        for (i = 0; i < d4; i++) x[d4 + i] = mn[1] + (float)((w[i] >> 2) & 3) * sc[1];
        for (i = 0; i < d4; i++) x[2 * d4 + i] = mn[2] + (float)((w[i] >> 4) & 3) * sc[2];
        for (i = 0; i < d4; i++) x[3 * d4 + i] = mn[3] + (float)(w[i] >> 6) * sc[3];
        return;
    }
    for (quarter = 0; quarter < 4; quarter++)
        for (i = 0; i < d4; i++) q[quarter * d4 + i] = (uint8_t)((codes[i] >> (2 * quarter)) & 3);
    for (k = 0; k < d / g; k++) {
        float sc = oscar_f16_to_f32(sm[2 * k]), mn = oscar_f16_to_f32(sm[2 * k + 1]);
        for (i = k * g; i < (k + 1) * g; i++) x[i] = mn + (float)q[i] * sc;
    }
}

/* KIVI-style K: per channel over n rows. codes: [n][d/4] (quarter-interleaved per row, as the
   per-token codec), sm: [d][2] fp16 (scale, min) per channel, x: [n][d]. */
OSCAR_DEF int oscar_int2_quantize_channels(uint8_t *codes, uint16_t *sm, const float *x, int n, int d) {
    uint8_t q[OSCAR_MAX_HEAD_DIM];
    float mn16[OSCAR_MAX_HEAD_DIM], sc16[OSCAR_MAX_HEAD_DIM];
    uint16_t out_sm[2 * OSCAR_MAX_HEAD_DIM]; /* written to sm only when every channel succeeds */
    int i, t, d4;
    if (!codes || !sm || !x) return OSCAR_ERR_NULL;
    if (!oscar_is_pow2(d) || d < 4 || d > OSCAR_MAX_HEAD_DIM || n < 1) return OSCAR_ERR_DIM;
    if (!oscar__finite_f32(x, (size_t)n * d)) return OSCAR_ERR_NONFINITE;
    for (i = 0; i < d; i++) {
        float mn = x[i], mx = x[i];
        for (t = 1; t < n; t++) {
            float v = x[(size_t)t * d + i];
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
        out_sm[2 * i] = oscar_f32_to_f16((mx - mn) / 3.0f);
        out_sm[2 * i + 1] = oscar_f32_to_f16(mn);
        if ((out_sm[2 * i] & 0x7c00u) == 0x7c00u || (out_sm[2 * i + 1] & 0x7c00u) == 0x7c00u) return OSCAR_ERR_RANGE;
        sc16[i] = oscar_f16_to_f32(out_sm[2 * i]);
        mn16[i] = oscar_f16_to_f32(out_sm[2 * i + 1]);
    }
    memcpy(sm, out_sm, sizeof(uint16_t) * 2 * (size_t)d);
    d4 = d / 4;
    for (t = 0; t < n; t++) {
        const float *xr = x + (size_t)t * d;
        for (i = 0; i < d; i++) {
            float f;
            if (sc16[i] == 0.0f) { q[i] = 0; continue; }
            f = floorf((xr[i] - mn16[i]) / sc16[i] + 0.5f);
            q[i] = (uint8_t)(f < 0.0f ? 0 : (f > 3.0f ? 3 : (int)f));
        }
        for (i = 0; i < d4; i++)
            codes[(size_t)t * d4 + i] = (uint8_t)(q[i] | (q[i + d4] << 2) | (q[i + 2 * d4] << 4) | (q[i + 3 * d4] << 6));
    }
    return OSCAR_OK;
}

OSCAR_DEF void oscar_int2_dequantize_channels(float *x, const uint8_t *codes, const uint16_t *sm, int d) {
    int i, quarter, d4 = d / 4;
    if (!x || !codes || !sm || !oscar_is_pow2(d) || d < 4) return;
    for (quarter = 0; quarter < 4; quarter++)
        for (i = 0; i < d4; i++) {
            int c = quarter * d4 + i;
            x[c] = oscar_f16_to_f32(sm[2 * c + 1]) + (float)((codes[i] >> (2 * quarter)) & 3) * oscar_f16_to_f32(sm[2 * c]);
        }
}

/* >>kv --------------------------------------------------------------------------------------- */
static int oscar__kv_seq_ok(const oscar_kv *kv, int seq) {
    return kv && kv->seqs && seq >= 0 && seq < kv->cfg.max_seqs && kv->seqs[seq].used;
}

OSCAR_DEF int oscar_kv_config_resolve(oscar_kv_config *out, const oscar_kv_config *in, char *msg) {
    oscar_kv_config c;
    int d;
    if (!out || !in) return oscar__fail(msg, OSCAR_ERR_NULL, "kv config: null pointer");
    c = *in;
    d = c.head_dim;
    if (c.n_layers < 1 || c.n_kv_heads < 1)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: n_layers (%d) and n_kv_heads (%d) must be >= 1", c.n_layers, c.n_kv_heads);
    if (!oscar_is_pow2(d) || d < 4 || d > OSCAR_MAX_HEAD_DIM)
        return oscar__fail(msg, OSCAR_ERR_DIM, "kv config: head_dim %d is not a power of two in [4, %d]", d, OSCAR_MAX_HEAD_DIM);
    if (c.mode != OSCAR_KV_BF16 && c.mode != OSCAR_KV_INT2 && c.mode != OSCAR_KV_KIVI2)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: unknown mode %d", c.mode);
    if (c.group_size == 0) c.group_size = d < 128 ? d : 128;
    if (!oscar_is_pow2(c.group_size) || c.group_size > d || d % c.group_size)
        return oscar__fail(msg, OSCAR_ERR_DIM, "kv config: group size %d is not a power of two dividing head_dim %d", c.group_size, d);
    if (c.v_group_size == 0) c.v_group_size = c.group_size;
    if (!oscar_is_pow2(c.v_group_size) || c.v_group_size > d || d % c.v_group_size)
        return oscar__fail(msg, OSCAR_ERR_DIM, "kv config: V group size %d is not a power of two dividing head_dim %d", c.v_group_size, d);
    if (c.sink == 0) c.sink = 64;
    else if (c.sink == OSCAR_NONE) c.sink = 0;
    if (c.window == 0) c.window = 256;
    else if (c.window == OSCAR_NONE) c.window = 0;
    if (c.page_size == 0) c.page_size = 64;
    if (c.max_pages == 0) c.max_pages = 1024;
    if (c.max_seqs == 0) c.max_seqs = 16;
    if (c.sink < 0 || c.window < 0 || c.page_size < 1 || c.max_pages < 1 || c.max_seqs < 1)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: negative sink/window or page_size/max_pages/max_seqs < 1");
    if (c.sink > (1 << 20) || c.window > (1 << 20) || c.page_size > (1 << 16))
        return oscar__fail(msg, OSCAR_ERR_RANGE, "kv config: sink %d, window %d or page %d too large", c.sink, c.window, c.page_size);
    if (c.window % c.page_size)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: page size %d must divide the window %d", c.page_size, c.window);
    if (c.k_clip == 0.0f) c.k_clip = 0.96f;
    if (c.v_clip == 0.0f) c.v_clip = 0.92f;
    if (!(c.k_clip <= 1.0f) || !(c.v_clip <= 1.0f))
        return oscar__fail(msg, OSCAR_ERR_RANGE, "kv config: clip ratios must be <= 1 (or negative to disable)");
    if ((c.k_gain != 0 && c.k_gain != 1) || (c.v_gain != 0 && c.v_gain != 1))
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: k_gain (%d) and v_gain (%d) must be 0 or 1", c.k_gain, c.v_gain);
    if ((c.k_gain || c.v_gain) && c.mode != OSCAR_KV_INT2)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: k_gain / v_gain need INT2 mode (per-token rows)");
    if (c.mode != OSCAR_KV_INT2) c.rot = NULL; /* rotations apply to OSCAR_KV_INT2 only */
    if (c.k_balance != 0 && c.k_balance != 1) return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: k_balance (%d) must be 0 or 1", c.k_balance);
    if (c.k_balance && (c.mode != OSCAR_KV_INT2 || !c.rot || !c.rot->k_balance))
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: k_balance needs INT2 mode and rotations with a K balance (k_balance)");
    if (c.k_balance && c.rot->composition != OSCAR_COMP_R_H_PBR && c.rot->composition != OSCAR_COMP_PLAIN)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: k_balance needs fitted rotations (r_h_pbr or plain), not %s", oscar_composition_name(c.rot->composition));
    if (c.center < OSCAR_CENTER_NONE || c.center > OSCAR_CENTER_ROPE)
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: center %d is not 0 (none), 1 (calibration means) or 2 (K mean before RoPE)", c.center);
    if (c.center && (c.mode != OSCAR_KV_INT2 || !c.rot || !c.rot->k_mean || !c.rot->v_mean))
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: center needs INT2 mode and rotations with means (k_mean / v_mean)");
    if (c.center == OSCAR_CENTER_ROPE && (!c.rot->k_rope_mean || !(c.rot->rope_base > 1.0) || c.head_dim % 2))
        return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "kv config: center 2 (OSCAR_CENTER_ROPE) needs rotations with a pre-RoPE K mean (k_rope_mean, rope_base)");
    *out = c;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_kv_init(oscar_kv *kv, const oscar_kv_config *cfg_in) {
    oscar_kv_config c;
    size_t pool_bytes, dd;
    int d, i;
    if (!kv) return OSCAR_ERR_NULL;
    memset(kv, 0, sizeof(*kv));
    if (!cfg_in) return oscar__fail(kv->msg, OSCAR_ERR_NULL, "kv_init: null config");
    if ((i = oscar_kv_config_resolve(&c, cfg_in, kv->msg)) != OSCAR_OK) return i;
    d = c.head_dim;
    kv->d = d;
    kv->g = c.group_size;
    kv->gv = c.v_group_size;
    kv->S0 = c.sink;
    kv->W = c.window;
    kv->P = c.page_size;
    kv->L = c.n_layers;
    kv->Hkv = c.n_kv_heads;
    kv->ring = c.window + c.page_size;
    kv->int2 = c.mode != OSCAR_KV_BF16;
    kv->kivi = c.mode == OSCAR_KV_KIVI2;
    kv->k_clip = kv->kivi ? -1.0f : c.k_clip;
    kv->v_clip = kv->kivi ? -1.0f : c.v_clip;
    kv->k_flags = c.k_gain ? (unsigned)OSCAR_INT2_GAIN : 0u;
    kv->v_flags = c.v_gain ? (unsigned)OSCAR_INT2_GAIN : 0u;
    if (kv->int2) { /* codes, then fp16 (scale, min): per token and group, or (KIVI K) per channel */
        size_t codes = (size_t)kv->P * d / 4;
        kv->k_part = kv->kivi ? codes + (size_t)d * 4 : codes + (size_t)kv->P * (d / kv->g) * 4;
        kv->head_page_bytes = kv->k_part + codes + (size_t)kv->P * (d / kv->gv) * 4;
    } else {
        kv->k_part = (size_t)kv->P * d * 2;
        kv->head_page_bytes = 2 * kv->k_part;
    }
    kv->page_bytes = kv->head_page_bytes * kv->Hkv;
    pool_bytes = kv->page_bytes * (size_t)kv->L;
    if (pool_bytes / kv->L != kv->page_bytes || pool_bytes * (size_t)c.max_pages / c.max_pages != pool_bytes)
        return oscar__fail(kv->msg, OSCAR_ERR_RANGE, "kv_init: page pool size overflows");
    pool_bytes *= (size_t)c.max_pages;
    dd = (size_t)d * d;
    if (c.mode == OSCAR_KV_INT2 && c.rot) {
        const oscar_rotations *r = c.rot;
        size_t n;
        if (!r->k_rot || !r->v_rot)
            return oscar__fail(kv->msg, OSCAR_ERR_INVALID_ARG, "kv_init: rotations are not loaded");
        if (r->head_dim != d || r->n_layers != c.n_layers || (r->per_head && r->n_kv_heads != c.n_kv_heads))
            return oscar__fail(kv->msg, OSCAR_ERR_SHAPE, "kv_init: rotations are for %d layers, head dim %d, %d KV heads; the cache has %d, %d, %d",
                               r->n_layers, r->head_dim, r->n_kv_heads, c.n_layers, d, c.n_kv_heads);
        kv->rot_heads = r->per_head ? r->n_kv_heads : 1;
        n = (size_t)c.n_layers * kv->rot_heads * dd;
        kv->k_rot = (float *)oscar__calloc(n, sizeof(float));
        kv->v_rot = (float *)oscar__calloc(n, sizeof(float));
        if (!kv->k_rot || !kv->v_rot) {
            oscar_kv_free(kv);
            return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "kv_init: out of memory for rotations");
        }
        memcpy(kv->k_rot, r->k_rot, n * sizeof(float));
        memcpy(kv->v_rot, r->v_rot, n * sizeof(float));
        kv->wht = !c.k_balance && oscar_rotations_is_hadamard(r); /* (balanced K rows go through A, never H) */
        if (c.k_balance) { /* rows through A = U diag(s) U^T R, queries through U diag(1/s) U^T R */
            size_t m = 0;
            int brc;
            kv->k_qrot = (float *)oscar__calloc(n, sizeof(float));
            if (!kv->k_qrot) {
                oscar_kv_free(kv);
                return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "kv_init: out of memory for the K balance");
            }
            if ((brc = oscar_rotations_balance_matrices(r, kv->k_rot, kv->k_qrot, &m)) != OSCAR_OK) {
                oscar_kv_free(kv);
                return oscar__fail(kv->msg, brc, "kv_init: the K balance of rotation matrix %zu: %s (each s must be in (0, 1], the rotation fitted)", m, oscar_result_string(brc));
            }
        }
        if (!kv->wht) {
            size_t m;
            kv->k_rotq = (int16_t *)oscar__calloc(n, sizeof(int16_t));
            kv->v_rotq = (int16_t *)oscar__calloc(n, sizeof(int16_t));
            if (!kv->k_rotq || !kv->v_rotq) {
                oscar_kv_free(kv);
                return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "kv_init: out of memory for rotations");
            }
            for (m = 0; m < n; m += dd)
                if (oscar_rotation_q14(kv->k_rotq + m, kv->k_rot + m, d) || oscar_rotation_q14(kv->v_rotq + m, kv->v_rot + m, d)) {
                    oscar_kv_free(kv);
                    return oscar__fail(kv->msg, OSCAR_ERR_RANGE, "kv_init: rotation matrix %zu has an entry that is not finite or beyond +-1.5 (not orthogonal)", m / dd);
                }
        }
        if (c.center) {
            size_t nm = (size_t)c.n_layers * c.n_kv_heads * d, l, h;
            kv->k_mean = (float *)oscar__calloc(nm, sizeof(float));
            kv->v_mean = (float *)oscar__calloc(nm, sizeof(float));
            kv->v_mean_out = (float *)oscar__calloc(nm, sizeof(float));
            if (!kv->k_mean || !kv->v_mean || !kv->v_mean_out) {
                oscar_kv_free(kv);
                return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "kv_init: out of memory for the means");
            }
            if (r->n_kv_heads != c.n_kv_heads) {
                oscar_kv_free(kv);
                return oscar__fail(kv->msg, OSCAR_ERR_SHAPE, "kv_init: the means are for %d KV heads, the cache has %d", r->n_kv_heads, c.n_kv_heads);
            }
            memcpy(kv->k_mean, r->k_mean, nm * sizeof(float));
            memcpy(kv->v_mean, r->v_mean, nm * sizeof(float));
            if (!oscar__finite_f32(kv->k_mean, nm) || !oscar__finite_f32(kv->v_mean, nm)) {
                oscar_kv_free(kv);
                return oscar__fail(kv->msg, OSCAR_ERR_NONFINITE, "kv_init: NaN or Inf in the rotations' means");
            }
            if (c.center == OSCAR_CENTER_ROPE) {
                kv->k_rope_mean = (float *)oscar__calloc(nm, sizeof(float));
                kv->rope_step = (double *)oscar__calloc((size_t)d / 2 * 3, sizeof(double));
                if (!kv->k_rope_mean || !kv->rope_step) {
                    oscar_kv_free(kv);
                    return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "kv_init: out of memory for the means");
                }
                memcpy(kv->k_rope_mean, r->k_rope_mean, nm * sizeof(float));
                for (l = 0; l < (size_t)d / 2; l++) {
                    const double f = pow(r->rope_base, -2.0 * (double)l / d); /* as oscar_rope_row */
                    kv->rope_step[3 * l] = f;
                    kv->rope_step[3 * l + 1] = cos(f);
                    kv->rope_step[3 * l + 2] = sin(f);
                }
                if (!oscar__finite_f32(kv->k_rope_mean, nm)) {
                    oscar_kv_free(kv);
                    return oscar__fail(kv->msg, OSCAR_ERR_NONFINITE, "kv_init: NaN or Inf in the rotations' pre-RoPE K mean");
                }
            }
            for (l = 0; l < (size_t)c.n_layers; l++)
                for (h = 0; h < (size_t)c.n_kv_heads; h++) {
                    const size_t at = (l * c.n_kv_heads + h) * d;
                    const float *Rv = kv->v_rot + (l * kv->rot_heads + (kv->rot_heads > 1 ? h : 0)) * dd;
                    if (c.absorb_v) oscar_rotate_rows(kv->v_mean_out + at, kv->v_mean + at, Rv, 1, d, 0);
                    else memcpy(kv->v_mean_out + at, kv->v_mean + at, sizeof(float) * (size_t)d);
                }
        }
    }
    c.rot = NULL; /* copied (or unused) */
    kv->cfg = c;
    kv->pool = (uint8_t *)OSCAR_MALLOC(pool_bytes ? pool_bytes : 1);
    kv->refcount = (int *)oscar__calloc((size_t)c.max_pages, sizeof(int));
    kv->free_list = (int *)oscar__calloc((size_t)c.max_pages, sizeof(int));
    kv->seqs = (oscar_kv_seq *)oscar__calloc((size_t)c.max_seqs, sizeof(oscar_kv_seq));
    if (kv->kivi) kv->flush_buf = (float *)oscar__calloc((size_t)kv->P * d, sizeof(float));
    if (!kv->pool || !kv->refcount || !kv->free_list || !kv->seqs || (kv->kivi && !kv->flush_buf)) {
        oscar_kv_free(kv);
        return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "kv_init: out of memory for a pool of %d pages (%zu bytes)", c.max_pages, pool_bytes);
    }
    for (i = 0; i < c.max_pages; i++) kv->free_list[i] = c.max_pages - 1 - i; /* pop gives 0, 1, ... */
    kv->n_free = c.max_pages;
    return OSCAR_OK;
}

static void oscar__seq_clear(oscar_kv_seq *s) {
    OSCAR_FREE(s->n_tok);
    OSCAR_FREE(s->n_hist);
    OSCAR_FREE(s->pages);
    OSCAR_FREE(s->sink);
    OSCAR_FREE(s->win);
    memset(s, 0, sizeof(*s));
}

OSCAR_DEF void oscar_kv_free(oscar_kv *kv) {
    int i;
    if (!kv) return;
    if (kv->seqs)
        for (i = 0; i < kv->cfg.max_seqs; i++) oscar__seq_clear(&kv->seqs[i]);
    OSCAR_FREE(kv->seqs);
    OSCAR_FREE(kv->pool);
    OSCAR_FREE(kv->refcount);
    OSCAR_FREE(kv->free_list);
    OSCAR_FREE(kv->k_rot);
    OSCAR_FREE(kv->v_rot);
    OSCAR_FREE(kv->k_mean);
    OSCAR_FREE(kv->v_mean);
    OSCAR_FREE(kv->v_mean_out);
    OSCAR_FREE(kv->k_rope_mean);
    OSCAR_FREE(kv->rope_step);
    OSCAR_FREE(kv->k_rotq);
    OSCAR_FREE(kv->k_qrot);
    OSCAR_FREE(kv->v_rotq);
    OSCAR_FREE(kv->scratch);
    OSCAR_FREE(kv->flush_buf);
    kv->flush_buf = NULL;
    kv->seqs = NULL;
    kv->pool = NULL;
    kv->refcount = kv->free_list = NULL;
    kv->k_rot = kv->v_rot = NULL;
    kv->k_rotq = kv->v_rotq = NULL;
    kv->k_qrot = NULL;
    kv->scratch = NULL;
    kv->scratch_g = 0;
}

static size_t oscar__seq_sink_elems(const oscar_kv *kv) { return (size_t)kv->L * kv->Hkv * 2 * kv->S0 * kv->d; }
static size_t oscar__seq_win_elems(const oscar_kv *kv) { return (size_t)kv->L * kv->Hkv * 2 * kv->ring * kv->d; }

/* a fresh slot with its buffers allocated; returns the slot or a negative error */
static int oscar__seq_new(oscar_kv *kv) {
    int i;
    oscar_kv_seq *s = NULL;
    if (!kv || !kv->seqs) return OSCAR_ERR_STATE;
    for (i = 0; i < kv->cfg.max_seqs; i++)
        if (!kv->seqs[i].used) { s = &kv->seqs[i]; break; }
    if (!s) return oscar__fail(kv->msg, OSCAR_ERR_SEQ_LIMIT, "all %d sequence slots are in use", kv->cfg.max_seqs);
    s->n_tok = (int *)oscar__calloc((size_t)kv->L, sizeof(int));
    s->n_hist = (int *)oscar__calloc((size_t)kv->L, sizeof(int));
    s->sink = (uint16_t *)oscar__calloc(oscar__seq_sink_elems(kv), sizeof(uint16_t));
    s->win = (uint16_t *)oscar__calloc(oscar__seq_win_elems(kv), sizeof(uint16_t));
    if (!s->n_tok || !s->n_hist || !s->sink || !s->win) {
        oscar__seq_clear(s);
        return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "out of memory for a sequence's BF16 sink and window");
    }
    s->used = 1;
    return i;
}

OSCAR_DEF int oscar_kv_seq_create(oscar_kv *kv, int *seq) {
    int id;
    if (!kv || !seq) return kv ? oscar__fail(kv->msg, OSCAR_ERR_NULL, "seq_create: null output") : OSCAR_ERR_NULL;
    id = oscar__seq_new(kv);
    if (id < 0) return id;
    *seq = id;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_kv_seq_fork(oscar_kv *kv, int src, int *dst) {
    oscar_kv_seq *a, *b;
    int id, l, i;
    if (!kv || !dst) return kv ? oscar__fail(kv->msg, OSCAR_ERR_NULL, "seq_fork: null output") : OSCAR_ERR_NULL;
    if (!oscar__kv_seq_ok(kv, src)) return oscar__fail(kv->msg, OSCAR_ERR_NO_SEQ, "seq_fork: no sequence %d", src);
    a = &kv->seqs[src];
    for (l = 1; l < kv->L; l++)
        if (a->n_tok[l] != a->n_tok[0])
            return oscar__fail(kv->msg, OSCAR_ERR_STATE, "seq_fork: layers of sequence %d hold different token counts (%d vs %d)", src, a->n_tok[0], a->n_tok[l]);
    id = oscar__seq_new(kv);
    if (id < 0) return id;
    a = &kv->seqs[src];
    b = &kv->seqs[id];
    if (a->n_pages) {
        b->pages = (int *)OSCAR_MALLOC(sizeof(int) * (size_t)a->n_pages);
        if (!b->pages) {
            oscar__seq_clear(b);
            return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "seq_fork: out of memory for the block table");
        }
        memcpy(b->pages, a->pages, sizeof(int) * (size_t)a->n_pages);
        b->n_pages = b->cap_pages = a->n_pages;
        for (i = 0; i < a->n_pages; i++) kv->refcount[a->pages[i]]++;
    }
    memcpy(b->n_tok, a->n_tok, sizeof(int) * (size_t)kv->L);
    memcpy(b->n_hist, a->n_hist, sizeof(int) * (size_t)kv->L);
    memcpy(b->sink, a->sink, oscar__seq_sink_elems(kv) * sizeof(uint16_t));
    memcpy(b->win, a->win, oscar__seq_win_elems(kv) * sizeof(uint16_t));
    *dst = id;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_kv_seq_release(oscar_kv *kv, int seq) {
    oscar_kv_seq *s;
    int i;
    if (!kv) return OSCAR_ERR_NULL;
    if (!oscar__kv_seq_ok(kv, seq)) return oscar__fail(kv->msg, OSCAR_ERR_NO_SEQ, "seq_release: no sequence %d", seq);
    s = &kv->seqs[seq];
    for (i = 0; i < s->n_pages; i++) {
        int p = s->pages[i];
        OSCAR_ASSERT(kv->refcount[p] > 0);
        if (--kv->refcount[p] == 0) kv->free_list[kv->n_free++] = p;
    }
    oscar__seq_clear(s);
    return OSCAR_OK;
}

OSCAR_DEF int oscar_kv_seq_length(const oscar_kv *kv, int seq, int layer) {
    if (!oscar__kv_seq_ok(kv, seq)) return OSCAR_ERR_NO_SEQ;
    if (layer < 0 || layer >= kv->L) return OSCAR_ERR_INVALID_ARG;
    return kv->seqs[seq].n_tok[layer];
}

OSCAR_DEF uint8_t *oscar_kv_page_ptr(const oscar_kv *kv, int layer, int page, int kv_head) {
    if (!kv || !kv->pool || layer < 0 || layer >= kv->L || page < 0 || page >= kv->cfg.max_pages || kv_head < 0 || kv_head >= kv->Hkv)
        return NULL;
    return kv->pool + (((size_t)layer * kv->cfg.max_pages + page) * kv->Hkv + kv_head) * kv->head_page_bytes;
}

OSCAR_DEF uint16_t *oscar_kv_sink_ptr(const oscar_kv *kv, int seq, int layer, int kv_head) {
    if (!oscar__kv_seq_ok(kv, seq) || layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return NULL;
    return kv->seqs[seq].sink + ((size_t)layer * kv->Hkv + kv_head) * 2 * kv->S0 * kv->d;
}

OSCAR_DEF uint16_t *oscar_kv_window_ptr(const oscar_kv *kv, int seq, int layer, int kv_head) {
    if (!oscar__kv_seq_ok(kv, seq) || layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return NULL;
    return kv->seqs[seq].win + ((size_t)layer * kv->Hkv + kv_head) * 2 * kv->ring * kv->d;
}

OSCAR_DEF const int *oscar_kv_block_table(const oscar_kv *kv, int seq, int *n_pages) {
    if (!oscar__kv_seq_ok(kv, seq)) {
        if (n_pages) *n_pages = 0;
        return NULL;
    }
    if (n_pages) *n_pages = kv->seqs[seq].n_pages;
    return kv->seqs[seq].pages;
}

/* offset of (layer, kv_head)'s d x d matrix in k_rot / v_rot / k_rotq / v_rotq */
static size_t oscar__kv_rot_off(const oscar_kv *kv, int layer, int kv_head) {
    return ((size_t)layer * kv->rot_heads + (kv->rot_heads > 1 ? kv_head : 0)) * kv->d * kv->d;
}

OSCAR_DEF const float *oscar_kv_rotation(const oscar_kv *kv, int layer, int kv_head, int is_v) {
    const float *base;
    if (!kv || layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return NULL;
    base = is_v ? kv->v_rot : kv->k_rot;
    if (!base) return NULL;
    return base + oscar__kv_rot_off(kv, layer, kv_head);
}

OSCAR_DEF const float *oscar_kv_query_rotation(const oscar_kv *kv, int layer, int kv_head) {
    if (!kv || layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return NULL;
    if (kv->k_qrot) return kv->k_qrot + oscar__kv_rot_off(kv, layer, kv_head);
    return oscar_kv_rotation(kv, layer, kv_head, 0);
}

static const int16_t *oscar__kv_rotq(const oscar_kv *kv, int layer, int kv_head, int is_v) {
    return (is_v ? kv->v_rotq : kv->k_rotq) + oscar__kv_rot_off(kv, layer, kv_head);
}

/* quantise (or copy) the P oldest window rows of (seq, layer) into history page `page` */
static void oscar__kv_flush(oscar_kv *kv, oscar_kv_seq *s, int layer, int page) {
    int h, t, d = kv->d, P = kv->P, half;
    float row[OSCAR_MAX_HEAD_DIM];
    for (h = 0; h < kv->Hkv; h++) {
        uint8_t *pg = oscar_kv_page_ptr(kv, layer, page, h);
        const uint16_t *win = oscar_kv_window_ptr(kv, (int)(s - kv->seqs), layer, h);
        for (half = 0; half < 2; half++) { /* K then V */
            const uint16_t *ring = win + (size_t)half * kv->ring * d;
            uint8_t *base = pg + (half ? kv->k_part : 0);
            for (t = 0; t < P; t++) {
                int slot = (s->n_hist[layer] + t) % kv->ring, i;
                const uint16_t *src = ring + (size_t)slot * d;
                if (kv->kivi && !half) { /* K per channel: gather the page, quantise below */
                    for (i = 0; i < d; i++) kv->flush_buf[(size_t)t * d + i] = oscar_bf16_to_f32(src[i]);
                } else if (kv->int2) {
                    int rc, g = half ? kv->gv : kv->g;
                    for (i = 0; i < d; i++) row[i] = oscar_bf16_to_f32(src[i]);
                    rc = oscar_int2_quantize_row_ex(base + (size_t)t * (d / 4), (uint16_t *)(void *)(base + (size_t)P * (d / 4) + (size_t)t * (d / g) * 4),
                                                    row, d, g, half ? kv->v_clip : kv->k_clip, half ? kv->v_flags : kv->k_flags);
                    OSCAR_ASSERT(rc == OSCAR_OK); /* rows were range-checked on append */
                    (void)rc;
                } else {
                    memcpy(base + (size_t)t * d * 2, src, (size_t)d * 2);
                }
            }
            if (kv->kivi && !half) {
                int rc = oscar_int2_quantize_channels(base, (uint16_t *)(void *)(base + (size_t)P * (d / 4)), kv->flush_buf, P, d);
                OSCAR_ASSERT(rc == OSCAR_OK);
                (void)rc;
            }
        }
    }
    s->n_hist[layer] += P;
}

/* the mean subtracted from the row at position pos of (layer, KV head, K|V) before it is stored,
   or NULL; with OSCAR_CENTER_ROPE the K mean is RoPE(pos) of the pre-RoPE mean, built in buf [d] */
static const float *oscar__kv_mean(const oscar_kv *kv, int layer, int kv_head, int is_v, int pos, float *buf) {
    const float *m = is_v ? kv->v_mean : kv->k_mean;
    if (!is_v && kv->k_rope_mean) {
        oscar__rope_row_f(buf, kv->k_rope_mean + ((size_t)layer * kv->Hkv + kv_head) * kv->d, kv->d, kv->rope_step, 3, pos, 0);
        return buf;
    }
    return m ? m + ((size_t)layer * kv->Hkv + kv_head) * kv->d : NULL;
}

OSCAR_DEF int oscar_kv_append(oscar_kv *kv, int seq, int layer, const float *k, const float *v, int n) {
    oscar_kv_seq *s;
    int d, Hkv, t, h, half, i, tok, hist, last_page = -1, new_pages;
    float row[OSCAR_MAX_HEAD_DIM], cen[OSCAR_MAX_HEAD_DIM], mbuf[OSCAR_MAX_HEAD_DIM];
    if (!kv) return OSCAR_ERR_NULL;
    if (!oscar__kv_seq_ok(kv, seq)) return oscar__fail(kv->msg, OSCAR_ERR_NO_SEQ, "append: no sequence %d", seq);
    if (layer < 0 || layer >= kv->L) return oscar__fail(kv->msg, OSCAR_ERR_INVALID_ARG, "append: layer %d out of range [0, %d)", layer, kv->L);
    if (n < 0) return oscar__fail(kv->msg, OSCAR_ERR_INVALID_ARG, "append: negative token count %d", n);
    if (n == 0) return OSCAR_OK;
    if (!k || !v) return oscar__fail(kv->msg, OSCAR_ERR_NULL, "append: null keys or values");
    s = &kv->seqs[seq];
    d = kv->d;
    Hkv = kv->Hkv;
    if (n > (1 << 30) - s->n_tok[layer]) return oscar__fail(kv->msg, OSCAR_ERR_RANGE, "append: sequence too long");
    /* validate everything before touching the cache */
    for (t = 0; t < n; t++)
        for (h = 0; h < Hkv; h++)
            for (half = 0; half < 2; half++) {
                const float *x = (half ? v : k) + ((size_t)t * Hkv + h) * d;
                if (!oscar__finite_f32(x, (size_t)d))
                    return oscar__fail(kv->msg, OSCAR_ERR_NONFINITE, "append: NaN or Inf in %s row of token %d, KV head %d (nothing appended)", half ? "V" : "K", t, h);
                if (kv->int2) {
                    /* the stored row's norm: |x - mu| <= |x| + |mu|, and RoPE keeps the pre-RoPE mean's
                       norm, so the mean is built (and the exact norm taken) only when that bound fails */
                    const float *m0 = half ? kv->v_mean : (kv->k_rope_mean ? kv->k_rope_mean : kv->k_mean), *mu;
                    double nrm = 0.0, mn = 0.0;
                    for (i = 0; i < d; i++) nrm += (double)x[i] * x[i];
                    if (m0)
                        for (i = 0; i < d; i++) {
                            const double c = m0[((size_t)layer * Hkv + h) * d + i];
                            mn += c * c;
                        }
                    if (m0 && sqrt(nrm) + sqrt(mn) * (1.0 + 1e-5) > 32768.0) {
                        mu = oscar__kv_mean(kv, layer, h, half, s->n_tok[layer] + t, mbuf);
                        for (i = 0, nrm = 0.0; i < d; i++) {
                            const double c = (double)(x[i] - mu[i]);
                            nrm += c * c;
                        }
                    }
                    if (nrm > 32768.0 * 32768.0)
                        return oscar__fail(kv->msg, OSCAR_ERR_RANGE, "append: %s row of token %d, KV head %d has norm %.4g > 32768, beyond the fp16 scales (nothing appended)", half ? "V" : "K", t, h, sqrt(nrm));
                }
            }
    /* pages this append will need */
    tok = s->n_tok[layer];
    hist = s->n_hist[layer];
    for (t = 0; t < n; t++) {
        tok++;
        if (tok > kv->S0 && tok - kv->S0 - hist == kv->ring) {
            last_page = hist / kv->P;
            hist += kv->P;
        }
    }
    new_pages = last_page + 1 - s->n_pages;
    if (new_pages > 0) {
        if (new_pages > kv->n_free)
            return oscar__fail(kv->msg, OSCAR_ERR_POOL_FULL, "append: needs %d new pages, %d of %d free (nothing appended)", new_pages, kv->n_free, kv->cfg.max_pages);
        if (last_page + 1 > s->cap_pages) {
            int cap = s->cap_pages ? s->cap_pages : 16;
            int *np;
            while (cap < last_page + 1) cap *= 2;
            np = (int *)OSCAR_REALLOC(s->pages, sizeof(int) * (size_t)cap);
            if (!np) return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "append: out of memory for the block table (nothing appended)");
            s->pages = np;
            s->cap_pages = cap;
        }
    }
    /* write */
    for (t = 0; t < n; t++) {
        int pos = s->n_tok[layer];
        for (h = 0; h < Hkv; h++)
            for (half = 0; half < 2; half++) {
                const float *x = (half ? v : k) + ((size_t)t * Hkv + h) * d;
                const float *R = kv->int2 ? oscar_kv_rotation(kv, layer, h, half) : NULL, *mu = oscar__kv_mean(kv, layer, h, half, pos, mbuf);
                uint16_t *dst;
                if (mu) { /* the centered row (cfg.center) */
                    for (i = 0; i < d; i++) cen[i] = x[i] - mu[i];
                    x = cen;
                }
                if (R && kv->wht) {
                    memcpy(row, x, sizeof(float) * (size_t)d);
                    oscar_wht(row, d);
                } else if (R)
                    oscar_rotate_row_q14(row, x, oscar__kv_rotq(kv, layer, h, half), d);
                else
                    memcpy(row, x, sizeof(float) * (size_t)d);
                if (pos < kv->S0) dst = oscar_kv_sink_ptr(kv, seq, layer, h) + ((size_t)half * kv->S0 + pos) * d;
                else dst = oscar_kv_window_ptr(kv, seq, layer, h) + ((size_t)half * kv->ring + (pos - kv->S0) % kv->ring) * d;
                for (i = 0; i < d; i++) dst[i] = oscar_f32_to_bf16(row[i]);
            }
        s->n_tok[layer] = ++pos;
        if (pos > kv->S0 && pos - kv->S0 - s->n_hist[layer] == kv->ring) {
            int pi = s->n_hist[layer] / kv->P;
            if (pi == s->n_pages) {
                int p = kv->free_list[--kv->n_free];
                kv->refcount[p] = 1;
                s->pages[s->n_pages++] = p;
            }
            oscar__kv_flush(kv, s, layer, s->pages[pi]);
        }
    }
    return OSCAR_OK;
}

OSCAR_DEF int oscar_kv_segments(const oscar_kv *kv, int seq, int layer, int *n_sink, int *n_hist, int *n_recent) {
    const oscar_kv_seq *s;
    int n, ns;
    if (!kv) return OSCAR_ERR_NULL;
    if (!oscar__kv_seq_ok(kv, seq)) return OSCAR_ERR_NO_SEQ;
    if (layer < 0 || layer >= kv->L) return OSCAR_ERR_INVALID_ARG;
    s = &kv->seqs[seq];
    n = s->n_tok[layer];
    ns = n < kv->S0 ? n : kv->S0;
    if (n_sink) *n_sink = ns;
    if (n_hist) *n_hist = s->n_hist[layer];
    if (n_recent) *n_recent = n - ns - s->n_hist[layer];
    return OSCAR_OK;
}

/* the stored K (half 0) or V (half 1) row of a position, as fp32 in the rotated basis */
static void oscar__kv_row(const oscar_kv *kv, int seq, int layer, int h, int pos, int half, float *out) {
    const oscar_kv_seq *s = &kv->seqs[seq];
    int d = kv->d, i;
    const uint16_t *src;
    if (pos < kv->S0) {
        src = oscar_kv_sink_ptr(kv, seq, layer, h) + ((size_t)half * kv->S0 + pos) * d;
    } else if (pos - kv->S0 < s->n_hist[layer]) {
        int r = pos - kv->S0, P = kv->P;
        const uint8_t *base = oscar_kv_page_ptr(kv, layer, s->pages[r / P], h) + (half ? kv->k_part : 0);
        int t = r % P;
        if (kv->kivi && !half) {
            oscar_int2_dequantize_channels(out, base + (size_t)t * (d / 4), (const uint16_t *)(const void *)(base + (size_t)P * (d / 4)), d);
            return;
        }
        if (kv->int2) {
            int g = half ? kv->gv : kv->g;
            oscar_int2_dequantize_row(out, base + (size_t)t * (d / 4), (const uint16_t *)(const void *)(base + (size_t)P * (d / 4) + (size_t)t * (d / g) * 4), d, g);
            return;
        }
        src = (const uint16_t *)(const void *)(base + (size_t)t * d * 2);
    } else {
        src = oscar_kv_window_ptr(kv, seq, layer, h) + ((size_t)half * kv->ring + (pos - kv->S0) % kv->ring) * d;
    }
    for (i = 0; i < d; i++) out[i] = oscar_bf16_to_f32(src[i]);
}

OSCAR_DEF int oscar_kv_read_row(const oscar_kv *kv, int seq, int layer, int kv_head, int pos, float *k, float *v) {
    if (!kv) return OSCAR_ERR_NULL;
    if (!oscar__kv_seq_ok(kv, seq)) return OSCAR_ERR_NO_SEQ;
    if (layer < 0 || layer >= kv->L || kv_head < 0 || kv_head >= kv->Hkv) return OSCAR_ERR_INVALID_ARG;
    if (pos < 0 || pos >= kv->seqs[seq].n_tok[layer]) return OSCAR_ERR_RANGE;
    if (k) oscar__kv_row(kv, seq, layer, kv_head, pos, 0, k);
    if (v) oscar__kv_row(kv, seq, layer, kv_head, pos, 1, v);
    return OSCAR_OK;
}

OSCAR_DEF int oscar_kv_memory_usage(const oscar_kv *kv, int seq, oscar_kv_memory *m) {
    int l, i, s0, s1;
    size_t row_bf16, row_codes, page_scales;
    double elems = 0.0;
    if (!kv || !m) return OSCAR_ERR_NULL;
    if (seq >= 0 && !oscar__kv_seq_ok(kv, seq)) return OSCAR_ERR_NO_SEQ;
    memset(m, 0, sizeof(*m));
    row_bf16 = (size_t)kv->Hkv * 2 * kv->d * 2; /* one token, one layer, K and V */
    row_codes = (size_t)kv->Hkv * 2 * (kv->d / 4);
    page_scales = kv->int2 ? (size_t)kv->Hkv * (kv->head_page_bytes - 2 * (size_t)kv->P * (kv->d / 4)) : 0; /* one page, one layer */
    s0 = seq >= 0 ? seq : 0;
    s1 = seq >= 0 ? seq + 1 : kv->cfg.max_seqs;
    for (i = s0; i < s1; i++) {
        const oscar_kv_seq *s = &kv->seqs[i];
        if (!s->used) continue;
        m->n_tokens += s->n_tok[0];
        for (l = 0; l < kv->L; l++) {
            int n = s->n_tok[l], ns = n < kv->S0 ? n : kv->S0, nh = s->n_hist[l], nw = n - ns - nh;
            if (l == 0) {
                m->n_sink += ns;
                m->n_history += nh;
                m->n_window += nw;
            }
            m->sink_bytes += (size_t)ns * row_bf16;
            m->window_bytes += (size_t)nw * row_bf16;
            elems += (double)n * kv->Hkv * 2 * kv->d;
            if (seq >= 0) { /* pages counted per sequence; the whole cache counts them once below */
                if (kv->int2) {
                    m->code_bytes += (size_t)nh * row_codes;
                    m->scale_bytes += (size_t)(nh / kv->P) * page_scales;
                } else {
                    m->history_bf16_bytes += (size_t)nh * row_bf16;
                }
            }
        }
    }
    if (seq < 0) { /* distinct pages in use, each a full page of every layer */
        size_t used = (size_t)(kv->cfg.max_pages - kv->n_free) * kv->P * kv->L;
        if (kv->int2) {
            m->code_bytes = used * row_codes;
            m->scale_bytes = used / kv->P * page_scales;
        } else {
            m->history_bf16_bytes = used * row_bf16;
        }
    }
    m->total_bytes = m->sink_bytes + m->window_bytes + m->code_bytes + m->scale_bytes + m->history_bf16_bytes;
    m->bf16_equiv_bytes = (size_t)(elems * 2.0);
    m->bytes_per_token = m->n_tokens ? (double)m->total_bytes / (double)m->n_tokens : 0.0;
    m->bits_per_element = elems > 0 ? (double)m->total_bytes * 8.0 / elems : 0.0;
    m->history_bits_per_element = (double)kv->head_page_bytes * 8.0 / (2.0 * kv->P * kv->d);
    return OSCAR_OK;
}

/* >>attn ------------------------------------------------------------------------------------- */
/* running softmax state of one query head: max m, sum l, accumulator acc[d] */
typedef struct oscar__softmax {
    double m, l;
    double *acc;
} oscar__softmax;

static void oscar__sm_reset(oscar__softmax *st, int d) {
    st->m = -INFINITY;
    st->l = 0.0;
    memset(st->acc, 0, sizeof(double) * (size_t)d);
}

static void oscar__sm_add(oscar__softmax *st, double s, const float *v, int d) {
    int i;
    if (s > st->m) {
        double c = exp(st->m - s); /* 0 when m = -inf */
        st->l *= c;
        for (i = 0; i < d; i++) st->acc[i] *= c;
        st->m = s;
    }
    {
        double p = exp(s - st->m);
        st->l += p;
        for (i = 0; i < d; i++) st->acc[i] += p * v[i];
    }
}

/* log-sum-exp merge: dst <- dst (+) src */
static void oscar__sm_merge(oscar__softmax *dst, const oscar__softmax *src, int d) {
    double m, a, b;
    int i;
    if (src->l == 0.0) return;
    m = dst->m > src->m ? dst->m : src->m;
    a = dst->l == 0.0 ? 0.0 : exp(dst->m - m);
    b = exp(src->m - m);
    for (i = 0; i < d; i++) dst->acc[i] = dst->acc[i] * a + src->acc[i] * b;
    dst->l = dst->l * a + src->l * b;
    dst->m = m;
}

static double oscar__dot(const float *a, const float *b, int d) {
    double s = 0.0;
    int i;
    for (i = 0; i < d; i++) s += (double)a[i] * b[i];
    return s;
}

OSCAR_DEF void oscar_attend_rows(float *out, double *lse, const float *q, const float *k, const float *v, int n, int d, int stride, float scale) {
    double accbuf[OSCAR_MAX_HEAD_DIM];
    oscar__softmax st;
    int t, i;
    if (!out || !q || (n > 0 && (!k || !v)) || d < 1 || d > OSCAR_MAX_HEAD_DIM || stride < d) return;
    st.acc = accbuf;
    oscar__sm_reset(&st, d);
    for (t = 0; t < n; t++) oscar__sm_add(&st, oscar__dot(q, k + (size_t)t * stride, d) * scale, v + (size_t)t * stride, d);
    for (i = 0; i < d; i++) out[i] = st.l > 0.0 ? (float)(st.acc[i] / st.l) : 0.0f;
    if (lse) *lse = st.l > 0.0 ? st.m + log(st.l) : -INFINITY;
}

#define OSCAR__CHUNK 32 /* tokens decoded at a time by the reference attention */
#define OSCAR__LANES 16 /* independent partial sums of a dot product (vector lanes) */

/* dot product of fp32 rows in double, in OSCAR__LANES interleaved partial sums (they vectorise)
   added pairwise at the end */
static double oscar__dot_lanes(const float *a, const float *b, int d) {
    double acc[OSCAR__LANES], s = 0.0;
    int i, l;
    if (d % OSCAR__LANES) {
        for (i = 0; i < d; i++) s += (double)a[i] * b[i];
        return s;
    }
    for (l = 0; l < OSCAR__LANES; l++) acc[l] = (double)a[l] * b[l];
    for (i = OSCAR__LANES; i < d; i += OSCAR__LANES)
        for (l = 0; l < OSCAR__LANES; l++) acc[l] += (double)a[i + l] * b[i + l];
    for (l = 0; l < OSCAR__LANES / 2; l++) acc[l] += acc[l + OSCAR__LANES / 2];
    for (l = 0; l < OSCAR__LANES / 4; l++) acc[l] += acc[l + OSCAR__LANES / 4];
    return (acc[0] + acc[2]) + (acc[1] + acc[3]);
}

/* OSCAR_CENTER_ROPE: the score term q . RoPE(p) mu that the stored rows left out, for the next cn
   tokens and G heads: sum_i A_i cos(p theta_i) + B_i sin(p theta_i) with ab[g] = (A, B) from the
   unrotated query (oscar_kv_attend). cs, sn [d/2] hold cos / sin of p theta_i for the first token
   (exact values at the start of a range, oscar__attend_range) and advance by the angle-sum recurrence
   (double: after 2^17 steps the angles are off by ~1e-11). corr: [G][OSCAR__CHUNK] */
static void oscar__rope_corr(const oscar_kv *kv, int cn, const double *ab, int G, double *corr, double *cs, double *sn) {
    const double *st = kv->rope_step;
    int h = kv->d / 2, i, c, g;
    for (c = 0; c < cn; c++) {
        for (g = 0; g < G; g++) {
            const double *A = ab + (size_t)g * kv->d, *B = A + h;
            double acc = 0.0;
            for (i = 0; i < h; i++) acc += A[i] * cs[i] + B[i] * sn[i];
            corr[(size_t)g * OSCAR__CHUNK + c] = acc;
        }
        for (i = 0; i < h; i++) {
            const double c2 = cs[i] * st[3 * i + 1] - sn[i] * st[3 * i + 2];
            sn[i] = sn[i] * st[3 * i + 1] + cs[i] * st[3 * i + 2];
            cs[i] = c2;
        }
    }
}

/* adds tokens [a, b) of one KV head to the partial softmax states of its G query heads: rows are
   decoded a chunk at a time (row-major, so the dot products and the P.V loop vectorise over the
   head dim); arithmetic in double with one rescale per chunk. In double the result equals plain
   attention over the same rows to the last bit of fp32 in practice (tests/test_model.c checks the
   whole model's logits); fp32 products here move a 30-layer model's logits by ~1e-3. */
static void oscar__attend_range(const oscar_kv *kv, int seq, int layer, int j, int a, int b, const float *qf, int G, float scale,
                                oscar__softmax *part, float *Kc, float *Vc, const double *ab, double *corr) {
    int d = kv->d, pos, c, g, i;
    double sc[OSCAR__CHUNK], pc[OSCAR__CHUNK], o[OSCAR_MAX_HEAD_DIM], cs[OSCAR_MAX_HEAD_DIM / 2], sn[OSCAR_MAX_HEAD_DIM / 2];
    for (i = 0; ab && i < d / 2; i++) { /* the RoPE angles of token a, exact; the chunks advance them */
        cs[i] = cos((double)a * kv->rope_step[3 * i]);
        sn[i] = sin((double)a * kv->rope_step[3 * i]);
    }
    for (pos = a; pos < b; pos += OSCAR__CHUNK) {
        int cn = b - pos < OSCAR__CHUNK ? b - pos : OSCAR__CHUNK;
        for (c = 0; c < cn; c++) {
            oscar__kv_row(kv, seq, layer, j, pos + c, 0, Kc + (size_t)c * d);
            oscar__kv_row(kv, seq, layer, j, pos + c, 1, Vc + (size_t)c * d);
        }
        if (ab) oscar__rope_corr(kv, cn, ab, G, corr, cs, sn);
        for (g = 0; g < G; g++) {
            const float *qg = qf + (size_t)g * d;
            oscar__softmax *st = &part[g];
            double mx = -INFINITY, l = 0.0;
            for (c = 0; c < cn; c++) {
                sc[c] = ab ? (oscar__dot_lanes(qg, Kc + (size_t)c * d, d) + corr[(size_t)g * OSCAR__CHUNK + c]) * scale
                           : oscar__dot_lanes(qg, Kc + (size_t)c * d, d) * scale;
                if (sc[c] > mx) mx = sc[c];
            }
            if (mx > st->m) {
                double corr = st->l == 0.0 ? 0.0 : exp(st->m - mx);
                st->l *= corr;
                for (i = 0; i < d; i++) st->acc[i] *= corr;
                st->m = mx;
            }
            for (c = 0; c < cn; c++) {
                pc[c] = exp(sc[c] - st->m);
                l += pc[c];
            }
            for (i = 0; i < d; i++) o[i] = 0.0;
            for (c = 0; c < cn; c++) {
                const float *vr = Vc + (size_t)c * d;
                double p = pc[c];
                for (i = 0; i < d; i++) o[i] += p * vr[i];
            }
            st->l += l;
            for (i = 0; i < d; i++) st->acc[i] += o[i];
        }
    }
}

OSCAR_DEF int oscar_kv_attend(oscar_kv *kv, int seq, int layer, float *out, const float *q, int n_q_heads, float scale) {
    int d, G, j, g, i, seg, n, ns = 0, nh = 0;
    float *qr, *Kc, *Vc, *orot;
    double *dbl, *ab = NULL, *corr = NULL;
    oscar__softmax *tot, *part;
    if (!kv) return OSCAR_ERR_NULL;
    if (!out || !q) return oscar__fail(kv->msg, OSCAR_ERR_NULL, "attend: null query or output");
    if (!oscar__kv_seq_ok(kv, seq)) return oscar__fail(kv->msg, OSCAR_ERR_NO_SEQ, "attend: no sequence %d", seq);
    if (layer < 0 || layer >= kv->L) return oscar__fail(kv->msg, OSCAR_ERR_INVALID_ARG, "attend: layer %d out of range [0, %d)", layer, kv->L);
    if (n_q_heads < 1 || n_q_heads % kv->Hkv)
        return oscar__fail(kv->msg, OSCAR_ERR_SHAPE, "attend: GQA mismatch: %d query heads for %d KV heads", n_q_heads, kv->Hkv);
    if (!oscar__finite_f32(q, (size_t)n_q_heads * kv->d)) return oscar__fail(kv->msg, OSCAR_ERR_NONFINITE, "attend: NaN or Inf in the query");
    if (!(scale >= 0.0f) || !oscar__finite_f32(&scale, 1)) return oscar__fail(kv->msg, OSCAR_ERR_RANGE, "attend: scale must be finite and >= 0");
    n = kv->seqs[seq].n_tok[layer];
    if (n == 0) return oscar__fail(kv->msg, OSCAR_ERR_STATE, "attend: sequence %d layer %d holds no tokens", seq, layer);
    d = kv->d;
    G = n_q_heads / kv->Hkv;
    if (scale == 0.0f) scale = (float)(1.0 / sqrt((double)d));
    if (G > kv->scratch_g) {
        /* [2G] softmax states; doubles: [2G][d] accumulators, [G][d] (A, B) and [G][CHUNK] score terms
           of OSCAR_CENTER_ROPE; floats: [G][d] rotated query, [CHUNK][d] keys, [CHUNK][d] values, [d] output */
        size_t bytes = sizeof(oscar__softmax) * 2 * (size_t)G + sizeof(double) * (3 * (size_t)G * d + (size_t)G * OSCAR__CHUNK) +
                       sizeof(float) * ((size_t)G * d + 2 * (size_t)OSCAR__CHUNK * d + (size_t)d);
        double *p = (double *)OSCAR_REALLOC(kv->scratch, bytes);
        if (!p) return oscar__fail(kv->msg, OSCAR_ERR_NOMEM, "attend: out of memory for scratch");
        kv->scratch = p;
        kv->scratch_g = G;
    }
    tot = (oscar__softmax *)(void *)kv->scratch;
    part = tot + G;
    dbl = (double *)(void *)(part + G);
    if (kv->k_rope_mean) {
        ab = dbl + (size_t)2 * G * d;
        corr = ab + (size_t)G * d;
    }
    qr = (float *)(void *)(dbl + (size_t)3 * G * d + (size_t)G * OSCAR__CHUNK);
    Kc = qr + (size_t)G * d;
    Vc = Kc + (size_t)OSCAR__CHUNK * d;
    orot = Vc + (size_t)OSCAR__CHUNK * d;
    for (g = 0; g < G; g++) {
        tot[g].acc = dbl + (size_t)g * d;
        part[g].acc = dbl + (size_t)(G + g) * d;
    }
    oscar_kv_segments(kv, seq, layer, &ns, &nh, NULL);
    for (j = 0; j < kv->Hkv; j++) {
        const float *Rk = oscar_kv_query_rotation(kv, layer, j), *Rv = oscar_kv_rotation(kv, layer, j, 1);
        for (g = 0; g < G; g++) {
            const float *qh = q + (size_t)(j * G + g) * d;
            if (Rk) oscar_rotate_rows(qr + (size_t)g * d, qh, Rk, 1, d, 0);
            else memcpy(qr + (size_t)g * d, qh, sizeof(float) * (size_t)d);
            oscar__sm_reset(&tot[g], d);
            if (ab) { /* q . RoPE(p) mu = sum_i A_i cos(p theta_i) + B_i sin(p theta_i), pairs (i, i + d/2) */
                const float *mu = kv->k_rope_mean + ((size_t)layer * kv->Hkv + j) * d;
                double *A = ab + (size_t)g * d, *B = A + d / 2;
                for (i = 0; i < d / 2; i++) {
                    A[i] = (double)qh[i] * mu[i] + (double)qh[i + d / 2] * mu[i + d / 2];
                    B[i] = (double)qh[i + d / 2] * mu[i] - (double)qh[i] * mu[i + d / 2];
                }
            }
        }
        /* segments: sink [0, ns), history [ns, ns + nh), recent [ns + nh, n); one partial each,
           merged by log-sum-exp as a split kernel would */
        for (seg = 0; seg < 3; seg++) {
            int a = seg == 0 ? 0 : (seg == 1 ? ns : ns + nh);
            int b = seg == 0 ? ns : (seg == 1 ? ns + nh : n);
            if (a == b) continue;
            for (g = 0; g < G; g++) oscar__sm_reset(&part[g], d);
            oscar__attend_range(kv, seq, layer, j, a, b, qr, G, scale, part, Kc, Vc, ab, corr);
            for (g = 0; g < G; g++) oscar__sm_merge(&tot[g], &part[g], d);
        }
        for (g = 0; g < G; g++) {
            float *oh = out + (size_t)(j * G + g) * d;
            for (i = 0; i < d; i++) orot[i] = (float)(tot[g].acc[i] / tot[g].l);
            if (Rv && !kv->cfg.absorb_v) oscar_rotate_rows(oh, orot, Rv, 1, d, 1);
            else memcpy(oh, orot, sizeof(float) * (size_t)d);
            if (kv->v_mean_out) { /* the V mean the rows were stored without (the weights sum to 1) */
                const float *mo = kv->v_mean_out + ((size_t)layer * kv->Hkv + j) * d;
                for (i = 0; i < d; i++) oh[i] += mo[i];
            }
        }
    }
    return OSCAR_OK;
}

/* >>safetensors ------------------------------------------------------------------------------ */
static const char *const oscar__dtype_names[OSCAR_DTYPE_COUNT] = {"F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL"};
static const unsigned char oscar__dtype_sizes[OSCAR_DTYPE_COUNT] = {4, 2, 2, 8, 8, 4, 2, 1, 1, 1};

OSCAR_DEF const char *oscar_dtype_name(int dtype) { return dtype >= 0 && dtype < OSCAR_DTYPE_COUNT ? oscar__dtype_names[dtype] : "?"; }
OSCAR_DEF size_t oscar_dtype_size(int dtype) { return dtype >= 0 && dtype < OSCAR_DTYPE_COUNT ? oscar__dtype_sizes[dtype] : 0; }

OSCAR_DEF int64_t oscar_st_numel(const oscar_st_tensor *t) {
    int64_t n = 1;
    int i;
    if (!t) return 0;
    for (i = 0; i < t->ndim; i++) n *= t->shape[i];
    return n;
}

/* a strict little JSON reader for the safetensors header */
typedef struct oscar__json {
    const char *p, *end, *start;
    char *msg;
    const char *file;
} oscar__json;

static void oscar__ws(oscar__json *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int oscar__jerr(oscar__json *j, const char *what) {
    return oscar__fail(j->msg, OSCAR_ERR_FORMAT, "%s: JSON header: %s at byte %ld", j->file, what, (long)(j->p - j->start) + 8);
}

static int oscar__expect(oscar__json *j, char c) {
    oscar__ws(j);
    if (j->p >= j->end || *j->p != c) {
        char what[32];
        snprintf(what, sizeof what, "expected '%c'", c);
        return oscar__jerr(j, what);
    }
    j->p++;
    return OSCAR_OK;
}

static int oscar__hex4(const char *p, unsigned *out) {
    int i;
    unsigned v = 0;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

/* parses a JSON string into a new heap string (UTF-8) */
static int oscar__jstring(oscar__json *j, char **out) {
    const char *s;
    char *buf, *w;
    *out = NULL;
    oscar__ws(j);
    if (j->p >= j->end || *j->p != '"') return oscar__jerr(j, "expected a string");
    s = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\') j->p++;
        j->p++;
    }
    if (j->p >= j->end) return oscar__jerr(j, "unterminated string");
    buf = w = (char *)OSCAR_MALLOC((size_t)(j->p - s) + 1);
    if (!buf) return oscar__fail(j->msg, OSCAR_ERR_NOMEM, "%s: out of memory", j->file);
    while (s < j->p) {
        unsigned char c = (unsigned char)*s++;
        if (c < 0x20) { OSCAR_FREE(buf); return oscar__jerr(j, "control character in string"); }
        if (c != '\\') { *w++ = (char)c; continue; }
        c = (unsigned char)*s++;
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (j->p - s < 4 || !oscar__hex4(s, &cp)) { OSCAR_FREE(buf); return oscar__jerr(j, "bad \\u escape"); }
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (j->p - s < 6 || s[0] != '\\' || s[1] != 'u' || !oscar__hex4(s + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                    OSCAR_FREE(buf);
                    return oscar__jerr(j, "bad surrogate pair");
                }
                s += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                OSCAR_FREE(buf);
                return oscar__jerr(j, "lone low surrogate");
            }
            if (cp == 0) { OSCAR_FREE(buf); return oscar__jerr(j, "NUL in string"); }
            if (cp < 0x80) *w++ = (char)cp;
            else if (cp < 0x800) { *w++ = (char)(0xC0 | (cp >> 6)); *w++ = (char)(0x80 | (cp & 0x3F)); }
            else if (cp < 0x10000) { *w++ = (char)(0xE0 | (cp >> 12)); *w++ = (char)(0x80 | ((cp >> 6) & 0x3F)); *w++ = (char)(0x80 | (cp & 0x3F)); }
            else { *w++ = (char)(0xF0 | (cp >> 18)); *w++ = (char)(0x80 | ((cp >> 12) & 0x3F)); *w++ = (char)(0x80 | ((cp >> 6) & 0x3F)); *w++ = (char)(0x80 | (cp & 0x3F)); }
            break;
        }
        default: OSCAR_FREE(buf); return oscar__jerr(j, "bad escape");
        }
    }
    *w = 0;
    j->p++;
    *out = buf;
    return OSCAR_OK;
}

static int oscar__juint(oscar__json *j, uint64_t *out) {
    uint64_t v = 0;
    const char *s;
    oscar__ws(j);
    s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        unsigned dgt = (unsigned)(*j->p - '0');
        if (v > (UINT64_MAX - dgt) / 10) return oscar__jerr(j, "integer overflow");
        v = v * 10 + dgt;
        j->p++;
    }
    if (j->p == s) return oscar__jerr(j, "expected a non-negative integer");
    if (j->p - s > 1 && *s == '0') return oscar__jerr(j, "leading zero in integer");
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) return oscar__jerr(j, "expected an integer");
    *out = v;
    return OSCAR_OK;
}

/* peek: next non-space character, 0 at the end */
static char oscar__peek(oscar__json *j) {
    oscar__ws(j);
    return j->p < j->end ? *j->p : 0;
}

/* [u, u, ...] up to max items; returns count in *n */
static int oscar__juint_array(oscar__json *j, uint64_t *vals, int max, int *n) {
    int rc;
    *n = 0;
    if ((rc = oscar__expect(j, '[')) != OSCAR_OK) return rc;
    if (oscar__peek(j) == ']') { j->p++; return OSCAR_OK; }
    for (;;) {
        if (*n >= max) return oscar__jerr(j, "too many array items");
        if ((rc = oscar__juint(j, &vals[(*n)++])) != OSCAR_OK) return rc;
        if (oscar__peek(j) == ',') { j->p++; continue; }
        return oscar__expect(j, ']');
    }
}

static int oscar__st_tensor(oscar__json *j, oscar_st_tensor *t) {
    int rc, have_dtype = 0, have_shape = 0, have_off = 0, n, i;
    uint64_t vals[OSCAR_ST_MAX_DIMS + 1];
    char *key = NULL;
    if ((rc = oscar__expect(j, '{')) != OSCAR_OK) return rc;
    if (oscar__peek(j) == '}') return oscar__fail(j->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s' has no fields", j->file, t->name);
    for (;;) {
        if ((rc = oscar__jstring(j, &key)) != OSCAR_OK) return rc;
        if ((rc = oscar__expect(j, ':')) != OSCAR_OK) goto fail;
        if (!strcmp(key, "dtype") && !have_dtype) {
            char *dt = NULL;
            if ((rc = oscar__jstring(j, &dt)) != OSCAR_OK) goto fail;
            t->dtype = -1;
            for (i = 0; i < OSCAR_DTYPE_COUNT; i++)
                if (!strcmp(dt, oscar__dtype_names[i])) t->dtype = i;
            if (t->dtype < 0) {
                rc = oscar__fail(j->msg, OSCAR_ERR_DTYPE, "%s: tensor '%s' has unsupported dtype '%s'", j->file, t->name, dt);
                OSCAR_FREE(dt);
                goto fail;
            }
            OSCAR_FREE(dt);
            have_dtype = 1;
        } else if (!strcmp(key, "shape") && !have_shape) {
            if ((rc = oscar__juint_array(j, vals, OSCAR_ST_MAX_DIMS, &n)) != OSCAR_OK) goto fail;
            t->ndim = n;
            for (i = 0; i < n; i++) {
                if (vals[i] > (uint64_t)1 << 40) { rc = oscar__fail(j->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s' has an absurd dimension", j->file, t->name); goto fail; }
                t->shape[i] = (int64_t)vals[i];
            }
            have_shape = 1;
        } else if (!strcmp(key, "data_offsets") && !have_off) {
            if ((rc = oscar__juint_array(j, vals, 2, &n)) != OSCAR_OK) goto fail;
            if (n != 2) { rc = oscar__fail(j->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s': data_offsets needs 2 values", j->file, t->name); goto fail; }
            t->begin = vals[0];
            t->end = vals[1];
            have_off = 1;
        } else {
            rc = oscar__fail(j->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s': unexpected or repeated field '%s'", j->file, t->name, key);
            goto fail;
        }
        OSCAR_FREE(key);
        key = NULL;
        if (oscar__peek(j) == ',') { j->p++; continue; }
        if ((rc = oscar__expect(j, '}')) != OSCAR_OK) return rc;
        break;
    }
    if (!have_dtype || !have_shape || !have_off)
        return oscar__fail(j->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s' lacks dtype, shape or data_offsets", j->file, t->name);
    return OSCAR_OK;
fail:
    OSCAR_FREE(key);
    return rc;
}

static int oscar__st_parse_header(oscar_st *st, oscar__json *j) {
    int rc, cap = 0, mcap = 0;
    char *key = NULL;
    if ((rc = oscar__expect(j, '{')) != OSCAR_OK) return rc;
    if (oscar__peek(j) == '}') { j->p++; return OSCAR_OK; }
    for (;;) {
        if ((rc = oscar__jstring(j, &key)) != OSCAR_OK) return rc;
        if ((rc = oscar__expect(j, ':')) != OSCAR_OK) goto fail;
        if (!strcmp(key, "__metadata__")) {
            OSCAR_FREE(key);
            key = NULL;
            if (st->meta) return oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: duplicate __metadata__", st->name);
            st->meta = (char **)OSCAR_MALLOC(sizeof(char *) * 2 * 8);
            if (!st->meta) return OSCAR_ERR_NOMEM;
            mcap = 8;
            if ((rc = oscar__expect(j, '{')) != OSCAR_OK) return rc;
            if (oscar__peek(j) == '}') j->p++;
            else
                for (;;) {
                    char *k = NULL, *v = NULL;
                    int i;
                    if ((rc = oscar__jstring(j, &k)) != OSCAR_OK) return rc;
                    if ((rc = oscar__expect(j, ':')) != OSCAR_OK || (rc = oscar__jstring(j, &v)) != OSCAR_OK) {
                        OSCAR_FREE(k);
                        if (rc == OSCAR_ERR_FORMAT) snprintf(st->msg, OSCAR_MSG_SIZE, "%s: __metadata__ values must be strings", st->name);
                        return rc;
                    }
                    for (i = 0; i < st->n_meta; i++)
                        if (!strcmp(st->meta[2 * i], k)) {
                            rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: duplicate metadata key '%s'", st->name, k);
                            OSCAR_FREE(k);
                            OSCAR_FREE(v);
                            return rc;
                        }
                    if (st->n_meta == mcap) {
                        char **nm = (char **)OSCAR_REALLOC(st->meta, sizeof(char *) * 4 * (size_t)mcap);
                        if (!nm) { OSCAR_FREE(k); OSCAR_FREE(v); return OSCAR_ERR_NOMEM; }
                        st->meta = nm;
                        mcap *= 2;
                    }
                    st->meta[2 * st->n_meta] = k;
                    st->meta[2 * st->n_meta + 1] = v;
                    st->n_meta++;
                    if (oscar__peek(j) == ',') { j->p++; continue; }
                    if ((rc = oscar__expect(j, '}')) != OSCAR_OK) return rc;
                    break;
                }
        } else {
            oscar_st_tensor *t;
            if (st->n_tensors == cap) {
                int ncap = cap ? cap * 2 : 16;
                oscar_st_tensor *nt = (oscar_st_tensor *)OSCAR_REALLOC(st->tensors, sizeof(oscar_st_tensor) * (size_t)ncap);
                if (!nt) { rc = OSCAR_ERR_NOMEM; goto fail; }
                st->tensors = nt;
                cap = ncap;
            }
            t = &st->tensors[st->n_tensors++];
            memset(t, 0, sizeof(*t));
            t->name = key;
            key = NULL;
            if ((rc = oscar__st_tensor(j, t)) != OSCAR_OK) return rc;
        }
        if (oscar__peek(j) == ',') { j->p++; continue; }
        if ((rc = oscar__expect(j, '}')) != OSCAR_OK) return rc;
        break;
    }
    oscar__ws(j);
    if (j->p != j->end) return oscar__jerr(j, "trailing bytes after the header object");
    return OSCAR_OK;
fail:
    OSCAR_FREE(key);
    return rc;
}

static int oscar__cmp_begin(const void *a, const void *b) {
    const oscar_st_tensor *x = *(const oscar_st_tensor *const *)a, *y = *(const oscar_st_tensor *const *)b;
    return x->begin < y->begin ? -1 : (x->begin > y->begin ? 1 : (x->end < y->end ? -1 : x->end > y->end));
}

static int oscar__cmp_name(const void *a, const void *b) {
    return strcmp((*(const oscar_st_tensor *const *)a)->name, (*(const oscar_st_tensor *const *)b)->name);
}

OSCAR_DEF int oscar_st_parse(oscar_st *st, const void *bytes, size_t size, const char *name) {
    uint64_t hlen = 0;
    oscar__json j;
    oscar_st_tensor **order = NULL;
    int i, rc;
    if (!st) return OSCAR_ERR_NULL;
    memset(st, 0, sizeof(*st));
    snprintf(st->name, sizeof st->name, "%s", name ? name : "<memory>");
    if (!bytes && size) return oscar__fail(st->msg, OSCAR_ERR_NULL, "%s: null buffer", st->name);
    if (size < 8) return oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: %zu bytes is too short for a safetensors file (8-byte header length)", st->name, size);
    for (i = 7; i >= 0; i--) hlen = (hlen << 8) | ((const uint8_t *)bytes)[i];
    if (hlen > 100000000u) return oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: header length %llu exceeds the 100 MB limit", st->name, (unsigned long long)hlen);
    if (hlen < 2 || hlen > size - 8) return oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: header length %llu does not fit a %zu-byte file", st->name, (unsigned long long)hlen, size);
    st->bytes = (uint8_t *)OSCAR_MALLOC(size);
    if (!st->bytes) return oscar__fail(st->msg, OSCAR_ERR_NOMEM, "%s: out of memory (%zu bytes)", st->name, size);
    memcpy(st->bytes, bytes, size);
    st->size = size;
    st->data = st->bytes + 8 + hlen;
    st->data_size = size - 8 - (size_t)hlen;
    j.p = (const char *)st->bytes + 8;
    j.end = j.p + hlen;
    j.start = j.p;
    j.msg = st->msg;
    j.file = st->name;
    rc = oscar__st_parse_header(st, &j);
    if (rc == OSCAR_ERR_NOMEM) oscar__fail(st->msg, rc, "%s: out of memory while parsing the header", st->name);
    if (rc != OSCAR_OK) goto fail;
    if (st->n_tensors) {
        order = (oscar_st_tensor **)OSCAR_MALLOC(sizeof(*order) * (size_t)st->n_tensors);
        if (!order) { rc = oscar__fail(st->msg, OSCAR_ERR_NOMEM, "%s: out of memory", st->name); goto fail; }
    }
    for (i = 0; i < st->n_tensors; i++) {
        oscar_st_tensor *t = &st->tensors[i];
        uint64_t bytes_needed = oscar__dtype_sizes[t->dtype];
        int k;
        for (k = 0; k < t->ndim; k++) {
            if (t->shape[k] && bytes_needed > UINT64_MAX / (uint64_t)t->shape[k]) {
                rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s': shape overflows", st->name, t->name);
                goto fail;
            }
            bytes_needed *= (uint64_t)t->shape[k];
        }
        if (t->begin > t->end || t->end > st->data_size) {
            rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s': data_offsets [%llu, %llu] out of the %zu-byte data buffer", st->name, t->name,
                             (unsigned long long)t->begin, (unsigned long long)t->end, st->data_size);
            goto fail;
        }
        if (t->end - t->begin != bytes_needed) {
            rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s': %llu bytes for a %s tensor of %llu bytes", st->name, t->name,
                             (unsigned long long)(t->end - t->begin), oscar__dtype_names[t->dtype], (unsigned long long)bytes_needed);
            goto fail;
        }
        order[i] = t;
    }
    if (st->n_tensors) {
        uint64_t at = 0;
        qsort(order, (size_t)st->n_tensors, sizeof(*order), oscar__cmp_name);
        for (i = 1; i < st->n_tensors; i++)
            if (!strcmp(order[i]->name, order[i - 1]->name)) {
                rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: duplicate tensor name '%s'", st->name, order[i]->name);
                goto fail;
            }
        qsort(order, (size_t)st->n_tensors, sizeof(*order), oscar__cmp_begin);
        for (i = 0; i < st->n_tensors; i++) {
            if (order[i]->begin != at) {
                rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: tensor '%s' starts at %llu, expected %llu (%s)", st->name, order[i]->name,
                                 (unsigned long long)order[i]->begin, (unsigned long long)at, order[i]->begin < at ? "overlap" : "hole");
                goto fail;
            }
            at = order[i]->end;
        }
        if (at != st->data_size) {
            rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: tensors cover %llu of %zu data bytes", st->name, (unsigned long long)at, st->data_size);
            goto fail;
        }
    } else if (st->data_size) {
        rc = oscar__fail(st->msg, OSCAR_ERR_FORMAT, "%s: %zu data bytes but no tensors", st->name, st->data_size);
        goto fail;
    }
    OSCAR_FREE(order);
    return OSCAR_OK;
fail : {
    char keep[OSCAR_MSG_SIZE];
    memcpy(keep, st->msg, sizeof keep);
    OSCAR_FREE(order);
    oscar_st_close(st);
    memcpy(st->msg, keep, sizeof keep);
    return rc;
}
}

OSCAR_DEF int oscar_st_open(oscar_st *st, const char *path) {
    FILE *f;
    long sz;
    void *buf;
    int rc;
    if (!st) return OSCAR_ERR_NULL;
    memset(st, 0, sizeof(*st));
    if (!path) return oscar__fail(st->msg, OSCAR_ERR_NULL, "st_open: null path");
    f = fopen(path, "rb");
    if (!f) return oscar__fail(st->msg, OSCAR_ERR_IO, "%s: cannot open", path);
    if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return oscar__fail(st->msg, OSCAR_ERR_IO, "%s: cannot determine the size", path);
    }
    buf = OSCAR_MALLOC(sz ? (size_t)sz : 1);
    if (!buf) {
        fclose(f);
        return oscar__fail(st->msg, OSCAR_ERR_NOMEM, "%s: out of memory (%ld bytes)", path, sz);
    }
    if (sz && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        OSCAR_FREE(buf);
        fclose(f);
        return oscar__fail(st->msg, OSCAR_ERR_IO, "%s: read failed", path);
    }
    fclose(f);
    rc = oscar_st_parse(st, buf, (size_t)sz, path);
    OSCAR_FREE(buf);
    return rc;
}

OSCAR_DEF void oscar_st_close(oscar_st *st) {
    int i;
    if (!st) return;
    for (i = 0; i < st->n_tensors; i++) OSCAR_FREE(st->tensors[i].name);
    for (i = 0; i < 2 * st->n_meta; i++) OSCAR_FREE(st->meta[i]);
    OSCAR_FREE(st->tensors);
    OSCAR_FREE(st->meta);
    OSCAR_FREE(st->bytes);
    st->tensors = NULL;
    st->meta = NULL;
    st->bytes = NULL;
    st->data = NULL;
    st->n_tensors = st->n_meta = 0;
    st->size = st->data_size = 0;
}

OSCAR_DEF const oscar_st_tensor *oscar_st_find(const oscar_st *st, const char *name) {
    int i;
    if (!st || !name) return NULL;
    for (i = 0; i < st->n_tensors; i++)
        if (!strcmp(st->tensors[i].name, name)) return &st->tensors[i];
    return NULL;
}

OSCAR_DEF const char *oscar_st_meta(const oscar_st *st, const char *key) {
    int i;
    if (!st || !key) return NULL;
    for (i = 0; i < st->n_meta; i++)
        if (!strcmp(st->meta[2 * i], key)) return st->meta[2 * i + 1];
    return NULL;
}

OSCAR_DEF int oscar_st_read_f32(oscar_st *st, const oscar_st_tensor *t, float *out, int check_finite) {
    const uint8_t *src;
    int64_t n, i;
    if (!st) return OSCAR_ERR_NULL;
    if (!t || !out) return oscar__fail(st->msg, OSCAR_ERR_NULL, "%s: st_read_f32: null tensor or output", st->name);
    if (t->dtype != OSCAR_F32 && t->dtype != OSCAR_F16 && t->dtype != OSCAR_BF16)
        return oscar__fail(st->msg, OSCAR_ERR_DTYPE, "%s: tensor '%s' is %s; expected F32, F16 or BF16", st->name, t->name, oscar__dtype_names[t->dtype]);
    src = st->data + t->begin;
    n = oscar_st_numel(t);
    for (i = 0; i < n; i++) {
        const uint8_t *b = src + (size_t)i * oscar__dtype_sizes[t->dtype];
        if (t->dtype == OSCAR_F32) {
            uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            memcpy(&out[i], &u, 4);
        } else {
            uint16_t u = (uint16_t)(b[0] | b[1] << 8);
            out[i] = t->dtype == OSCAR_F16 ? oscar_f16_to_f32(u) : oscar_bf16_to_f32(u);
        }
    }
    if (check_finite && !oscar__finite_f32(out, (size_t)n))
        return oscar__fail(st->msg, OSCAR_ERR_NONFINITE, "%s: tensor '%s' contains NaN or Inf", st->name, t->name);
    return OSCAR_OK;
}

/* appends a JSON string literal */
static void oscar__jput(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* writes the header JSON to f (or only measures it when f is a counting stream) */
static void oscar__st_header(FILE *f, const oscar_st_entry *e, int n, const char *const *meta, int n_meta) {
    int i, k;
    uint64_t at = 0;
    fputc('{', f);
    if (n_meta) {
        fputs("\"__metadata__\":{", f);
        for (i = 0; i < n_meta; i++) {
            if (i) fputc(',', f);
            oscar__jput(f, meta[2 * i]);
            fputc(':', f);
            oscar__jput(f, meta[2 * i + 1]);
        }
        fputc('}', f);
    }
    for (i = 0; i < n; i++) {
        uint64_t bytes = oscar__dtype_sizes[e[i].dtype];
        for (k = 0; k < e[i].ndim; k++) bytes *= (uint64_t)e[i].shape[k];
        if (i || n_meta) fputc(',', f);
        oscar__jput(f, e[i].name);
        fprintf(f, ":{\"dtype\":\"%s\",\"shape\":[", oscar__dtype_names[e[i].dtype]);
        for (k = 0; k < e[i].ndim; k++) fprintf(f, k ? ",%lld" : "%lld", (long long)e[i].shape[k]);
        fprintf(f, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)at, (unsigned long long)(at + bytes));
        at += bytes;
    }
    fputc('}', f);
}

OSCAR_DEF int oscar_st_write(const char *path, const oscar_st_entry *e, int n, const char *const *meta, int n_meta, char *msg) {
    FILE *f;
    long hlen;
    int i, k, pad;
    char tmp[4096];
    uint8_t lenb[8];
    if (!path || (n && !e) || (n_meta && !meta)) return oscar__fail(msg, OSCAR_ERR_NULL, "st_write: null argument");
    for (i = 0; i < n; i++) {
        if (!e[i].name || !e[i].data) return oscar__fail(msg, OSCAR_ERR_NULL, "st_write: entry %d has no name or data", i);
        if (e[i].dtype < 0 || e[i].dtype >= OSCAR_DTYPE_COUNT) return oscar__fail(msg, OSCAR_ERR_DTYPE, "st_write: entry '%s' has a bad dtype", e[i].name);
        if (e[i].ndim < 0 || e[i].ndim > OSCAR_ST_MAX_DIMS) return oscar__fail(msg, OSCAR_ERR_SHAPE, "st_write: entry '%s' has %d dims", e[i].name, e[i].ndim);
        for (k = 0; k < e[i].ndim; k++)
            if (e[i].shape[k] < 0) return oscar__fail(msg, OSCAR_ERR_SHAPE, "st_write: entry '%s' has a negative dim", e[i].name);
        if (!strcmp(e[i].name, "__metadata__")) return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "st_write: '__metadata__' is reserved");
        for (k = 0; k < i; k++)
            if (!strcmp(e[k].name, e[i].name)) return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "st_write: duplicate name '%s'", e[i].name);
    }
    for (i = 0; i < n_meta; i++)
        if (!meta[2 * i] || !meta[2 * i + 1]) return oscar__fail(msg, OSCAR_ERR_NULL, "st_write: metadata %d is null", i);
    if (strlen(path) + 5 > sizeof tmp) return oscar__fail(msg, OSCAR_ERR_INVALID_ARG, "st_write: path too long");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (!f) return oscar__fail(msg, OSCAR_ERR_IO, "%s: cannot create", tmp);
    /* header: written after an 8-byte placeholder, padded with spaces to a multiple of 8 */
    fwrite("\0\0\0\0\0\0\0\0", 1, 8, f);
    oscar__st_header(f, e, n, meta, n_meta);
    hlen = ftell(f) - 8;
    pad = (int)((8 - hlen % 8) % 8);
    for (i = 0; i < pad; i++) fputc(' ', f);
    hlen += pad;
    for (i = 0; i < n; i++) {
        size_t bytes = oscar__dtype_sizes[e[i].dtype];
        for (k = 0; k < e[i].ndim; k++) bytes *= (size_t)e[i].shape[k];
        if (bytes && fwrite(e[i].data, 1, bytes, f) != bytes) break;
    }
    for (k = 0; k < 8; k++) lenb[k] = (uint8_t)(((uint64_t)hlen >> (8 * k)) & 0xff);
    if (i < n || fseek(f, 0, SEEK_SET) != 0 || fwrite(lenb, 1, 8, f) != 8 || ferror(f)) {
        fclose(f);
        remove(tmp);
        return oscar__fail(msg, OSCAR_ERR_IO, "%s: write failed", tmp);
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return oscar__fail(msg, OSCAR_ERR_IO, "%s: cannot write", path);
    }
    return OSCAR_OK;
}

/* >>rot -------------------------------------------------------------------------------------- */
OSCAR_DEF int oscar_rotations_alloc(oscar_rotations *r, int n_layers, int d, int n_kv_heads, int per_head) {
    size_t nh, n;
    if (!r) return OSCAR_ERR_NULL;
    memset(r, 0, sizeof(*r));
    if (n_layers < 1 || n_kv_heads < 1) return oscar__fail(r->msg, OSCAR_ERR_INVALID_ARG, "rotations: %d layers, %d KV heads", n_layers, n_kv_heads);
    if (!oscar_is_pow2(d) || d > OSCAR_MAX_HEAD_DIM) return oscar__fail(r->msg, OSCAR_ERR_DIM, "rotations: head dim %d is not a power of two <= %d", d, OSCAR_MAX_HEAD_DIM);
    nh = per_head ? (size_t)n_kv_heads : 1;
    n = (size_t)n_layers * nh;
    r->n_layers = n_layers;
    r->head_dim = d;
    r->n_kv_heads = n_kv_heads;
    r->per_head = per_head ? 1 : 0;
    r->composition = OSCAR_COMP_IDENTITY;
    r->k_clip = 0.96f;
    r->v_clip = 0.92f;
    r->group_size = d < 128 ? d : 128;
    r->k_rot = (float *)oscar__calloc(n * d * d, sizeof(float));
    r->v_rot = (float *)oscar__calloc(n * d * d, sizeof(float));
    r->k_eval = (float *)oscar__calloc(n * d, sizeof(float));
    r->v_eval = (float *)oscar__calloc(n * d, sizeof(float));
    if (!r->k_rot || !r->v_rot || !r->k_eval || !r->v_eval) {
        oscar_rotations_free(r);
        return oscar__fail(r->msg, OSCAR_ERR_NOMEM, "rotations: out of memory");
    }
    return oscar_rotations_set_fixed(r, OSCAR_COMP_IDENTITY);
}

OSCAR_DEF void oscar_rotations_free(oscar_rotations *r) {
    if (!r) return;
    OSCAR_FREE(r->k_rot);
    OSCAR_FREE(r->v_rot);
    OSCAR_FREE(r->k_eval);
    OSCAR_FREE(r->v_eval);
    OSCAR_FREE(r->k_mean);
    OSCAR_FREE(r->v_mean);
    OSCAR_FREE(r->k_rope_mean);
    OSCAR_FREE(r->k_balance);
    r->k_rot = r->v_rot = r->k_eval = r->v_eval = r->k_mean = r->v_mean = r->k_rope_mean = r->k_balance = NULL;
    r->rope_base = 0.0;
}

OSCAR_DEF int oscar_rotations_alloc_means(oscar_rotations *r) {
    size_t n;
    if (!r) return OSCAR_ERR_NULL;
    if (!r->k_rot) return oscar__fail(r->msg, OSCAR_ERR_STATE, "rotations: not allocated");
    if (r->k_mean && r->v_mean) return OSCAR_OK;
    n = (size_t)r->n_layers * r->n_kv_heads * r->head_dim;
    if (!r->k_mean) r->k_mean = (float *)oscar__calloc(n, sizeof(float));
    if (!r->v_mean) r->v_mean = (float *)oscar__calloc(n, sizeof(float));
    if (!r->k_mean || !r->v_mean) {
        OSCAR_FREE(r->k_mean);
        OSCAR_FREE(r->v_mean);
        r->k_mean = r->v_mean = NULL;
        return oscar__fail(r->msg, OSCAR_ERR_NOMEM, "rotations: out of memory for the means");
    }
    return OSCAR_OK;
}

OSCAR_DEF int oscar_rotations_alloc_balance(oscar_rotations *r) {
    size_t n, i;
    if (!r) return OSCAR_ERR_NULL;
    if (!r->k_rot) return oscar__fail(r->msg, OSCAR_ERR_STATE, "rotations: not allocated");
    if (r->k_balance) return OSCAR_OK;
    n = (size_t)r->n_layers * (r->per_head ? r->n_kv_heads : 1) * r->head_dim;
    r->k_balance = (float *)oscar__calloc(n, sizeof(float));
    if (!r->k_balance) return oscar__fail(r->msg, OSCAR_ERR_NOMEM, "rotations: out of memory for the K balance");
    for (i = 0; i < n; i++) r->k_balance[i] = 1.0f;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_rotations_balance_matrices(const oscar_rotations *r, float *A, float *B, size_t *bad) {
    size_t n, dd, m;
    int rc = OSCAR_OK;
    if (!r || !A || !B) return OSCAR_ERR_NULL;
    if (!r->k_rot || !r->k_eval || !r->k_balance) return OSCAR_ERR_STATE;
    dd = (size_t)r->head_dim * r->head_dim;
    n = (size_t)r->n_layers * (r->per_head ? r->n_kv_heads : 1) * dd;
    for (m = 0; m < n && rc == OSCAR_OK; m += dd) {
        const size_t v = m / r->head_dim; /* the matrix's [d] vectors of eigenvalues and balance */
        rc = oscar_balance_matrices(A + m, B + m, r->k_rot + m, r->k_eval + v, r->k_balance + v, r->head_dim, r->composition);
        if (rc == OSCAR_OK && (!oscar__finite_f32(A + m, dd) || !oscar__finite_f32(B + m, dd))) rc = OSCAR_ERR_NONFINITE;
        if (rc != OSCAR_OK && bad) *bad = m / dd;
    }
    return rc;
}

OSCAR_DEF int oscar_rotations_alloc_rope_mean(oscar_rotations *r, double rope_base) {
    if (!r) return OSCAR_ERR_NULL;
    if (!r->k_rot) return oscar__fail(r->msg, OSCAR_ERR_STATE, "rotations: not allocated");
    if (!(rope_base > 1.0 && rope_base < 1e12)) return oscar__fail(r->msg, OSCAR_ERR_RANGE, "rotations: RoPE base %g is not in (1, 1e12)", rope_base);
    if (!r->k_rope_mean) {
        r->k_rope_mean = (float *)oscar__calloc((size_t)r->n_layers * r->n_kv_heads * r->head_dim, sizeof(float));
        if (!r->k_rope_mean) return oscar__fail(r->msg, OSCAR_ERR_NOMEM, "rotations: out of memory for the pre-RoPE K mean");
    }
    r->rope_base = rope_base;
    return OSCAR_OK;
}

OSCAR_DEF float *oscar_rotations_k(const oscar_rotations *r, int layer, int kv_head) {
    if (!r || !r->k_rot || layer < 0 || layer >= r->n_layers || kv_head < 0 || kv_head >= r->n_kv_heads) return NULL;
    return r->k_rot + ((size_t)layer * (r->per_head ? r->n_kv_heads : 1) + (r->per_head ? kv_head : 0)) * r->head_dim * r->head_dim;
}

OSCAR_DEF float *oscar_rotations_v(const oscar_rotations *r, int layer, int kv_head) {
    if (!r || !r->v_rot || layer < 0 || layer >= r->n_layers || kv_head < 0 || kv_head >= r->n_kv_heads) return NULL;
    return r->v_rot + ((size_t)layer * (r->per_head ? r->n_kv_heads : 1) + (r->per_head ? kv_head : 0)) * r->head_dim * r->head_dim;
}

OSCAR_DEF int oscar_rotations_set_fixed(oscar_rotations *r, int comp) {
    size_t i, n, dd;
    if (!r) return OSCAR_ERR_NULL;
    if (!r->k_rot) return oscar__fail(r->msg, OSCAR_ERR_STATE, "rotations: not allocated");
    if (comp != OSCAR_COMP_HADAMARD && comp != OSCAR_COMP_IDENTITY)
        return oscar__fail(r->msg, OSCAR_ERR_INVALID_ARG, "rotations: '%s' needs data; only hadamard and identity are fixed", oscar_composition_name(comp));
    dd = (size_t)r->head_dim * r->head_dim;
    n = (size_t)r->n_layers * (r->per_head ? r->n_kv_heads : 1);
    oscar_rotation_fit(r->k_rot, NULL, NULL, r->head_dim, comp);
    for (i = 1; i < n; i++) memcpy(r->k_rot + i * dd, r->k_rot, dd * sizeof(float));
    memcpy(r->v_rot, r->k_rot, n * dd * sizeof(float));
    memset(r->k_eval, 0, n * r->head_dim * sizeof(float));
    memset(r->v_eval, 0, n * r->head_dim * sizeof(float));
    r->composition = comp;
    return OSCAR_OK;
}

OSCAR_DEF int oscar_rotations_is_hadamard(const oscar_rotations *r) {
    size_t i, n, dd;
    float *H;
    int same = 1;
    if (!r || !r->k_rot || !r->v_rot || !oscar_is_pow2(r->head_dim)) return 0;
    dd = (size_t)r->head_dim * r->head_dim;
    n = (size_t)r->n_layers * (r->per_head ? r->n_kv_heads : 1);
    H = (float *)OSCAR_MALLOC(dd * sizeof(float));
    if (!H) return 0; /* the dense product is always right */
    oscar_hadamard_matrix(H, r->head_dim);
    for (i = 0; i < n && same; i++) same = !memcmp(r->k_rot + i * dd, H, dd * sizeof(float)) && !memcmp(r->v_rot + i * dd, H, dd * sizeof(float));
    OSCAR_FREE(H);
    return same;
}

OSCAR_DEF int oscar_rotations_save(oscar_rotations *r, const char *path) {
    oscar_st_entry *e;
    char(*names)[64];
    char vals[9][32];
    const char *meta[15 * 2];
    int l, kind, i = 0, rc, nh, nk, nmeta = 12;
    size_t dd;
    if (!r) return OSCAR_ERR_NULL;
    if (!r->k_rot || !path) return oscar__fail(r->msg, OSCAR_ERR_STATE, "rotations_save: nothing to save or no path");
    if (r->k_rope_mean && !(r->k_mean && r->v_mean))
        return oscar__fail(r->msg, OSCAR_ERR_STATE, "rotations_save: a pre-RoPE K mean needs the K/V means too (oscar_rotations_alloc_means)");
    nh = r->per_head ? r->n_kv_heads : 1;
    dd = (size_t)r->head_dim * r->head_dim;
    nk = r->k_mean && r->v_mean ? (r->k_rope_mean ? 7 : 6) : 4; /* + k.mean, v.mean (+ k.rope_mean) */
    e = (oscar_st_entry *)oscar__calloc((size_t)r->n_layers * (nk + 1), sizeof(*e)); /* (+ k.balance) */
    names = (char(*)[64])oscar__calloc((size_t)r->n_layers * (nk + 1), 64);
    if (!e || !names) {
        OSCAR_FREE(e);
        OSCAR_FREE(names);
        return oscar__fail(r->msg, OSCAR_ERR_NOMEM, "rotations_save: out of memory");
    }
    for (l = 0; l < r->n_layers; l++)
        for (kind = 0; kind < 4; kind++) { /* k.rotation, k.eigenvalues, v.rotation, v.eigenvalues */
            oscar_st_entry *x = &e[i];
            int is_v = kind >= 2, is_eval = kind & 1, nd = 0;
            snprintf(names[i], 64, "layers.%d.%s.%s", l, is_v ? "v" : "k", is_eval ? "eigenvalues" : "rotation");
            x->name = names[i];
            x->dtype = OSCAR_F32;
            if (r->per_head) x->shape[nd++] = nh;
            x->shape[nd++] = r->head_dim;
            if (!is_eval) x->shape[nd++] = r->head_dim;
            x->ndim = nd;
            if (is_eval) x->data = (is_v ? r->v_eval : r->k_eval) + (size_t)l * nh * r->head_dim;
            else x->data = (is_v ? r->v_rot : r->k_rot) + (size_t)l * nh * dd;
            i++;
        }
    for (l = 0; nk >= 6 && l < r->n_layers; l++)
        for (kind = 0; kind < nk - 4; kind++) { /* k.mean, v.mean (, k.rope_mean): [n_kv_heads][d] */
            oscar_st_entry *x = &e[i];
            snprintf(names[i], 64, "layers.%d.%s", l, kind == 2 ? "k.rope_mean" : (kind ? "v.mean" : "k.mean"));
            x->name = names[i];
            x->dtype = OSCAR_F32;
            x->ndim = 2;
            x->shape[0] = r->n_kv_heads;
            x->shape[1] = r->head_dim;
            x->data = (kind == 2 ? r->k_rope_mean : (kind ? r->v_mean : r->k_mean)) + (size_t)l * r->n_kv_heads * r->head_dim;
            i++;
        }
    for (l = 0; r->k_balance && l < r->n_layers; l++) { /* k.balance: [d] or [Hkv][d] */
        oscar_st_entry *x = &e[i];
        snprintf(names[i], 64, "layers.%d.k.balance", l);
        x->name = names[i];
        x->dtype = OSCAR_F32;
        x->ndim = 0;
        if (r->per_head) x->shape[x->ndim++] = nh;
        x->shape[x->ndim++] = r->head_dim;
        x->data = r->k_balance + (size_t)l * nh * r->head_dim;
        i++;
    }
    snprintf(vals[0], 32, "%d", r->head_dim);
    snprintf(vals[1], 32, "%d", r->n_layers);
    snprintf(vals[2], 32, "%d", r->n_kv_heads);
    snprintf(vals[3], 32, "%.9g", r->k_clip);
    snprintf(vals[4], 32, "%.9g", r->v_clip);
    snprintf(vals[5], 32, "%d", r->group_size);
    meta[0] = "format"; meta[1] = "oscar-rotations";
    meta[2] = "format_version"; meta[3] = "1";
    meta[4] = "head_dim"; meta[5] = vals[0];
    meta[6] = "num_layers"; meta[7] = vals[1];
    meta[8] = "num_kv_heads"; meta[9] = vals[2];
    meta[10] = "per_head"; meta[11] = r->per_head ? "true" : "false";
    meta[12] = "composition"; meta[13] = oscar_composition_name(r->composition);
    meta[14] = "k_clip"; meta[15] = vals[3];
    meta[16] = "v_clip"; meta[17] = vals[4];
    meta[18] = "group_size"; meta[19] = vals[5];
    meta[20] = "model"; meta[21] = r->model;
    meta[22] = "calibration"; meta[23] = r->calibration;
    if (nk == 7) {
        snprintf(vals[6], 32, "%.17g", r->rope_base);
        meta[24] = "rope_base"; meta[25] = vals[6];
        nmeta = 13;
    }
    if (r->k_gain || r->v_gain) { /* absent when off, so files without the gain stay as they were */
        snprintf(vals[7], 32, "%d", r->k_gain ? 1 : 0);
        snprintf(vals[8], 32, "%d", r->v_gain ? 1 : 0);
        meta[2 * nmeta] = "k_gain"; meta[2 * nmeta + 1] = vals[7];
        meta[2 * nmeta + 2] = "v_gain"; meta[2 * nmeta + 3] = vals[8];
        nmeta += 2;
    }
    rc = oscar_st_write(path, e, i, meta, nmeta, r->msg);
    OSCAR_FREE(e);
    OSCAR_FREE(names);
    return rc;
}

/* strict integer from a metadata string */
static int oscar__meta_int(const oscar_st *st, const char *key, int lo, int hi, int *out, char *msg) {
    const char *s = oscar_st_meta(st, key);
    char *end;
    long v;
    if (!s) return oscar__fail(msg, OSCAR_ERR_FORMAT, "%s: metadata '%s' is missing", st->name, key);
    v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) return oscar__fail(msg, OSCAR_ERR_FORMAT, "%s: metadata '%s' = '%s' is not an integer in [%d, %d]", st->name, key, s, lo, hi);
    *out = (int)v;
    return OSCAR_OK;
}

static int oscar__meta_float(const oscar_st *st, const char *key, float *out, char *msg) {
    const char *s = oscar_st_meta(st, key);
    char *end;
    double v;
    if (!s) return oscar__fail(msg, OSCAR_ERR_FORMAT, "%s: metadata '%s' is missing", st->name, key);
    v = strtod(s, &end);
    if (end == s || *end || !(v <= 1.0) || v != v) return oscar__fail(msg, OSCAR_ERR_FORMAT, "%s: metadata '%s' = '%s' is not a clip ratio <= 1", st->name, key, s);
    *out = (float)v;
    return OSCAR_OK;
}

/* reads the F32 tensor `name` of a rotation file into dst (finite), after checking that it is there,
   F32 and of shape want[0..nd) */
static int oscar__rot_read(oscar_rotations *r, oscar_st *st, const char *name, int nd, const int64_t *want, float *dst) {
    const oscar_st_tensor *t = oscar_st_find(st, name);
    int i, ok, rc;
    if (!t) return oscar__fail(r->msg, OSCAR_ERR_NOT_FOUND, "%s: tensor '%s' is missing", st->name, name);
    if (t->dtype != OSCAR_F32) return oscar__fail(r->msg, OSCAR_ERR_DTYPE, "%s: tensor '%s' is %s, expected F32", st->name, name, oscar_dtype_name(t->dtype));
    for (ok = t->ndim == nd, i = 0; ok && i < nd; i++) ok = t->shape[i] == want[i];
    if (!ok) {
        char got[64], exp[64];
        int at = 0;
        for (i = 0; i < t->ndim && at < 48; i++) at += snprintf(got + at, sizeof got - at, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
        for (at = 0, i = 0; i < nd && at < 48; i++) at += snprintf(exp + at, sizeof exp - at, "%s%lld", i ? ", " : "", (long long)want[i]);
        if (!t->ndim) got[0] = 0;
        return oscar__fail(r->msg, OSCAR_ERR_SHAPE, "%s: tensor '%s' has dims [%s], expected [%s]", st->name, name, got, exp);
    }
    if ((rc = oscar_st_read_f32(st, t, dst, 1)) != OSCAR_OK) memcpy(r->msg, st->msg, OSCAR_MSG_SIZE);
    return rc;
}

static int oscar__rotations_from_st(oscar_rotations *r, oscar_st *st) {
    int rc, d, L, Hkv, per_head, comp, group, l, kind, nh, has_means, has_rope, has_bal;
    float kc, vc;
    const char *s;
    char name[64];
    if ((s = oscar_st_meta(st, "format")) == NULL || strcmp(s, "oscar-rotations"))
        return oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: not an oscar rotation file (metadata format = '%s')", st->name, s ? s : "(missing)");
    if ((s = oscar_st_meta(st, "format_version")) == NULL || strcmp(s, "1"))
        return oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: unsupported format_version '%s' (this reader knows 1)", st->name, s ? s : "(missing)");
    if ((rc = oscar__meta_int(st, "head_dim", 1, OSCAR_MAX_HEAD_DIM, &d, r->msg)) != OSCAR_OK) return rc;
    if ((rc = oscar__meta_int(st, "num_layers", 1, 100000, &L, r->msg)) != OSCAR_OK) return rc;
    if ((rc = oscar__meta_int(st, "num_kv_heads", 1, 100000, &Hkv, r->msg)) != OSCAR_OK) return rc;
    if ((rc = oscar__meta_int(st, "group_size", 1, OSCAR_MAX_HEAD_DIM, &group, r->msg)) != OSCAR_OK) return rc;
    if ((rc = oscar__meta_float(st, "k_clip", &kc, r->msg)) != OSCAR_OK) return rc;
    if ((rc = oscar__meta_float(st, "v_clip", &vc, r->msg)) != OSCAR_OK) return rc;
    if (!oscar_is_pow2(d)) return oscar__fail(r->msg, OSCAR_ERR_DIM, "%s: head_dim %d is not a power of two", st->name, d);
    if (!oscar_is_pow2(group) || group > d) return oscar__fail(r->msg, OSCAR_ERR_DIM, "%s: group_size %d does not divide head_dim %d", st->name, group, d);
    s = oscar_st_meta(st, "per_head");
    if (!s || (strcmp(s, "true") && strcmp(s, "false"))) return oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: metadata per_head must be 'true' or 'false'", st->name);
    per_head = !strcmp(s, "true");
    comp = oscar_composition_parse(oscar_st_meta(st, "composition"));
    if (comp < 0) return oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: unknown composition '%s'", st->name, oscar_st_meta(st, "composition") ? oscar_st_meta(st, "composition") : "(missing)");
    has_means = oscar_st_find(st, "layers.0.k.mean") != NULL;
    has_rope = oscar_st_find(st, "layers.0.k.rope_mean") != NULL;
    has_bal = oscar_st_find(st, "layers.0.k.balance") != NULL;
    if (has_rope && !has_means) return oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: a pre-RoPE K mean (k.rope_mean) without the K/V means (k.mean, v.mean)", st->name);
    if (st->n_tensors != (4 + 2 * has_means + has_rope + has_bal) * L)
        return oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: %d tensors for %d layers (expected %d: rotations and eigenvalues%s%s%s)", st->name, st->n_tensors, L,
                           (4 + 2 * has_means + has_rope + has_bal) * L, has_means ? ", K/V means" : "", has_rope ? ", pre-RoPE K means" : "", has_bal ? ", K balances" : "");
    if ((rc = oscar_rotations_alloc(r, L, d, Hkv, per_head)) != OSCAR_OK) return rc;
    nh = per_head ? Hkv : 1;
    r->composition = comp;
    r->k_clip = kc;
    r->v_clip = vc;
    r->group_size = group;
    if (oscar_st_meta(st, "k_gain") || oscar_st_meta(st, "v_gain")) {
        if ((rc = oscar__meta_int(st, "k_gain", 0, 1, &r->k_gain, r->msg)) != OSCAR_OK) goto fail;
        if ((rc = oscar__meta_int(st, "v_gain", 0, 1, &r->v_gain, r->msg)) != OSCAR_OK) goto fail;
    }
    snprintf(r->model, sizeof r->model, "%s", oscar_st_meta(st, "model") ? oscar_st_meta(st, "model") : "");
    snprintf(r->calibration, sizeof r->calibration, "%s", oscar_st_meta(st, "calibration") ? oscar_st_meta(st, "calibration") : "");
    for (l = 0; l < L; l++)
        for (kind = 0; kind < 4; kind++) {
            int is_v = kind >= 2, is_eval = kind & 1, nd = 0, i;
            int64_t want[3];
            float *dst = is_eval ? (is_v ? r->v_eval : r->k_eval) + (size_t)l * nh * d : (is_v ? r->v_rot : r->k_rot) + (size_t)l * nh * d * d;
            snprintf(name, sizeof name, "layers.%d.%s.%s", l, is_v ? "v" : "k", is_eval ? "eigenvalues" : "rotation");
            if (per_head) want[nd++] = Hkv;
            want[nd++] = d;
            if (!is_eval) want[nd++] = d;
            if ((rc = oscar__rot_read(r, st, name, nd, want, dst)) != OSCAR_OK) goto fail;
            if (!is_eval)
                for (i = 0; i < nh; i++) {
                    double e = oscar_rotation_orth_error(dst + (size_t)i * d * d, d);
                    if (!(e <= 1e-4)) { rc = oscar__fail(r->msg, OSCAR_ERR_NOT_ORTHOGONAL, "%s: '%s' (head %d) is not orthogonal: max |R^T R - I| = %.3g > 1e-4", st->name, name, i, e); goto fail; }
                }
        }
    if (has_means) { /* the optional means, [n_kv_heads][d] per layer */
        const int nm = has_rope ? 3 : 2;
        if ((rc = oscar_rotations_alloc_means(r)) != OSCAR_OK) goto fail;
        if (nm == 3) {
            const char *rb = oscar_st_meta(st, "rope_base");
            char *end;
            double base = rb ? strtod(rb, &end) : 0.0;
            if (!rb || end == rb || *end || !(base > 1.0 && base < 1e12)) {
                rc = oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: metadata 'rope_base' = '%s' is not a RoPE base in (1, 1e12) (needed with k.rope_mean)", st->name, rb ? rb : "(missing)");
                goto fail;
            }
            if ((rc = oscar_rotations_alloc_rope_mean(r, base)) != OSCAR_OK) goto fail;
        }
        for (l = 0; l < L; l++)
            for (kind = 0; kind < nm; kind++) {
                const int64_t want[2] = {Hkv, d};
                float *dst = (kind == 2 ? r->k_rope_mean : (kind ? r->v_mean : r->k_mean)) + (size_t)l * Hkv * d;
                snprintf(name, sizeof name, "layers.%d.%s", l, kind == 2 ? "k.rope_mean" : (kind ? "v.mean" : "k.mean"));
                if ((rc = oscar__rot_read(r, st, name, 2, want, dst)) != OSCAR_OK) goto fail;
            }
    }
    if (has_bal) { /* the optional K balance, [d] or [Hkv][d] per layer, each value in (0, 1] */
        if (comp != OSCAR_COMP_R_H_PBR && comp != OSCAR_COMP_PLAIN) {
            rc = oscar__fail(r->msg, OSCAR_ERR_FORMAT, "%s: a K balance (k.balance) needs fitted rotations (r_h_pbr or plain), not %s", st->name, oscar_composition_name(comp));
            goto fail;
        }
        if ((rc = oscar_rotations_alloc_balance(r)) != OSCAR_OK) goto fail;
        for (l = 0; l < L; l++) {
            const int64_t want[2] = {per_head ? Hkv : d, d}; /* [Hkv, d] or [d] */
            float *dst = r->k_balance + (size_t)l * nh * d;
            int i;
            snprintf(name, sizeof name, "layers.%d.k.balance", l);
            if ((rc = oscar__rot_read(r, st, name, per_head ? 2 : 1, want, dst)) != OSCAR_OK) goto fail;
            for (i = 0; i < nh * d; i++)
                if (!(dst[i] > 0.0f && dst[i] <= 1.0f)) {
                    rc = oscar__fail(r->msg, OSCAR_ERR_RANGE, "%s: tensor '%s' value %d is %g, outside (0, 1]", st->name, name, i, (double)dst[i]);
                    goto fail;
                }
        }
    }
    return OSCAR_OK;
fail : {
    char keep[OSCAR_MSG_SIZE];
    memcpy(keep, r->msg, sizeof keep);
    oscar_rotations_free(r);
    memcpy(r->msg, keep, sizeof keep);
    return rc;
}
}

/* the rotations of a parsed file (rc: the parse result); closes st */
static int oscar__rotations_from_parse(oscar_rotations *r, oscar_st *st, int rc) {
    if (rc != OSCAR_OK) {
        memcpy(r->msg, st->msg, OSCAR_MSG_SIZE);
        return rc;
    }
    rc = oscar__rotations_from_st(r, st);
    oscar_st_close(st);
    return rc;
}

OSCAR_DEF int oscar_rotations_load_memory(oscar_rotations *r, const void *bytes, size_t size, const char *name) {
    oscar_st st;
    if (!r) return OSCAR_ERR_NULL;
    memset(r, 0, sizeof(*r));
    return oscar__rotations_from_parse(r, &st, oscar_st_parse(&st, bytes, size, name));
}

OSCAR_DEF int oscar_rotations_load(oscar_rotations *r, const char *path) {
    oscar_st st;
    if (!r) return OSCAR_ERR_NULL;
    memset(r, 0, sizeof(*r));
    return oscar__rotations_from_parse(r, &st, oscar_st_open(&st, path));
}

#ifdef __cplusplus
}
#endif
#endif /* OSCAR_IMPLEMENTATION_DONE */
#endif /* OSCAR_IMPLEMENTATION */

/*
   HISTORY
     0.1.0  first release: CPU reference path (WHT, Jacobi, calibration, fitting, INT2 codec,
            paged mixed-precision cache, decode attention, safetensors).

   LICENSE (MIT)
     Copyright (c) 2026 the oscar authors.
     Permission is hereby granted, free of charge, to any person obtaining a copy of this software
     and associated documentation files (the "Software"), to deal in the Software without
     restriction, including without limitation the rights to use, copy, modify, merge, publish,
     distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
     Software is furnished to do so, subject to the following conditions: The above copyright
     notice and this permission notice shall be included in all copies or substantial portions of
     the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
     IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A
     PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE
     LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
     OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS
     IN THE SOFTWARE.
*/
