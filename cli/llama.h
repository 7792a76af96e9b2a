/* llama.h - Llama-architecture forward pass on the CPU over a GGUF file, with oscar's KV cache
   - part of the oscar CLI - MIT

   Weights: F32, F16, BF16, Q4_0, Q4_1, Q8_0 (read in place from the GGUF buffer, dequantised a
   row at a time). RMSNorm, RoPE in GGUF's adjacent-pair layout (llama.cpp's converter permutes
   the Q/K rows of HF checkpoints so that pairs (2i, 2i+1) rotate together), GQA, SwiGLU, tied or
   separate output head. Matrix products are split over a small pthread pool.

   THE CACHE BASIS: post-RoPE queries and keys are handed to the cache in the HF (half-split)
   channel order: hf[i] = gguf[2i], hf[i + d/2] = gguf[2i + 1] for i < d/2. Scores do not change
   (q and k are permuted alike), but rotations fitted on activations dumped from an HF/PyTorch
   model apply unchanged. Values are not permuted.

   ATTENTION PATHS (llm_ctx_config.attn)
     LLM_ATTN_OSCAR       every layer appends the token's K/V to an oscar_kv cache and attends
                          with oscar_kv_attend (any cache mode). With split_heads, one cache per
                          KV head so that heads are attended on different threads.
     LLM_ATTN_PLAIN_F32   plain causal softmax attention over fp32 K/V rows kept by the runner
     LLM_ATTN_PLAIN_BF16  the same over K/V rounded to bf16 (what a BF16 cache stores)
   Within a chunk of prompt tokens each token appends and attends before the next one, so every
   position sees the cache exactly as decode would.

   BF16 PREFILL (llm_ctx_config.bf16_prefill, oscar path): the runner also keeps every K/V row
   rounded to bf16, and while llm_ctx.prefill is set a chunk's tokens append to the cache but
   attend plainly over those bf16 rows (blocked causal attention over the whole chunk): what a
   serving engine's prefill does, where the prompt attends at full precision and only the tokens
   decoded after it read the compressed cache. Clear llm_ctx.prefill before decoding.
*/
#ifndef LLAMA_H
#define LLAMA_H

#include <stddef.h>
#include <stdint.h>
#include "gguf.h"
#include "tokenizer.h"
#include "../oscar.h"

#define LLM_MSG_SIZE 512
#define LLM_MAX_THREADS 64

typedef struct llm_weight {
    int type;          /* GGML_* */
    int64_t rows, cols;/* W[rows][cols], cols contiguous */
    size_t row_bytes;
    const uint8_t *data;
} llm_weight;

typedef struct llm_layer {
    float *attn_norm, *ffn_norm; /* [n_embd] */
    llm_weight wq, wk, wv, wo, w_gate, w_up, w_down;
} llm_layer;

typedef struct llm_model {
    gguf_file file;
    tok_vocab tok;
    int n_layer, n_embd, n_head, n_head_kv, head_dim, n_ff, n_vocab, n_ctx_train;
    float eps, rope_base;
    llm_weight tok_embd, output; /* output == tok_embd when tied */
    int tied;
    float *output_norm;
    llm_layer *layers;
    char msg[LLM_MSG_SIZE];
} llm_model;

enum { LLM_ATTN_OSCAR = 0, LLM_ATTN_PLAIN_F32 = 1, LLM_ATTN_PLAIN_BF16 = 2 };

typedef struct llm_ctx_config {
    int n_ctx;          /* 0: the model's training context */
    int n_threads;      /* 0: 1 */
    int n_batch;        /* prompt tokens per chunk; 0: 32 */
    int attn;           /* LLM_ATTN_* */
    int split_heads;    /* oscar path: one cache per KV head (parallel attention) */
    int bf16_prefill;   /* oscar path: keep bf16 K/V rows too, so that llm_ctx.prefill can be set */
    oscar_kv_config kv; /* oscar path: mode, sink, window, group, page, clips, rot (layers, heads,
                           head_dim and max_pages are filled in) */
    /* optional hook: post-RoPE q [Hq][d], k [Hkv][d] (cache basis) and v [Hkv][d] of every
       token of every layer, called in order of (token, layer) within a chunk's layer */
    void (*on_qkv)(void *user, int layer, int pos, const float *q, const float *k, const float *v);
    void *user;
} llm_ctx_config;

struct llm_pool;

typedef struct llm_ctx {
    const llm_model *m;
    llm_ctx_config cfg;
    int n_past;
    int prefill;        /* with cfg.bf16_prefill: chunks attend plainly over the bf16 rows (the
                           cache still receives them); 0: through the cache */
    /* oscar path */
    oscar_kv *kv;       /* [n_caches] */
    int *seq;
    int n_caches, heads_per_cache;
    oscar_rotations *sub_rot; /* [n_caches] when split */
    /* plain path: [L][n_ctx][Hkv][d] */
    float *pk, *pv;
    /* scratch for a chunk of B tokens */
    float *x, *xb, *q, *k, *v, *att, *hb, *hb2, *logits, *rope;
    float *deq;        /* [n_threads][4][max(n_embd, n_ff)] dequantised rows */
    float *sc;         /* bf16 prefill: per thread, the blocked attention's scores and sums */
    float *xsum;       /* [2][max K / 32] block sums for the fused kernels */
    int *rc;
    struct llm_pool *pool;
    char msg[LLM_MSG_SIZE];
} llm_ctx;

#ifdef __cplusplus
extern "C" {
#endif
/* 0 on success, -1 with m->msg set. llm_free accepts a failed model. */
int llm_load(llm_model *m, const char *path);
void llm_free(llm_model *m);
const char *llm_type_supported(int ggml_type); /* NULL if supported, else the type name */

int llm_ctx_init(llm_ctx *c, const llm_model *m, const llm_ctx_config *cfg);
void llm_ctx_free(llm_ctx *c);
/* Runs n tokens at positions n_past.. and advances n_past. logits: NULL, or [n_vocab] for the
   last token, or [n][n_vocab] for every token when all_logits. progress(user, done, total) is
   called after each chunk when given. 0 on success, -1 with c->msg set. */
int llm_eval(llm_ctx *c, const int *tokens, int n, float *logits, int all_logits,
             void (*progress)(void *user, int done, int total), void *user);
/* the oscar path's memory use, summed over the caches */
int llm_kv_memory(llm_ctx *c, oscar_kv_memory *mem);
/* row dequantisation (exposed for tests): out [cols] <- row r of w */
void llm_dequant_row(float *out, const llm_weight *w, int64_t r);
#ifdef __cplusplus
}
#endif
#endif /* LLAMA_H */
