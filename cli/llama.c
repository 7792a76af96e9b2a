/* llama.c - Llama forward pass over GGUF weights with oscar's KV cache (see llama.h) */
#define _POSIX_C_SOURCE 200809L
#define GGUF_IMPLEMENTATION
#define TOK_IMPLEMENTATION
#include "llama.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int llm__fail(char *msg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, LLM_MSG_SIZE, fmt, ap);
    va_end(ap);
    return -1;
}

/* >>numbers ---- fp16 / bf16 ---- */
static float llm__f16(uint16_t h) {
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    float f;
    if (e == 0) {
        if (m == 0) u = s;
        else { /* subnormal */
            f = (float)m * (1.0f / 16777216.0f);
            return s ? -f : f;
        }
    } else if (e == 31) {
        u = s | 0x7f800000u | (m << 13);
    } else {
        u = s | ((e + 112) << 23) | (m << 13);
    }
    memcpy(&f, &u, 4);
    return f;
}
static float llm__bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static float llm__round_bf16(float x) { /* round to nearest even, as a BF16 cache stores */
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) u += 0x7fffu + ((u >> 16) & 1);
    u &= 0xffff0000u;
    memcpy(&x, &u, 4);
    return x;
}
static uint16_t llm__rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

/* >>dequant ---- one row of a weight matrix to fp32 ---- */
const char *llm_type_supported(int t) {
    switch (t) {
    case GGML_F32: case GGML_F16: case GGML_BF16: case GGML_Q4_0: case GGML_Q4_1: case GGML_Q8_0:
        return NULL;
    default:
        return gguf_type_name(t);
    }
}

void llm_dequant_row(float *out, const llm_weight *w, int64_t r) {
    const uint8_t *p = w->data + (size_t)r * w->row_bytes;
    int64_t n = w->cols, i, b, nb = n / 32;
    switch (w->type) {
    case GGML_F32:
        memcpy(out, p, (size_t)n * 4);
        break;
    case GGML_F16:
        for (i = 0; i < n; i++) out[i] = llm__f16(llm__rd16(p + 2 * i));
        break;
    case GGML_BF16:
        for (i = 0; i < n; i++) out[i] = llm__bf16(llm__rd16(p + 2 * i));
        break;
    case GGML_Q4_0: /* [d f16][16 bytes]: x = (q - 8) * d; low nibbles first, then high */
        for (b = 0; b < nb; b++, p += 18) {
            float d = llm__f16(llm__rd16(p));
            float *o = out + b * 32;
            for (i = 0; i < 16; i++) {
                o[i] = (float)((p[2 + i] & 15) - 8) * d;
                o[i + 16] = (float)((p[2 + i] >> 4) - 8) * d;
            }
        }
        break;
    case GGML_Q4_1: /* [d f16][m f16][16 bytes]: x = q * d + m */
        for (b = 0; b < nb; b++, p += 20) {
            float d = llm__f16(llm__rd16(p)), m = llm__f16(llm__rd16(p + 2));
            float *o = out + b * 32;
            for (i = 0; i < 16; i++) {
                o[i] = (float)(p[4 + i] & 15) * d + m;
                o[i + 16] = (float)(p[4 + i] >> 4) * d + m;
            }
        }
        break;
    case GGML_Q8_0: /* [d f16][32 int8]: x = q * d */
        for (b = 0; b < nb; b++, p += 34) {
            float d = llm__f16(llm__rd16(p));
            float *o = out + b * 32;
            for (i = 0; i < 32; i++) o[i] = (float)(int8_t)p[2 + i] * d;
        }
        break;
    default:
        for (i = 0; i < n; i++) out[i] = 0.0f;
    }
}

/* >>pool ---- a tiny fork/join thread pool; the caller is thread 0 ---- */
typedef void (*llm__task)(void *arg, int ith, int nth);
typedef struct llm_pool {
    int n;
    pthread_t th[LLM_MAX_THREADS];
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    llm__task fn;
    void *arg;
    unsigned gen;
    int pending, quit;
} llm_pool;

typedef struct llm__worker { llm_pool *p; int ith; } llm__worker;

static void *llm__thread(void *a) {
    llm_pool *p = ((llm__worker *)a)->p;
    int ith = ((llm__worker *)a)->ith;
    unsigned seen = 0;
    free(a);
    for (;;) {
        llm__task fn;
        void *arg;
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->gen;
        fn = p->fn;
        arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(arg, ith, p->n);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

static llm_pool *llm__pool_new(int n) {
    llm_pool *p = (llm_pool *)calloc(1, sizeof *p);
    int i;
    if (!p) return NULL;
    if (n < 1) n = 1;
    if (n > LLM_MAX_THREADS) n = LLM_MAX_THREADS;
    p->n = n;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    for (i = 1; i < n; i++) {
        llm__worker *w = (llm__worker *)malloc(sizeof *w);
        if (w) {
            w->p = p;
            w->ith = i;
        }
        if (!w || pthread_create(&p->th[i], NULL, llm__thread, w) != 0) {
            free(w);
            p->n = i; /* run with the threads we got */
            break;
        }
    }
    return p;
}

static void llm__pool_run(llm_pool *p, llm__task fn, void *arg) {
    if (p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->pending = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    fn(arg, 0, p->n);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static void llm__pool_free(llm_pool *p) {
    int i;
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (i = 1; i < p->n; i++) pthread_join(p->th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p);
}

/* >>load ---- model loading and validation ---- */
static int llm__weight(llm_model *m, llm_weight *w, const char *name, int64_t cols, int64_t rows) {
    const gguf_tensor *t = gguf_find_tensor(&m->file, name);
    const char *bad;
    if (!t) return llm__fail(m->msg, "%s: missing tensor '%s'", m->file.name, name);
    if (t->n_dims != 2 || t->ne[0] != cols || t->ne[1] != rows)
        return llm__fail(m->msg, "%s: tensor '%s' has shape [%lld, %lld, %lld, %lld], expected [%lld, %lld]",
                         m->file.name, name, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2],
                         (long long)t->ne[3], (long long)cols, (long long)rows);
    if ((bad = llm_type_supported(t->type)) != NULL)
        return llm__fail(m->msg, "%s: tensor '%s' has type %s, which this runner does not support (F32, F16, BF16, Q4_0, Q4_1, Q8_0)",
                         m->file.name, name, bad);
    w->type = t->type;
    w->rows = rows;
    w->cols = cols;
    w->row_bytes = (size_t)(cols / gguf_type_block(t->type) * gguf_type_size(t->type));
    w->data = t->data;
    return 0;
}

static int llm__vec(llm_model *m, float **out, const char *name, int64_t n) {
    const gguf_tensor *t = gguf_find_tensor(&m->file, name);
    llm_weight w;
    int64_t i;
    if (!t) return llm__fail(m->msg, "%s: missing tensor '%s'", m->file.name, name);
    if (t->n_dims != 1 || t->ne[0] != n)
        return llm__fail(m->msg, "%s: tensor '%s' has %d dimensions / %lld elements, expected a vector of %lld",
                         m->file.name, name, t->n_dims, (long long)t->ne[0], (long long)n);
    if (llm_type_supported(t->type))
        return llm__fail(m->msg, "%s: tensor '%s' has unsupported type %s", m->file.name, name, gguf_type_name(t->type));
    *out = (float *)malloc((size_t)n * sizeof(float));
    if (!*out) return llm__fail(m->msg, "out of memory");
    w.type = t->type;
    w.rows = 1;
    w.cols = n;
    w.row_bytes = (size_t)t->nbytes;
    w.data = t->data;
    llm_dequant_row(*out, &w, 0);
    for (i = 0; i < n; i++)
        if (!isfinite((*out)[i])) return llm__fail(m->msg, "%s: tensor '%s' holds a non-finite value", m->file.name, name);
    return 0;
}

static int llm__hp(llm_model *m, const char *arch, const char *key, int *out, int lo, int hi, int required) {
    char k[128];
    uint32_t u;
    snprintf(k, sizeof k, "%s.%s", arch, key);
    if (!gguf_find_key(&m->file, k)) {
        if (required) return llm__fail(m->msg, "%s: missing key '%s'", m->file.name, k);
        return 0;
    }
    if (gguf_get_u32(&m->file, k, &u)) return llm__fail(m->msg, "%s", m->file.msg);
    if ((int64_t)u < lo || (int64_t)u > hi)
        return llm__fail(m->msg, "%s: %s = %u is out of range [%d, %d]", m->file.name, k, u, lo, hi);
    *out = (int)u;
    return 0;
}

int llm_load(llm_model *m, const char *path) {
    gguf_str arch;
    char a[32], name[96];
    int l, key_len = 0, rope_dim = 0;
    memset(m, 0, sizeof *m);
    if (gguf_open(&m->file, path)) return llm__fail(m->msg, "%s", m->file.msg);
    if (gguf_get_str(&m->file, "general.architecture", &arch)) return llm__fail(m->msg, "%s", m->file.msg);
    if (arch.len >= sizeof a || arch.len == 0) return llm__fail(m->msg, "%s: bad general.architecture", m->file.name);
    memcpy(a, arch.p, (size_t)arch.len);
    a[arch.len] = 0;
    if (strcmp(a, "llama") != 0)
        return llm__fail(m->msg, "%s: architecture '%s' is not supported (only llama)", m->file.name, a);
    if (llm__hp(m, a, "block_count", &m->n_layer, 1, 1024, 1) ||
        llm__hp(m, a, "embedding_length", &m->n_embd, 1, 1 << 16, 1) ||
        llm__hp(m, a, "feed_forward_length", &m->n_ff, 1, 1 << 18, 1) ||
        llm__hp(m, a, "attention.head_count", &m->n_head, 1, 1024, 1) ||
        llm__hp(m, a, "context_length", &m->n_ctx_train, 1, 1 << 24, 1))
        return -1;
    m->n_head_kv = m->n_head;
    if (llm__hp(m, a, "attention.head_count_kv", &m->n_head_kv, 1, 1024, 0) ||
        llm__hp(m, a, "attention.key_length", &key_len, 1, 4096, 0) ||
        llm__hp(m, a, "rope.dimension_count", &rope_dim, 1, 4096, 0))
        return -1;
    if (m->n_embd % m->n_head != 0 || m->n_head % m->n_head_kv != 0)
        return llm__fail(m->msg, "%s: %d heads / %d KV heads do not divide embedding %d", m->file.name,
                         m->n_head, m->n_head_kv, m->n_embd);
    m->head_dim = m->n_embd / m->n_head;
    if ((key_len && key_len != m->head_dim) || (rope_dim && rope_dim != m->head_dim) || m->head_dim % 2)
        return llm__fail(m->msg, "%s: head dimension %d with key_length %d / rope dimension %d is not supported",
                         m->file.name, m->head_dim, key_len, rope_dim);
    if (m->n_embd % 32 || m->n_ff % 32)
        return llm__fail(m->msg, "%s: embedding %d / feed-forward %d not multiples of 32", m->file.name, m->n_embd, m->n_ff);
    {
        char k[128];
        m->eps = 1e-5f;
        m->rope_base = 10000.0f;
        snprintf(k, sizeof k, "%s.attention.layer_norm_rms_epsilon", a);
        if (gguf_find_key(&m->file, k) && gguf_get_f32(&m->file, k, &m->eps)) return llm__fail(m->msg, "%s", m->file.msg);
        snprintf(k, sizeof k, "%s.rope.freq_base", a);
        if (gguf_find_key(&m->file, k) && gguf_get_f32(&m->file, k, &m->rope_base)) return llm__fail(m->msg, "%s", m->file.msg);
        if (!(m->eps > 0 && m->eps < 1) || !(m->rope_base > 1 && m->rope_base < 1e12f))
            return llm__fail(m->msg, "%s: rms epsilon %g / rope base %g out of range", m->file.name, m->eps, m->rope_base);
        snprintf(k, sizeof k, "%s.rope.scaling.type", a);
        if (gguf_find_key(&m->file, k)) {
            gguf_str s;
            if (gguf_get_str(&m->file, k, &s) == 0 && !(s.len == 4 && memcmp(s.p, "none", 4) == 0))
                return llm__fail(m->msg, "%s: RoPE scaling '%.*s' is not supported", m->file.name, (int)(s.len > 32 ? 32 : s.len), s.p);
        }
    }
    if (tok_load(&m->tok, &m->file)) return llm__fail(m->msg, "%s: %s", m->file.name, m->tok.msg);
    m->n_vocab = m->tok.n_vocab;
    if (llm__weight(m, &m->tok_embd, "token_embd.weight", m->n_embd, m->n_vocab)) return -1;
    if (gguf_find_tensor(&m->file, "output.weight")) {
        if (llm__weight(m, &m->output, "output.weight", m->n_embd, m->n_vocab)) return -1;
    } else {
        m->output = m->tok_embd;
        m->tied = 1;
    }
    if (llm__vec(m, &m->output_norm, "output_norm.weight", m->n_embd)) return -1;
    m->layers = (llm_layer *)calloc((size_t)m->n_layer, sizeof(llm_layer));
    if (!m->layers) return llm__fail(m->msg, "out of memory");
    for (l = 0; l < m->n_layer; l++) {
        llm_layer *y = &m->layers[l];
        int E = m->n_embd, D = m->head_dim, F = m->n_ff;
#define LLM__W(field, nm, cols, rows) \
        snprintf(name, sizeof name, "blk.%d." nm ".weight", l); \
        if (llm__weight(m, &y->field, name, cols, rows)) return -1;
        LLM__W(wq, "attn_q", E, m->n_head * D)
        LLM__W(wk, "attn_k", E, m->n_head_kv * D)
        LLM__W(wv, "attn_v", E, m->n_head_kv * D)
        LLM__W(wo, "attn_output", m->n_head * D, E)
        LLM__W(w_gate, "ffn_gate", E, F)
        LLM__W(w_up, "ffn_up", E, F)
        LLM__W(w_down, "ffn_down", F, E)
#undef LLM__W
        snprintf(name, sizeof name, "blk.%d.attn_norm.weight", l);
        if (llm__vec(m, &y->attn_norm, name, E)) return -1;
        snprintf(name, sizeof name, "blk.%d.ffn_norm.weight", l);
        if (llm__vec(m, &y->ffn_norm, name, E)) return -1;
    }
    return 0;
}

void llm_free(llm_model *m) {
    int l;
    if (!m) return;
    if (m->layers)
        for (l = 0; l < m->n_layer; l++) {
            free(m->layers[l].attn_norm);
            free(m->layers[l].ffn_norm);
        }
    free(m->layers);
    free(m->output_norm);
    tok_free(&m->tok);
    gguf_close(&m->file);
    memset(m, 0, sizeof *m);
}

/* >>matmul ---- Y[B][N] = X[B][K] . W[N][K]^T, rows of W split over threads ---- */
static float llm__dot(const float *a, const float *b, int n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0, j;
    for (; i + 8 <= n; i += 8)
        for (j = 0; j < 8; j++) s[j] += a[i + j] * b[i + j];
    for (; i < n; i++) s[0] += a[i] * b[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* GCC and clang: 4-wide vector extensions for the hot loops (plain loops get vectorised well at
   -O2 but badly at -O3 or with -march=native); other compilers: plain C */
#if defined(__GNUC__) && !defined(LLM_NO_VECTOR_EXT)
#define LLM__VEC 1
typedef int32_t llm__v4i __attribute__((vector_size(16)));
typedef float llm__v4 __attribute__((vector_size(16)));
static llm__v4 llm__ld4(const float *p) {
    llm__v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static float llm__hsum4(llm__v4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }
#else
#define LLM__VEC 0
#endif

/* fused dequantise-and-dot of one quantised row with x [K]; xs [K/32]: block sums of x */
/* the vector form needs byte -> int widening in hardware (SSE4.1, NEON) to pay off; on baseline
   x86-64 (SSE2) the plain loop is twice as fast */
#if LLM__VEC && (defined(__SSE4_1__) || defined(__ARM_NEON) || defined(__aarch64__))
static float llm__dot_q(const llm_weight *w, int64_t r, const float *x, const float *xs) {
    const uint8_t *p = w->data + (size_t)r * w->row_bytes;
    int64_t nb = w->cols / 32, b;
    float acc = 0;
    int i;
    if (w->type == GGML_Q4_1 || w->type == GGML_Q4_0) {
        int q41 = w->type == GGML_Q4_1, bs = q41 ? 20 : 18, qo = q41 ? 4 : 2;
        for (b = 0; b < nb; b++, p += bs, x += 32) {
            const uint8_t *q = p + qo;
            float d = llm__f16(llm__rd16(p));
            llm__v4 t = {0, 0, 0, 0};
            for (i = 0; i < 16; i += 4) {
                llm__v4i qi = {q[i], q[i + 1], q[i + 2], q[i + 3]};
                t += __builtin_convertvector(qi & 15, llm__v4) * llm__ld4(x + i) +
                     __builtin_convertvector(qi >> 4, llm__v4) * llm__ld4(x + i + 16);
            }
            acc += d * llm__hsum4(t) + (q41 ? llm__f16(llm__rd16(p + 2)) : -8.0f * d) * xs[b];
        }
    } else { /* Q8_0 */
        for (b = 0; b < nb; b++, p += 34, x += 32) {
            const int8_t *q = (const int8_t *)(p + 2);
            float d = llm__f16(llm__rd16(p));
            llm__v4 t = {0, 0, 0, 0};
            for (i = 0; i < 16; i += 4) {
                llm__v4i lo = {q[i], q[i + 1], q[i + 2], q[i + 3]};
                llm__v4i hi = {q[i + 16], q[i + 17], q[i + 18], q[i + 19]};
                t += __builtin_convertvector(lo, llm__v4) * llm__ld4(x + i) +
                     __builtin_convertvector(hi, llm__v4) * llm__ld4(x + i + 16);
            }
            acc += d * llm__hsum4(t);
        }
    }
    return acc;
}
#else
static float llm__dot_q(const llm_weight *w, int64_t r, const float *x, const float *xs) {
    const uint8_t *p = w->data + (size_t)r * w->row_bytes;
    int64_t nb = w->cols / 32, b;
    float acc = 0;
    int i;
    if (w->type == GGML_Q4_1 || w->type == GGML_Q4_0) {
        int q41 = w->type == GGML_Q4_1, bs = q41 ? 20 : 18, qo = q41 ? 4 : 2;
        for (b = 0; b < nb; b++, p += bs, x += 32) {
            float t[16], d = llm__f16(llm__rd16(p));
            const uint8_t *q = p + qo;
            for (i = 0; i < 16; i++) t[i] = (float)(q[i] & 15) * x[i] + (float)(q[i] >> 4) * x[i + 16];
            for (i = 0; i < 8; i++) t[i] += t[i + 8];
            for (i = 0; i < 4; i++) t[i] += t[i + 4];
            acc += d * ((t[0] + t[1]) + (t[2] + t[3])) + (q41 ? llm__f16(llm__rd16(p + 2)) : -8.0f * d) * xs[b];
        }
    } else { /* Q8_0 */
        for (b = 0; b < nb; b++, p += 34, x += 32) {
            float t[16], d = llm__f16(llm__rd16(p));
            const int8_t *q = (const int8_t *)(p + 2);
            for (i = 0; i < 16; i++) t[i] = (float)q[i] * x[i] + (float)q[i + 16] * x[i + 16];
            for (i = 0; i < 8; i++) t[i] += t[i + 8];
            for (i = 0; i < 4; i++) t[i] += t[i + 4];
            acc += d * ((t[0] + t[1]) + (t[2] + t[3]));
        }
    }
    return acc;
}
#endif

typedef struct llm__mm {
    float *y;
    const float *x;
    const float *xs; /* [B][K/32] block sums of x */
    const llm_weight *w;
    int B;
    float *deq;
    size_t deq_stride;
    int accumulate; /* y += instead of y = */
} llm__mm;

/* four dot products of rows w0..w3 with the same x (x is loaded once for the four). With GCC or
   clang, 4-wide vector extensions: the plain loop gets vectorised well at -O2 but badly at -O3. */
#if LLM__VEC
static void llm__dot4(float *out, const float *w0, const float *w1, const float *w2, const float *w3, const float *x, int n) {
    llm__v4 a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0;
    int i;
    for (i = 0; i + 4 <= n; i += 4) {
        llm__v4 xv = llm__ld4(x + i);
        a0 += llm__ld4(w0 + i) * xv;
        a1 += llm__ld4(w1 + i) * xv;
        a2 += llm__ld4(w2 + i) * xv;
        a3 += llm__ld4(w3 + i) * xv;
    }
    out[0] = llm__hsum4(a0);
    out[1] = llm__hsum4(a1);
    out[2] = llm__hsum4(a2);
    out[3] = llm__hsum4(a3);
    for (; i < n; i++) {
        out[0] += w0[i] * x[i];
        out[1] += w1[i] * x[i];
        out[2] += w2[i] * x[i];
        out[3] += w3[i] * x[i];
    }
}
#else
static void llm__dot4(float *out, const float *w0, const float *w1, const float *w2, const float *w3, const float *x, int n) {
    float a0[4] = {0, 0, 0, 0}, a1[4] = {0, 0, 0, 0}, a2[4] = {0, 0, 0, 0}, a3[4] = {0, 0, 0, 0};
    int i, j;
    for (i = 0; i + 4 <= n; i += 4)
        for (j = 0; j < 4; j++) {
            float xv = x[i + j];
            a0[j] += w0[i + j] * xv;
            a1[j] += w1[i + j] * xv;
            a2[j] += w2[i + j] * xv;
            a3[j] += w3[i + j] * xv;
        }
    for (; i < n; i++) {
        a0[0] += w0[i] * x[i];
        a1[0] += w1[i] * x[i];
        a2[0] += w2[i] * x[i];
        a3[0] += w3[i] * x[i];
    }
    out[0] = (a0[0] + a0[1]) + (a0[2] + a0[3]);
    out[1] = (a1[0] + a1[1]) + (a1[2] + a1[3]);
    out[2] = (a2[0] + a2[1]) + (a2[2] + a2[3]);
    out[3] = (a3[0] + a3[1]) + (a3[2] + a3[3]);
}
#endif

static void llm__mm_task(void *arg, int ith, int nth) {
    llm__mm *a = (llm__mm *)arg;
    int64_t N = a->w->rows, K = a->w->cols, r0, r1, r;
    float *buf = a->deq + (size_t)ith * a->deq_stride;
    int b, fused = a->B <= 2 && (a->w->type == GGML_Q4_0 || a->w->type == GGML_Q4_1 || a->w->type == GGML_Q8_0);
    /* split rows in multiples of 4 so threads do not share cache lines of y */
    r0 = (N / 4) * ith / nth * 4;
    r1 = ith == nth - 1 ? N : (N / 4) * (ith + 1) / nth * 4;
    r = r0;
    if (!fused) /* blocks of four rows: dequantised once, used by all B tokens */
        for (; r + 4 <= r1; r += 4) {
            int k;
            for (k = 0; k < 4; k++) llm_dequant_row(buf + (size_t)k * K, a->w, r + k);
            for (b = 0; b < a->B; b++) {
                float s[4], *y = a->y + (size_t)b * N + r;
                llm__dot4(s, buf, buf + K, buf + 2 * K, buf + 3 * K, a->x + (size_t)b * K, (int)K);
                for (k = 0; k < 4; k++) y[k] = a->accumulate ? y[k] + s[k] : s[k];
            }
        }
    for (; r < r1; r++) {
        if (!fused) llm_dequant_row(buf, a->w, r);
        for (b = 0; b < a->B; b++) {
            const float *xb = a->x + (size_t)b * K;
            float s = fused ? llm__dot_q(a->w, r, xb, a->xs + (size_t)b * (K / 32)) : llm__dot(buf, xb, (int)K);
            if (a->accumulate) a->y[(size_t)b * N + r] += s;
            else a->y[(size_t)b * N + r] = s;
        }
    }
}

static void llm__matmul(llm_ctx *c, float *y, const float *x, const llm_weight *w, int B, int accumulate) {
    llm__mm a;
    int64_t K = w->cols, nb = K / 32, b, i;
    for (b = 0; b < B && b < 2; b++) /* block sums for the fused kernels */
        for (i = 0; i < nb; i++) {
            const float *xb = x + (size_t)b * K + i * 32;
            float t = 0;
            int j;
            for (j = 0; j < 32; j++) t += xb[j];
            c->xsum[b * nb + i] = t;
        }
    a.xs = c->xsum;
    a.y = y;
    a.x = x;
    a.w = w;
    a.B = B;
    a.deq = c->deq;
    a.deq_stride = (size_t)4 * (size_t)(c->m->n_ff > c->m->n_embd ? c->m->n_ff : c->m->n_embd);
    a.accumulate = accumulate;
    llm__pool_run(c->pool, llm__mm_task, &a);
}

/* >>ops ---- */
static void llm__rmsnorm(float *o, const float *x, const float *w, int n, float eps) {
    double ss = 0;
    int i;
    float r;
    for (i = 0; i < n; i++) ss += (double)x[i] * x[i];
    r = (float)(1.0 / sqrt(ss / n + eps));
    for (i = 0; i < n; i++) o[i] = x[i] * r * w[i];
}

/* adjacent-pair RoPE on one head, then reorder into the cache (HF) basis */
static void llm__rope_head(float *h, const float *cs, int d) {
    float tmp[2 * 1024];
    int i, half = d / 2;
    for (i = 0; i < half; i++) {
        float x0 = h[2 * i], x1 = h[2 * i + 1], co = cs[2 * i], si = cs[2 * i + 1];
        tmp[i] = x0 * co - x1 * si;
        tmp[i + half] = x0 * si + x1 * co;
    }
    memcpy(h, tmp, (size_t)d * sizeof(float));
}

#define LLM_KT 64 /* keys per tile of the bf16 prefill's blocked attention */
/* floats of one thread's scratch for it, all doubles: S [nb][n_ctx + LLM_KT], O [nb][d], den [nb]
   and a K or V tile [d][LLM_KT] */
static size_t llm__chunk_scratch(int nb, int n_ctx, int d) {
    return 2 * ((size_t)nb * ((size_t)n_ctx + LLM_KT) + (size_t)nb * d + (size_t)nb + (size_t)d * LLM_KT);
}

/* >>ctx ---- */
int llm_ctx_init(llm_ctx *c, const llm_model *m, const llm_ctx_config *cfg) {
    int B, E, D, Hq, Hkv, F, i;
    size_t qd, kd;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->cfg = *cfg;
    if (c->cfg.n_ctx <= 0) c->cfg.n_ctx = m->n_ctx_train;
    if (c->cfg.n_threads <= 0) c->cfg.n_threads = 1;
    if (c->cfg.n_batch <= 0) c->cfg.n_batch = 32;
    if (m->head_dim > 1024) return llm__fail(c->msg, "head dimension %d too large", m->head_dim);
    B = c->cfg.n_batch;
    E = m->n_embd;
    D = m->head_dim;
    Hq = m->n_head;
    Hkv = m->n_head_kv;
    F = m->n_ff;
    qd = (size_t)Hq * D;
    kd = (size_t)Hkv * D;
    c->x = (float *)malloc((size_t)B * E * sizeof(float));
    c->xb = (float *)malloc((size_t)B * (E > (int)qd ? E : (int)qd) * sizeof(float));
    c->q = (float *)malloc((size_t)B * qd * sizeof(float));
    c->k = (float *)malloc((size_t)B * kd * sizeof(float));
    c->v = (float *)malloc((size_t)B * kd * sizeof(float));
    c->att = (float *)malloc((size_t)B * qd * sizeof(float));
    c->hb = (float *)malloc((size_t)B * F * sizeof(float));
    c->hb2 = (float *)malloc((size_t)B * F * sizeof(float));
    c->logits = (float *)malloc((size_t)m->n_vocab * sizeof(float));
    c->rope = (float *)malloc((size_t)B * D * sizeof(float));
    c->deq = (float *)malloc((size_t)c->cfg.n_threads * 4 * (size_t)(F > E ? F : E) * sizeof(float));
    c->xsum = (float *)malloc((size_t)2 * (size_t)(F > (int)qd ? (F > E ? F : E) : (int)qd) / 32 * sizeof(float) + 64);
    c->rc = (int *)calloc((size_t)Hkv + LLM_MAX_THREADS + 1, sizeof(int));
    if (!c->x || !c->xb || !c->q || !c->k || !c->v || !c->att || !c->hb || !c->hb2 || !c->logits ||
        !c->rope || !c->deq || !c->rc || !c->xsum)
        return llm__fail(c->msg, "out of memory for the scratch buffers");
    c->pool = llm__pool_new(c->cfg.n_threads);
    if (!c->pool) return llm__fail(c->msg, "cannot start threads");
    c->cfg.n_threads = c->pool->n;
    if (c->cfg.attn == LLM_ATTN_PLAIN_F32 || c->cfg.attn == LLM_ATTN_PLAIN_BF16) {
        size_t n = (size_t)m->n_layer * c->cfg.n_ctx * kd;
        c->pk = (float *)malloc(n * sizeof(float));
        c->pv = (float *)malloc(n * sizeof(float));
        if (!c->pk || !c->pv)
            return llm__fail(c->msg, "out of memory for a plain K/V store of %d tokens", c->cfg.n_ctx);
        return 0;
    }
    if (c->cfg.attn != LLM_ATTN_OSCAR) return llm__fail(c->msg, "unknown attention path %d", c->cfg.attn);
    /* oscar caches: one for all heads, or one per KV head */
    c->n_caches = c->cfg.split_heads ? Hkv : 1;
    c->heads_per_cache = Hkv / c->n_caches;
    c->kv = (oscar_kv *)calloc((size_t)c->n_caches, sizeof(oscar_kv));
    c->seq = (int *)calloc((size_t)c->n_caches, sizeof(int));
    if (!c->kv || !c->seq) return llm__fail(c->msg, "out of memory");
    if (c->n_caches > 1 && cfg->kv.rot) {
        const oscar_rotations *r = cfg->kv.rot;
        int l, dd = D * D;
        if (r->n_layers != m->n_layer || r->head_dim != D || (r->per_head && r->n_kv_heads != Hkv))
            return llm__fail(c->msg, "rotations are for %d layers, head dim %d, %d KV heads; the model has %d, %d, %d",
                             r->n_layers, r->head_dim, r->n_kv_heads, m->n_layer, D, Hkv);
        c->sub_rot = (oscar_rotations *)calloc((size_t)c->n_caches, sizeof(oscar_rotations));
        if (!c->sub_rot) return llm__fail(c->msg, "out of memory");
        for (i = 0; i < c->n_caches; i++) {
            oscar_rotations *s = &c->sub_rot[i];
            int h = r->per_head ? i : 0, nh = r->per_head ? r->n_kv_heads : 1;
            if (oscar_rotations_alloc(s, m->n_layer, D, 1, 0) != OSCAR_OK)
                return llm__fail(c->msg, "rotations: %s", s->msg);
            s->composition = r->composition;
            s->k_clip = r->k_clip;
            s->v_clip = r->v_clip;
            s->group_size = r->group_size;
            for (l = 0; l < m->n_layer; l++) {
                memcpy(s->k_rot + (size_t)l * dd, r->k_rot + ((size_t)l * nh + h) * dd, (size_t)dd * sizeof(float));
                memcpy(s->v_rot + (size_t)l * dd, r->v_rot + ((size_t)l * nh + h) * dd, (size_t)dd * sizeof(float));
                if (r->k_eval && s->k_eval) memcpy(s->k_eval + (size_t)l * D, r->k_eval + ((size_t)l * nh + h) * D, (size_t)D * sizeof(float));
                if (r->v_eval && s->v_eval) memcpy(s->v_eval + (size_t)l * D, r->v_eval + ((size_t)l * nh + h) * D, (size_t)D * sizeof(float));
            }
            if (r->k_balance) { /* this cache's K balance (the shared one, or KV head i's) */
                if (oscar_rotations_alloc_balance(s) != OSCAR_OK) return llm__fail(c->msg, "rotations: %s", s->msg);
                for (l = 0; l < m->n_layer; l++) memcpy(s->k_balance + (size_t)l * D, r->k_balance + ((size_t)l * nh + h) * D, (size_t)D * sizeof(float));
            }
            if (r->k_mean && r->v_mean && r->n_kv_heads != Hkv)
                return llm__fail(c->msg, "the rotation file's means are for %d KV heads; the model has %d", r->n_kv_heads, Hkv);
            if (r->k_mean && r->v_mean) { /* this cache's KV head i of the means */
                if (oscar_rotations_alloc_means(s) != OSCAR_OK) return llm__fail(c->msg, "rotations: %s", s->msg);
                for (l = 0; l < m->n_layer; l++) {
                    memcpy(s->k_mean + (size_t)l * D, r->k_mean + ((size_t)l * Hkv + i) * D, (size_t)D * sizeof(float));
                    memcpy(s->v_mean + (size_t)l * D, r->v_mean + ((size_t)l * Hkv + i) * D, (size_t)D * sizeof(float));
                }
                if (r->k_rope_mean) { /* and of the pre-RoPE K means (OSCAR_CENTER_ROPE) */
                    if (oscar_rotations_alloc_rope_mean(s, r->rope_base) != OSCAR_OK) return llm__fail(c->msg, "rotations: %s", s->msg);
                    for (l = 0; l < m->n_layer; l++)
                        memcpy(s->k_rope_mean + (size_t)l * D, r->k_rope_mean + ((size_t)l * Hkv + i) * D, (size_t)D * sizeof(float));
                }
            }
        }
    }
    for (i = 0; i < c->n_caches; i++) {
        oscar_kv_config kc = cfg->kv;
        int P, S0, r;
        kc.n_layers = m->n_layer;
        kc.n_kv_heads = c->heads_per_cache;
        kc.head_dim = D;
        if (c->sub_rot) kc.rot = &c->sub_rot[i];
        P = kc.page_size > 0 ? kc.page_size : 64;
        S0 = kc.sink > 0 ? kc.sink : (kc.sink == 0 ? 64 : 0);
        if (kc.max_pages <= 0) kc.max_pages = (c->cfg.n_ctx > S0 ? c->cfg.n_ctx - S0 : 0) / P + 2;
        if (kc.max_seqs <= 0) kc.max_seqs = 1;
        r = oscar_kv_init(&c->kv[i], &kc);
        if (r != OSCAR_OK) return llm__fail(c->msg, "KV cache: %s (%s)", c->kv[i].msg, oscar_result_string(r));
        r = oscar_kv_seq_create(&c->kv[i], &c->seq[i]);
        if (r != OSCAR_OK) return llm__fail(c->msg, "KV cache: %s (%s)", c->kv[i].msg, oscar_result_string(r));
    }
    if (c->cfg.bf16_prefill) { /* bf16 rows and the blocked attention's scratch */
        size_t n = (size_t)m->n_layer * c->cfg.n_ctx * kd;
        c->pk = (float *)malloc(n * sizeof(float));
        c->pv = (float *)malloc(n * sizeof(float));
        c->sc = (float *)malloc((size_t)c->cfg.n_threads * llm__chunk_scratch(B, c->cfg.n_ctx, D) * sizeof(float));
        if (!c->pk || !c->pv || !c->sc)
            return llm__fail(c->msg, "out of memory for the bf16 prefill rows of %d tokens", c->cfg.n_ctx);
    }
    return 0;
}

void llm_ctx_free(llm_ctx *c) {
    int i;
    if (!c) return;
    llm__pool_free(c->pool);
    if (c->kv)
        for (i = 0; i < c->n_caches; i++) oscar_kv_free(&c->kv[i]);
    if (c->sub_rot)
        for (i = 0; i < c->n_caches; i++) oscar_rotations_free(&c->sub_rot[i]);
    free(c->sub_rot);
    free(c->kv);
    free(c->seq);
    free(c->pk);
    free(c->pv);
    free(c->x);
    free(c->xb);
    free(c->q);
    free(c->k);
    free(c->v);
    free(c->att);
    free(c->hb);
    free(c->hb2);
    free(c->logits);
    free(c->rope);
    free(c->deq);
    free(c->sc);
    free(c->rc);
    free(c->xsum);
    memset(c, 0, sizeof *c);
}

int llm_kv_memory(llm_ctx *c, oscar_kv_memory *mem) {
    int i, r;
    size_t elems;
    memset(mem, 0, sizeof *mem);
    for (i = 0; i < c->n_caches; i++) {
        oscar_kv_memory m;
        r = oscar_kv_memory_usage(&c->kv[i], c->seq[i], &m);
        if (r != OSCAR_OK) return llm__fail(c->msg, "KV memory: %s", c->kv[i].msg);
        mem->n_tokens = m.n_tokens;
        mem->n_sink = m.n_sink;
        mem->n_window = m.n_window;
        mem->n_history = m.n_history;
        mem->sink_bytes += m.sink_bytes;
        mem->window_bytes += m.window_bytes;
        mem->code_bytes += m.code_bytes;
        mem->scale_bytes += m.scale_bytes;
        mem->history_bf16_bytes += m.history_bf16_bytes;
        mem->total_bytes += m.total_bytes;
        mem->bf16_equiv_bytes += m.bf16_equiv_bytes;
    }
    elems = (size_t)mem->n_tokens * c->m->n_layer * c->m->n_head_kv * c->m->head_dim * 2;
    if (mem->n_tokens > 0) {
        mem->bytes_per_token = (double)mem->total_bytes / (double)mem->n_tokens;
        mem->bits_per_element = (double)mem->total_bytes * 8.0 / (double)elems;
    }
    if (mem->n_history > 0)
        mem->history_bits_per_element = (double)(mem->code_bytes + mem->scale_bytes) * 8.0 /
                                        ((double)mem->n_history * c->m->n_layer * c->m->n_head_kv * c->m->head_dim * 2);
    return 0;
}

/* >>attn ---- attention of token b of the chunk at position pos, layer l ---- */
typedef struct llm__at {
    llm_ctx *c;
    int l, pos;
    const float *q, *k, *v; /* this token's [Hq][d], [Hkv][d], [Hkv][d] */
    float *out;             /* [Hq][d] */
} llm__at;

static void llm__attn_oscar_task(void *arg, int ith, int nth) {
    llm__at *a = (llm__at *)arg;
    llm_ctx *c = a->c;
    int D = c->m->head_dim, G = c->m->n_head / c->m->n_head_kv, hc = c->heads_per_cache, i;
    for (i = ith; i < c->n_caches; i += nth) {
        size_t ko = (size_t)i * hc * D, qo = (size_t)i * hc * G * D;
        int r = oscar_kv_append(&c->kv[i], c->seq[i], a->l, a->k + ko, a->v + ko, 1);
        if (r == OSCAR_OK) r = oscar_kv_attend(&c->kv[i], c->seq[i], a->l, a->out + qo, a->q + qo, hc * G, 0.0f);
        c->rc[i] = r;
    }
}

/* keeps token pos's K/V rows of layer l in the runner's store (pk, pv), rounded to bf16 if asked */
static void llm__store_rows(llm_ctx *c, int l, int pos, const float *k, const float *v, int bf16) {
    size_t kd = (size_t)c->m->n_head_kv * c->m->head_dim, off = ((size_t)l * c->cfg.n_ctx + pos) * kd, j;
    for (j = 0; j < kd; j++) {
        c->pk[off + j] = bf16 ? llm__round_bf16(k[j]) : k[j];
        c->pv[off + j] = bf16 ? llm__round_bf16(v[j]) : v[j];
    }
}

/* >>prefill ---- bf16 prefill: a whole chunk appends to the caches, then attends plainly ---- */
typedef struct llm__chunk {
    llm_ctx *c;
    int l, pos0, B;
} llm__chunk;

static void llm__append_chunk_task(void *arg, int ith, int nth) {
    llm__chunk *a = (llm__chunk *)arg;
    llm_ctx *c = a->c;
    int D = c->m->head_dim, hc = c->heads_per_cache, i, b;
    size_t kd = (size_t)c->m->n_head_kv * D;
    for (i = ith; i < c->n_caches; i += nth) {
        size_t ko = (size_t)i * hc * D;
        int r = OSCAR_OK;
        for (b = 0; b < a->B && r == OSCAR_OK; b++)
            r = oscar_kv_append(&c->kv[i], c->seq[i], a->l, c->k + (size_t)b * kd + ko, c->v + (size_t)b * kd + ko, 1);
        c->rc[i] = r;
    }
}

/* causal softmax attention of the chunk's B queries (positions pos0..pos0+B-1) over the bf16 rows
   0..pos0+B-1 of layer l, one query head at a time: scores against a transposed tile of LLM_KT keys
   (converted to double once per tile; the inner loops run over keys or channels with one
   accumulator each, so they vectorise without reassociation), a softmax per query, then P.V tile by
   tile. Double arithmetic in the plain path's order, so the result equals it bit for bit (this
   model's logits move by ~2e-3 of their range when attention runs in fp32). */
static void llm__attn_chunk_task(void *arg, int ith, int nth) {
    llm__chunk *a = (llm__chunk *)arg;
    llm_ctx *c = a->c;
    const llm_model *m = c->m;
    int D = m->head_dim, Hq = m->n_head, G = Hq / m->n_head_kv, B = a->B, NB = c->cfg.n_batch, n = a->pos0 + a->B, h, b, t, t0, i;
    size_t kd = (size_t)m->n_head_kv * D, qd = (size_t)Hq * D, ld = (size_t)c->cfg.n_ctx + LLM_KT;
    const float *K = c->pk + (size_t)a->l * c->cfg.n_ctx * kd, *V = c->pv + (size_t)a->l * c->cfg.n_ctx * kd;
    double *S = (double *)(c->sc + (size_t)ith * llm__chunk_scratch(NB, c->cfg.n_ctx, D)); /* [NB][ld] */
    double *o = S + (size_t)NB * ld, *den = o + (size_t)NB * D, *tile = den + NB; /* [NB][D], [NB], [D][LLM_KT] or [LLM_KT][D] */
    double scale = 1.0 / sqrt((double)D);
    for (h = ith; h < Hq; h += nth) {
        int j = h / G;
        for (t0 = 0; t0 < n; t0 += LLM_KT) { /* scores */
            int tn = n - t0 < LLM_KT ? n - t0 : LLM_KT;
            for (t = 0; t < tn; t++)
                for (i = 0; i < D; i++) tile[(size_t)i * LLM_KT + t] = K[(size_t)(t0 + t) * kd + (size_t)j * D + i];
            for (; t < LLM_KT; t++)
                for (i = 0; i < D; i++) tile[(size_t)i * LLM_KT + t] = 0.0;
            for (b = 0; b < B; b++) {
                const float *q = c->q + (size_t)b * qd + (size_t)h * D;
                double acc[LLM_KT];
                int qpos = a->pos0 + b, cnt;
                if (qpos < t0) continue;
                cnt = qpos - t0 + 1 < tn ? qpos - t0 + 1 : tn;
                for (t = 0; t < LLM_KT; t++) acc[t] = 0.0;
                for (i = 0; i < D; i++) {
                    double qi = q[i];
                    const double *kr = tile + (size_t)i * LLM_KT;
                    for (t = 0; t < LLM_KT; t++) acc[t] += qi * kr[t];
                }
                for (t = 0; t < cnt; t++) S[(size_t)b * ld + t0 + t] = acc[t] * scale;
            }
        }
        for (b = 0; b < B; b++) { /* softmax over positions 0..qpos */
            double *s = S + (size_t)b * ld, mx = -INFINITY, sum = 0.0;
            int qn = a->pos0 + b + 1;
            for (t = 0; t < qn; t++) mx = s[t] > mx ? s[t] : mx;
            for (t = 0; t < qn; t++) {
                s[t] = exp(s[t] - mx);
                sum += s[t];
            }
            den[b] = sum;
            for (i = 0; i < D; i++) o[(size_t)b * D + i] = 0.0;
        }
        for (t0 = 0; t0 < n; t0 += LLM_KT) { /* P.V */
            int tn = n - t0 < LLM_KT ? n - t0 : LLM_KT;
            for (t = 0; t < tn; t++)
                for (i = 0; i < D; i++) tile[(size_t)t * D + i] = V[(size_t)(t0 + t) * kd + (size_t)j * D + i];
            for (b = 0; b < B; b++) {
                int qpos = a->pos0 + b, cnt;
                double *ob = o + (size_t)b * D;
                if (qpos < t0) continue;
                cnt = qpos - t0 + 1 < tn ? qpos - t0 + 1 : tn;
                for (t = 0; t < cnt; t++) {
                    double p = S[(size_t)b * ld + t0 + t];
                    const double *vr = tile + (size_t)t * D;
                    for (i = 0; i < D; i++) ob[i] += p * vr[i];
                }
            }
        }
        for (b = 0; b < B; b++)
            for (i = 0; i < D; i++) c->att[(size_t)b * qd + (size_t)h * D + i] = (float)(o[(size_t)b * D + i] / den[b]);
    }
}

static void llm__attn_plain_task(void *arg, int ith, int nth) {
    llm__at *a = (llm__at *)arg;
    llm_ctx *c = a->c;
    const llm_model *m = c->m;
    int D = m->head_dim, Hkv = m->n_head_kv, G = m->n_head / Hkv, h, t, i, n = a->pos + 1;
    size_t kd = (size_t)Hkv * D;
    const float *K = c->pk + (size_t)a->l * c->cfg.n_ctx * kd, *V = c->pv + (size_t)a->l * c->cfg.n_ctx * kd;
    float scale = 1.0f / sqrtf((float)D);
    double *sc = (double *)malloc((size_t)n * sizeof(double)), acc[1024];
    if (!sc) {
        c->rc[ith] = -1;
        return;
    }
    for (h = ith; h < m->n_head; h += nth) {
        const float *q = a->q + (size_t)h * D;
        int j = h / G;
        double mx = -INFINITY, sum = 0;
        for (t = 0; t < n; t++) {
            const float *kr = K + (size_t)t * kd + (size_t)j * D;
            double s = 0;
            for (i = 0; i < D; i++) s += (double)q[i] * kr[i];
            sc[t] = s * scale;
            if (sc[t] > mx) mx = sc[t];
        }
        for (i = 0; i < D; i++) acc[i] = 0;
        for (t = 0; t < n; t++) {
            const float *vr = V + (size_t)t * kd + (size_t)j * D;
            double p = exp(sc[t] - mx);
            sum += p;
            for (i = 0; i < D; i++) acc[i] += p * vr[i];
        }
        for (i = 0; i < D; i++) a->out[(size_t)h * D + i] = (float)(acc[i] / sum);
    }
    free(sc);
}

int llm_eval(llm_ctx *c, const int *tokens, int n, float *logits, int all_logits,
             void (*progress)(void *user, int done, int total), void *user) {
    const llm_model *m = c->m;
    int E = m->n_embd, D = m->head_dim, Hq = m->n_head, Hkv = m->n_head_kv, F = m->n_ff;
    size_t qd = (size_t)Hq * D, kd = (size_t)Hkv * D;
    int done = 0, i;
    for (i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= m->n_vocab) return llm__fail(c->msg, "token id %d out of range", tokens[i]);
    if (n > c->cfg.n_ctx - c->n_past)
        return llm__fail(c->msg, "context full: %d + %d tokens exceed %d", c->n_past, n, c->cfg.n_ctx);
    if (c->prefill && !c->sc)
        return llm__fail(c->msg, "prefill is set but the context keeps no bf16 rows (make it with bf16_prefill on the oscar path)");
    while (done < n) {
        int B = n - done < c->cfg.n_batch ? n - done : c->cfg.n_batch, b, l, h, j;
        int pos0 = c->n_past;
        for (b = 0; b < B; b++) {
            llm_dequant_row(c->x + (size_t)b * E, &m->tok_embd, tokens[done + b]);
            for (i = 0; i < D / 2; i++) { /* theta_i = pos * base^(-2i/d) */
                double th = (double)(pos0 + b) * pow((double)m->rope_base, -2.0 * i / D);
                c->rope[(size_t)b * D + 2 * i] = (float)cos(th);
                c->rope[(size_t)b * D + 2 * i + 1] = (float)sin(th);
            }
        }
        for (l = 0; l < m->n_layer; l++) {
            const llm_layer *y = &m->layers[l];
            for (b = 0; b < B; b++) llm__rmsnorm(c->xb + (size_t)b * E, c->x + (size_t)b * E, y->attn_norm, E, m->eps);
            llm__matmul(c, c->q, c->xb, &y->wq, B, 0);
            llm__matmul(c, c->k, c->xb, &y->wk, B, 0);
            llm__matmul(c, c->v, c->xb, &y->wv, B, 0);
            for (b = 0; b < B; b++) {
                for (h = 0; h < Hq; h++) llm__rope_head(c->q + (size_t)b * qd + (size_t)h * D, c->rope + (size_t)b * D, D);
                for (h = 0; h < Hkv; h++) llm__rope_head(c->k + (size_t)b * kd + (size_t)h * D, c->rope + (size_t)b * D, D);
            }
            if (c->prefill) { /* bf16 prefill (pk, pv and sc exist: checked above) */
                llm__chunk a;
                a.c = c;
                a.l = l;
                a.pos0 = pos0;
                a.B = B;
                for (b = 0; b < B; b++) {
                    const float *kb = c->k + (size_t)b * kd, *vb = c->v + (size_t)b * kd;
                    if (c->cfg.on_qkv) c->cfg.on_qkv(c->cfg.user, l, pos0 + b, c->q + (size_t)b * qd, kb, vb);
                    llm__store_rows(c, l, pos0 + b, kb, vb, 1);
                }
                for (j = 0; j <= Hkv + LLM_MAX_THREADS; j++) c->rc[j] = 0;
                llm__pool_run(c->pool, llm__append_chunk_task, &a);
                for (j = 0; j < c->n_caches; j++)
                    if (c->rc[j] != OSCAR_OK)
                        return llm__fail(c->msg, "KV cache, layer %d, positions %d..%d: %s (%s)", l, pos0, pos0 + B - 1,
                                         c->kv[j].msg, oscar_result_string(c->rc[j]));
                llm__pool_run(c->pool, llm__attn_chunk_task, &a);
            } else for (b = 0; b < B; b++) {
                llm__at a;
                int pos = pos0 + b;
                a.c = c;
                a.l = l;
                a.pos = pos;
                a.q = c->q + (size_t)b * qd;
                a.k = c->k + (size_t)b * kd;
                a.v = c->v + (size_t)b * kd;
                a.out = c->att + (size_t)b * qd;
                if (c->cfg.on_qkv) c->cfg.on_qkv(c->cfg.user, l, pos, a.q, a.k, a.v);
                for (j = 0; j <= Hkv + LLM_MAX_THREADS; j++) c->rc[j] = 0;
                if (c->cfg.attn == LLM_ATTN_OSCAR) {
                    llm__pool_run(c->pool, llm__attn_oscar_task, &a);
                    for (j = 0; j < c->n_caches; j++)
                        if (c->rc[j] != OSCAR_OK)
                            return llm__fail(c->msg, "KV cache, layer %d, position %d: %s (%s)", l, pos,
                                             c->kv[j].msg, oscar_result_string(c->rc[j]));
                } else {
                    llm__store_rows(c, l, pos, a.k, a.v, c->cfg.attn == LLM_ATTN_PLAIN_BF16);
                    llm__pool_run(c->pool, llm__attn_plain_task, &a);
                    for (j = 0; j < c->cfg.n_threads; j++)
                        if (c->rc[j]) return llm__fail(c->msg, "out of memory in attention");
                }
            }
            llm__matmul(c, c->x, c->att, &y->wo, B, 1); /* residual */
            for (b = 0; b < B; b++) llm__rmsnorm(c->xb + (size_t)b * E, c->x + (size_t)b * E, y->ffn_norm, E, m->eps);
            llm__matmul(c, c->hb, c->xb, &y->w_gate, B, 0);
            llm__matmul(c, c->hb2, c->xb, &y->w_up, B, 0);
            for (i = 0; i < B * F; i++) {
                float g = c->hb[i];
                c->hb[i] = g / (1.0f + expf(-g)) * c->hb2[i];
            }
            llm__matmul(c, c->x, c->hb, &y->w_down, B, 1); /* residual */
        }
        c->n_past += B;
        if (logits && (all_logits || done + B == n)) {
            int b0 = all_logits ? 0 : B - 1;
            for (b = b0; b < B; b++) llm__rmsnorm(c->xb + (size_t)(b - b0) * E, c->x + (size_t)b * E, m->output_norm, E, m->eps);
            llm__matmul(c, all_logits ? logits + (size_t)done * m->n_vocab : logits, c->xb, &m->output, B - b0, 0);
        }
        done += B;
        if (progress) progress(user, done, n);
    }
    return 0;
}
