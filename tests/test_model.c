/* test_model.c - the SmolLM2 runner against an independent reference and against itself.

   usage: test_model MODEL.gguf [REF.bin [TOK_TEXT TOK_IDS]]
     MODEL absent: prints SKIP and exits 0.
     REF.bin (written by tests/ref_llama.py): logits of the fixed prompt and its greedy
     continuation from a numpy float64 forward pass.
     TOK_TEXT, TOK_IDS (ref_llama.py --tokenizer): a text of edge cases and the ids Hugging Face
     `tokenizers` gives it.
   Built with -DTEST_MODEL_QUICK (the ASan run), the sequences are 28 tokens instead of 300.

   Checks
     1. tokenizer: the ids of three fixed strings; ChatML control tokens.
     2. reference: C logits with plain fp32 attention within 1e-3 of the logit range of the
        reference at every prompt position (through the BF16 cache: 1e-2, for K/V rounding);
        the greedy 32-token continuation identical on both paths.
     3. BF16 cache == plain attention over bf16-rounded K/V (no window logic), every position of
        a 300-token text, with the default sink/window/page and with a tiny one (many pages).
     4. INT2 modes (naive, hadamard): segment bookkeeping past 8 pages (sink 4, window 16, page 8,
        300 tokens = 35 pages; quick: sink 2, window 4, page 2, 28 tokens = 11 pages) in every layer and cache; oscar_kv_attend on the runner's cache
        against plain attention over the rows read back; memory accounting; sane quality vs BF16.
     5. one cache for all heads == one cache per head (same numbers, threads only split work).
     6. bf16 prefill (blocked attention over bf16 rows while the rows go into the cache) == plain
        bf16 attention; with an INT2 cache the prompt's logits equal the BF16 cache's bit for bit,
        the cache holds every row, and the decoded tokens after it read the cache. */
#define _POSIX_C_SOURCE 200809L
#define OSCAR_IMPLEMENTATION
#include "../oscar.h"
#include "../cli/llama.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_pass, n_fail;

#ifdef TEST_MODEL_QUICK
enum { N_TOK = 28, I2_SINK = 2, I2_WIN = 4, I2_PAGE = 2 };
#else
enum { N_TOK = 300, I2_SINK = 4, I2_WIN = 16, I2_PAGE = 8 };
#endif

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (cond) n_pass++;                                \
        else {                                             \
            n_fail++;                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
        }                                                  \
    } while (0)

static const char *TEXT =
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife. However little known the feelings or views of such a man may be "
    "on his first entering a neighbourhood, this truth is so well fixed in the minds of the "
    "surrounding families, that he is considered the rightful property of some one or other of "
    "their daughters. \"My dear Mr. Bennet,\" said his lady to him one day, \"have you heard that "
    "Netherfield Park is let at last?\" Mr. Bennet replied that he had not. \"But it is,\" returned "
    "she; \"for Mrs. Long has just been here, and she told me all about it.\" Mr. Bennet made no "
    "answer. \"Do you not want to know who has taken it?\" cried his wife impatiently. \"You want "
    "to tell me, and I have no objection to hearing it.\" This was invitation enough. \"Why, my "
    "dear, you must know, Mrs. Long says that Netherfield is taken by a young man of large fortune "
    "from the north of England; that he came down on Monday in a chaise and four to see the place, "
    "and was so much delighted with it, that he agreed with Mr. Morris immediately; that he is to "
    "take possession before Michaelmas, and some of his servants are to be in the house by the end "
    "of next week.\" \"What is his name?\" \"Bingley.\" \"Is he married or single?\" \"Oh! Single, "
    "my dear, to be sure! A single man of large fortune; four or five thousand a year. What a fine "
    "thing for our girls!\" \"How so? How can it affect them?\" \"My dear Mr. Bennet,\" replied his "
    "wife, \"how can you be so tiresome! You must know that I am thinking of his marrying one of "
    "them.\" \"Is that his design in settling here?\" \"Design! Nonsense, how can you talk so! But "
    "it is very likely that he may fall in love with one of them, and therefore you must visit him "
    "as soon as he comes.\"";

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0;
    *len = (size_t)n;
    return b;
}

/* the C tokenizer against Hugging Face tokenizers' ids for the same text */
static void test_tokenizer_file(const llm_model *m, const char *text_path, const char *ids_path) {
    size_t tl, il;
    char *text = slurp(text_path, &tl), *ref = slurp(ids_path, &il), *p;
    int *ids = NULL, n = 0, i = 0, ok = 1;
    if (!text || !ref || tok_encode(&m->tok, text, tl, 1, &ids, &n)) {
        printf("FAIL: cannot read %s / %s\n", text_path, ids_path);
        n_fail++;
    } else {
        for (p = ref; ok; i++) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p) break;
            p = end;
            if (i >= n || ids[i] != v) {
                printf("  token %d: C %d, HF tokenizers %ld\n", i, i < n ? ids[i] : -1, v);
                ok = 0;
            }
        }
        CHECK(ok && i == n, "tokenizer vs HF tokenizers: %d vs %d ids", n, i);
        if (ok && i == n) printf("tokenizer: %d ids for %zu bytes of edge cases, identical to HF tokenizers\n", n, tl);
    }
    free(ids);
    free(text);
    free(ref);
}

static void test_tokenizer(const llm_model *m) {
    static const struct { const char *text; int n; int ids[8]; } cases[] = {
        {"Hello, we can use", 5, {19556, 28, 392, 416, 722}},
        {"The capital of France is", 5, {504, 3575, 282, 4649, 314}},
        {"\n", 1, {198}},
        {"<|im_start|>user\n", 3, {1, 4093, 198}},
    };
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int *ids, n, ok, i;
        ok = tok_encode(&m->tok, cases[c].text, strlen(cases[c].text), 1, &ids, &n) == 0 && n == cases[c].n;
        for (i = 0; ok && i < n; i++) ok = ids[i] == cases[c].ids[i];
        CHECK(ok, "tokenize '%s': got %d ids, first %d", cases[c].text, n, n > 0 ? ids[0] : -1);
        free(ids);
    }
    CHECK(m->tok.eos == 2 && m->tok.eot == 2 && m->tok.bos == 1, "special ids eos %d eot %d bos %d", m->tok.eos, m->tok.eot, m->tok.bos);
}

/* logits of every position of tokens[0..n) through a fresh context; returns a malloc'ed
   [n][n_vocab] array (NULL on error, reported) */
static float *run_all(const llm_model *m, const llm_ctx_config *cfg, const int *tokens, int n, llm_ctx *keep) {
    llm_ctx c;
    float *lg = (float *)malloc((size_t)n * m->n_vocab * sizeof(float));
    if (!lg) return NULL;
    if (llm_ctx_init(&c, m, cfg) || llm_eval(&c, tokens, n, lg, 1, NULL, NULL)) {
        printf("FAIL: runner: %s\n", c.msg);
        n_fail++;
        free(lg);
        llm_ctx_free(&c);
        return NULL;
    }
    if (keep) *keep = c;
    else llm_ctx_free(&c);
    return lg;
}

static double max_range(const float *lg, int n, int V) {
    double r = 0;
    int t, i;
    for (t = 0; t < n; t++) {
        float mn = lg[(size_t)t * V], mx = mn;
        for (i = 1; i < V; i++) {
            float x = lg[(size_t)t * V + i];
            if (x < mn) mn = x;
            if (x > mx) mx = x;
        }
        if (mx - mn > r) r = mx - mn;
    }
    return r;
}

static double max_diff(const float *a, const float *b, size_t n) {
    double d = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double e = fabs((double)a[i] - b[i]);
        if (!(e <= d)) d = e; /* NaN propagates */
    }
    return d;
}

static int argmax(const float *x, int n) {
    int i, b = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return b;
}

static int *read_ref(const char *path, int *n_prompt, int *n_vocab, int *n_gen, float **logits) {
    FILE *f = fopen(path, "rb");
    char magic[4];
    int32_t h[3];
    int *ids = NULL;
    size_t nl;
    if (!f) return NULL;
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "OREF", 4) || fread(h, 4, 3, f) != 3 || h[0] <= 0 ||
        h[0] > 4096 || h[1] <= 0 || h[1] > 1 << 20 || h[2] < 0 || h[2] > 4096) {
        fclose(f);
        return NULL;
    }
    *n_prompt = h[0];
    *n_vocab = h[1];
    *n_gen = h[2];
    nl = (size_t)h[0] * h[1];
    ids = (int *)malloc((size_t)(h[0] + h[2]) * sizeof(int));
    *logits = (float *)malloc(nl * sizeof(float));
    if (!ids || !*logits || fread(ids, 4, (size_t)(h[0] + h[2]), f) != (size_t)(h[0] + h[2]) ||
        fread(*logits, 4, nl, f) != nl) {
        free(ids);
        free(*logits);
        fclose(f);
        return NULL;
    }
    fclose(f);
    return ids;
}

static void test_reference(const llm_model *m, const char *ref_path) {
    int np, V, ng, *ids, mode;
    float *ref;
    ids = read_ref(ref_path, &np, &V, &ng, &ref);
    if (!ids) {
        printf("FAIL: cannot read the reference file %s\n", ref_path);
        n_fail++;
        return;
    }
    CHECK(V == m->n_vocab, "reference vocabulary %d vs %d", V, m->n_vocab);
    for (mode = 0; mode < 2 && V == m->n_vocab; mode++) {
        llm_ctx_config cfg;
        llm_ctx c;
        float *lg;
        double range, diff, limit;
        int g, same = 1, *seq = (int *)malloc((size_t)(np + ng) * sizeof(int));
        memset(&cfg, 0, sizeof cfg);
        cfg.n_ctx = np + ng + 1;
        cfg.n_threads = 2;
        cfg.attn = mode == 0 ? LLM_ATTN_PLAIN_F32 : LLM_ATTN_OSCAR;
        cfg.split_heads = 1;
        cfg.kv.mode = OSCAR_KV_BF16;
        lg = run_all(m, &cfg, ids, np, &c);
        if (!lg || !seq) {
            free(lg);
            free(seq);
            break;
        }
        /* fp32 attention: 1e-3 of the range (the bound); the BF16 cache rounds K and V
           to 8 significant bits, which moves logits by a few 1e-3 of the range: 1e-2 there */
        limit = mode == 0 ? 1e-3 : 1e-2;
        range = max_range(ref, np, V);
        diff = max_diff(lg, ref, (size_t)np * V);
        printf("reference (%s): %d prompt positions, max |C - ref| = %.3g, logit range %.3g (ratio %.2g, limit %g)\n",
               mode == 0 ? "plain fp32 attention" : "BF16 cache", np, diff, range, diff / range, limit);
        CHECK(diff <= limit * range, "logits differ from the reference by %g (range %g)", diff, range);
        /* greedy continuation */
        memcpy(seq, ids, (size_t)np * sizeof(int));
        {
            float *last = lg + (size_t)(np - 1) * V;
            for (g = 0; g < ng; g++) {
                int t = argmax(last, V);
                seq[np + g] = t;
                if (t != ids[np + g]) {
                    if (same) printf("  greedy token %d: C %d, reference %d\n", g, t, ids[np + g]);
                    same = 0;
                }
                if (g + 1 < ng && llm_eval(&c, &t, 1, c.logits, 0, NULL, NULL)) {
                    printf("FAIL: %s\n", c.msg);
                    n_fail++;
                    break;
                }
                last = c.logits;
            }
        }
        CHECK(same, "greedy %d-token continuation differs from the reference (%s)", ng, mode == 0 ? "plain" : "bf16 cache");
        if (same) printf("reference (%s): greedy %d-token continuation identical\n", mode == 0 ? "plain fp32 attention" : "BF16 cache", ng);
        llm_ctx_free(&c);
        free(lg);
        free(seq);
    }
    free(ids);
    free(ref);
}

static int *text_tokens(const llm_model *m, int want, int *n) {
    int *ids;
    if (tok_encode(&m->tok, TEXT, strlen(TEXT), 0, &ids, n)) return NULL;
    if (*n > want) *n = want;
    return ids;
}

static void test_bf16_exact(const llm_model *m) {
    int n, *ids = text_tokens(m, N_TOK, &n), variant;
    float *plain;
    llm_ctx_config cfg;
    if (!ids) return;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_ctx = n;
    cfg.n_threads = 2;
    cfg.attn = LLM_ATTN_PLAIN_BF16;
    plain = run_all(m, &cfg, ids, n, NULL);
    for (variant = 0; plain && variant < 2; variant++) {
        float *lg;
        cfg.attn = LLM_ATTN_OSCAR;
        cfg.split_heads = 1;
        cfg.kv.mode = OSCAR_KV_BF16;
        if (variant == 0) { /* defaults: sink 64, window 256, page 64 */
            cfg.kv.sink = cfg.kv.window = cfg.kv.page_size = 0;
        } else {
            cfg.kv.sink = I2_SINK;
            cfg.kv.window = I2_WIN;
            cfg.kv.page_size = I2_PAGE;
        }
        lg = run_all(m, &cfg, ids, n, NULL);
        if (lg) {
            double range = max_range(plain, n, m->n_vocab), diff = max_diff(lg, plain, (size_t)n * m->n_vocab);
            int t, agree = 0;
            for (t = 0; t < n; t++) agree += argmax(lg + (size_t)t * m->n_vocab, m->n_vocab) == argmax(plain + (size_t)t * m->n_vocab, m->n_vocab);
            printf("bf16 cache (%s) vs plain bf16 attention, %d positions: max diff %.3g (range %.3g), top-1 %d/%d\n",
                   variant ? "small sink/window/page" : "sink 64, window 256, page 64", n, diff, range, agree, n);
            CHECK(diff <= 1e-4 * range && agree == n, "bf16 cache differs from plain attention: %g, top-1 %d/%d", diff, agree, n);
        }
        free(lg);
    }
    free(plain);
    free(ids);
}

static void test_int2(const llm_model *m) {
    int n, *ids = text_tokens(m, N_TOK, &n), mode;
    float *ref;
    llm_ctx_config cfg;
    const int S0 = I2_SINK, W = I2_WIN, P = I2_PAGE;
    if (!ids) return;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_ctx = n;
    cfg.n_threads = 2;
    cfg.attn = LLM_ATTN_OSCAR;
    cfg.split_heads = 1;
    cfg.kv.mode = OSCAR_KV_BF16;
    cfg.kv.sink = S0;
    cfg.kv.window = W;
    cfg.kv.page_size = P;
    ref = run_all(m, &cfg, ids, n, NULL);
    for (mode = 0; ref && mode < 2; mode++) {
        oscar_rotations rot;
        llm_ctx c;
        float *lg;
        int H = P * ((n - S0 - W) / P), l, i, agree = 0, t, ok = 1;
        memset(&rot, 0, sizeof rot);
        cfg.kv.mode = OSCAR_KV_INT2;
        cfg.kv.rot = NULL;
        cfg.kv.k_clip = cfg.kv.v_clip = mode == 0 ? -1.0f : 0.0f;
        if (mode == 1) {
            if (oscar_rotations_alloc(&rot, m->n_layer, m->head_dim, m->n_head_kv, 0) || oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD)) {
                printf("FAIL: rotations: %s\n", rot.msg);
                n_fail++;
                break;
            }
            cfg.kv.rot = &rot;
        }
        lg = run_all(m, &cfg, ids, n, &c);
        if (!lg) {
            oscar_rotations_free(&rot);
            continue;
        }
        /* bookkeeping in every cache and layer */
        for (i = 0; i < c.n_caches; i++)
            for (l = 0; l < m->n_layer; l++) {
                int ns = -1, nh = -1, nr = -1, np = -1;
                oscar_kv_segments(&c.kv[i], c.seq[i], l, &ns, &nh, &nr);
                oscar_kv_block_table(&c.kv[i], c.seq[i], &np);
                if (ns != S0 || nh != H || nr != n - S0 - H || np != H / P) {
                    if (ok) printf("  cache %d layer %d: sink %d history %d recent %d pages %d; expected %d %d %d %d\n",
                                   i, l, ns, nh, nr, np, S0, H, n - S0 - H, H / P);
                    ok = 0;
                }
            }
        CHECK(ok && H / P > 8, "segment bookkeeping (%d history pages)", H / P);
        /* oscar_kv_attend over the runner's cache == plain attention over the rows read back */
        {
            int d = m->head_dim, G = m->n_head / m->n_head_kv, g;
            float *q = (float *)malloc(sizeof(float) * (size_t)G * d), *out = (float *)malloc(sizeof(float) * (size_t)G * d);
            float *K = (float *)malloc(sizeof(float) * (size_t)n * d), *V = (float *)malloc(sizeof(float) * (size_t)n * d);
            float *qr = (float *)malloc(sizeof(float) * (size_t)d), *o = (float *)malloc(sizeof(float) * (size_t)d), *ou = (float *)malloc(sizeof(float) * (size_t)d);
            double worst = 0;
            for (l = 0; l < m->n_layer; l += 7)
                for (i = 0; i < c.n_caches; i++) {
                    const float *Rk = oscar_kv_rotation(&c.kv[i], l, 0, 0), *Rv = oscar_kv_rotation(&c.kv[i], l, 0, 1);
                    for (t = 0; t < G * d; t++) q[t] = (float)sin(0.37 * t + l + i);
                    oscar_kv_attend(&c.kv[i], c.seq[i], l, out, q, G, 0.0f);
                    for (t = 0; t < n; t++) oscar_kv_read_row(&c.kv[i], c.seq[i], l, 0, t, K + (size_t)t * d, V + (size_t)t * d);
                    for (g = 0; g < G; g++) {
                        if (Rk) oscar_rotate_rows(qr, q + (size_t)g * d, Rk, 1, d, 0);
                        else memcpy(qr, q + (size_t)g * d, sizeof(float) * (size_t)d);
                        oscar_attend_rows(o, NULL, qr, K, V, n, d, d, 1.0f / sqrtf((float)d));
                        if (Rv) oscar_rotate_rows(ou, o, Rv, 1, d, 1);
                        else memcpy(ou, o, sizeof(float) * (size_t)d);
                        for (t = 0; t < d; t++) {
                            double e = fabs((double)ou[t] - out[(size_t)g * d + t]);
                            if (!(e <= worst)) worst = e;
                        }
                    }
                }
            CHECK(worst <= 1e-5, "oscar_kv_attend vs rows read back: %g", worst);
            free(q); free(out); free(K); free(V); free(qr); free(o); free(ou);
        }
        /* memory accounting */
        {
            oscar_kv_memory mem;
            size_t per_tok = (size_t)m->n_layer * m->n_head_kv * 2; /* K and V rows per token */
            int d = m->head_dim, g = d < 128 ? d : 128;
            llm_kv_memory(&c, &mem);
            CHECK(mem.n_tokens == n && mem.n_sink == S0 && mem.n_history == H && mem.n_window == n - S0 - H &&
                  mem.code_bytes == per_tok * H * (d / 4) && mem.scale_bytes == per_tok * H * (d / g) * 4 &&
                  mem.sink_bytes == per_tok * S0 * d * 2 && mem.bf16_equiv_bytes == per_tok * n * d * 2,
                  "memory accounting: tokens %lld sink %lld hist %lld win %lld codes %zu scales %zu",
                  (long long)mem.n_tokens, (long long)mem.n_sink, (long long)mem.n_history, (long long)mem.n_window,
                  mem.code_bytes, mem.scale_bytes);
        }
        for (t = 0; t < n; t++) agree += argmax(lg + (size_t)t * m->n_vocab, m->n_vocab) == argmax(ref + (size_t)t * m->n_vocab, m->n_vocab);
        printf("%s (sink %d, window %d, page %d, %d tokens, %d history pages): top-1 agreement with bf16 %d/%d\n",
               mode ? "int2-hadamard" : "int2-naive", S0, W, P, n, H / P, agree, n);
        for (t = 0, ok = 1; t < n * m->n_vocab; t++) ok &= isfinite(lg[t]) != 0;
        CHECK(ok, "non-finite logits in INT2 mode");
        if (mode == 1) CHECK(agree >= n / 2, "int2-hadamard agrees with bf16 on only %d/%d positions", agree, n);
        llm_ctx_free(&c);
        free(lg);
        oscar_rotations_free(&rot);
    }
    free(ref);
    free(ids);
}

/* a GGUF that parses but is cut before its tensor data, and a missing file: clear messages */
static void test_load_errors(const llm_model *m, const char *path) {
    char tmp[256];
    FILE *in = fopen(path, "rb"), *out;
    size_t want = (size_t)m->file.data_offset + 4096, got = 0;
    llm_model bad;
    snprintf(tmp, sizeof tmp, "%s.cut-%ld.gguf", path, (long)(m->file.size % 100000));
    out = fopen(tmp, "wb");
    if (in && out) {
        char buf[65536];
        while (got < want) {
            size_t k = fread(buf, 1, want - got < sizeof buf ? want - got : sizeof buf, in);
            if (k == 0) break;
            fwrite(buf, 1, k, out);
            got += k;
        }
    }
    if (in) fclose(in);
    if (out) fclose(out);
    CHECK(llm_load(&bad, tmp) == -1 && strstr(bad.msg, tmp) && strstr(bad.msg, "outside the data section"),
          "truncated model: '%s'", bad.msg);
    printf("truncated model -> %s\n", bad.msg);
    llm_free(&bad);
    remove(tmp);
    CHECK(llm_load(&bad, "/nonexistent/model.gguf") == -1 && strstr(bad.msg, "/nonexistent/model.gguf: cannot open"),
          "missing model: '%s'", bad.msg);
    llm_free(&bad);
}

static void test_split(const llm_model *m) {
    int n, *ids = text_tokens(m, N_TOK < 120 ? N_TOK : 120, &n);
    float *a, *b;
    llm_ctx_config cfg;
    oscar_rotations rot;
    if (!ids) return;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_ctx = n;
    cfg.n_threads = 2;
    cfg.attn = LLM_ATTN_OSCAR;
    cfg.kv.mode = OSCAR_KV_INT2;
    cfg.kv.sink = I2_SINK;
    cfg.kv.window = I2_WIN;
    cfg.kv.page_size = I2_PAGE;
    if (oscar_rotations_alloc(&rot, m->n_layer, m->head_dim, m->n_head_kv, 0) || oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD)) return;
    cfg.kv.rot = &rot;
    cfg.split_heads = 0;
    a = run_all(m, &cfg, ids, n, NULL);
    cfg.split_heads = 1;
    cfg.n_threads = 1;
    b = run_all(m, &cfg, ids, n, NULL);
    if (a && b) {
        double diff = max_diff(a, b, (size_t)n * m->n_vocab);
        CHECK(diff == 0.0, "one cache vs one cache per head: max diff %g", diff);
    }
    free(a);
    free(b);
    free(ids);
    oscar_rotations_free(&rot);
}

/* runs tokens[0..np) as one llm_eval (with c->prefill = prefill) and then tokens[np..n) one at a
   time, logits of every position into lg [n][n_vocab]; 0 or -1 (reported) */
static int prompt_then_decode(llm_ctx *c, const int *tokens, int np, int n, int prefill, float *lg) {
    int t;
    c->prefill = prefill;
    if (llm_eval(c, tokens, np, lg, 1, NULL, NULL)) {
        printf("FAIL: prompt: %s\n", c->msg);
        n_fail++;
        return -1;
    }
    c->prefill = 0;
    for (t = np; t < n; t++)
        if (llm_eval(c, tokens + t, 1, lg + (size_t)t * c->m->n_vocab, 0, NULL, NULL)) {
            printf("FAIL: decode: %s\n", c->msg);
            n_fail++;
            return -1;
        }
    return 0;
}

/* bf16 prefill: chunks that append to the cache but attend plainly over bf16 rows (blocked) against
   the plain bf16 path run with the same chunks (the matrix products of a one-token chunk round
   differently from a longer chunk's, so both sides prefill the prompt as one call and decode the
   rest a token at a time); with an INT2 cache the prompt's logits must not depend on the cache
   (bit for bit those of the BF16 cache) while the cache receives every row, and the tokens decoded
   after it read the cache */
static void test_bf16_prefill(const llm_model *m) {
    int n, *ids = text_tokens(m, N_TOK, &n), np, mode, V = m->n_vocab;
    float *plain, *lg[2] = {NULL, NULL};
    llm_ctx_config cfg;
    oscar_rotations rot;
    llm_ctx c;
    if (!ids) return;
    np = n - 5;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_ctx = n;
    cfg.n_threads = 2;
    cfg.n_batch = N_TOK > 100 ? 40 : 6; /* chunks that straddle the 64-key tiles */
    cfg.attn = LLM_ATTN_PLAIN_BF16;
    plain = (float *)malloc((size_t)n * V * sizeof(float));
    if (!plain || llm_ctx_init(&c, m, &cfg) || prompt_then_decode(&c, ids, np, n, 0, plain) ||
        oscar_rotations_alloc(&rot, m->n_layer, m->head_dim, m->n_head_kv, 0) || oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD)) {
        printf("FAIL: bf16 prefill reference: %s\n", c.msg);
        n_fail++;
        llm_ctx_free(&c);
        free(plain);
        free(ids);
        return;
    }
    llm_ctx_free(&c);
    /* a context without the bf16 rows refuses prefill by name */
    cfg.attn = LLM_ATTN_OSCAR;
    cfg.split_heads = 1;
    cfg.kv.mode = OSCAR_KV_BF16;
    if (llm_ctx_init(&c, m, &cfg) == 0) {
        c.prefill = 1;
        CHECK(llm_eval(&c, ids, 3, NULL, 0, NULL, NULL) == -1 && strstr(c.msg, "bf16_prefill"), "prefill without bf16 rows: '%s'", c.msg);
    }
    llm_ctx_free(&c);
    cfg.bf16_prefill = 1;
    cfg.kv.sink = I2_SINK;
    cfg.kv.window = I2_WIN;
    cfg.kv.page_size = I2_PAGE;
    for (mode = 0; mode < 2; mode++) {
        oscar_kv_memory mem;
        double range, dpre, ddec;
        int agree = 0, t;
        cfg.kv.mode = mode ? OSCAR_KV_INT2 : OSCAR_KV_BF16;
        cfg.kv.rot = mode ? &rot : NULL;
        lg[mode] = (float *)malloc((size_t)n * V * sizeof(float));
        if (!lg[mode] || llm_ctx_init(&c, m, &cfg) || prompt_then_decode(&c, ids, np, n, 1, lg[mode])) {
            printf("FAIL: bf16 prefill: %s\n", c.msg);
            n_fail++;
            llm_ctx_free(&c);
            continue;
        }
        range = max_range(plain, n, V);
        dpre = max_diff(lg[mode], plain, (size_t)np * V);
        ddec = max_diff(lg[mode] + (size_t)np * V, plain + (size_t)np * V, (size_t)(n - np) * V);
        for (t = 0; t < n; t++) agree += argmax(lg[mode] + (size_t)t * V, V) == argmax(plain + (size_t)t * V, V);
        CHECK(llm_kv_memory(&c, &mem) == 0 && mem.n_tokens == n && (mode == 0 || mem.n_history > 0),
              "the cache after a bf16 prefill holds %lld tokens (%lld in the history)", (long long)mem.n_tokens, (long long)mem.n_history);
        printf("bf16 prefill (%s cache) vs plain bf16 attention, %d prompt positions: max diff %.3g (range %.3g); "
               "%d decoded through the cache: %.3g; top-1 %d/%d\n", mode ? "INT2" : "BF16", np, dpre, range, n - np, ddec, agree, n);
        CHECK(dpre <= 1e-4 * range, "bf16 prefill differs from plain bf16 attention: %g", dpre);
        if (mode == 0) CHECK(ddec <= 1e-4 * range && agree == n, "decode after the bf16 prefill: %g, top-1 %d/%d", ddec, agree, n);
        else CHECK(ddec > 1e-4 * range && ddec < 0.5 * range, "the INT2 decode after the prefill reads the cache: diff %g", ddec);
        llm_ctx_free(&c);
    }
    if (lg[0] && lg[1]) {
        size_t i, same = 1;
        for (i = 0; i < (size_t)np * V; i++) same &= lg[0][i] == lg[1][i];
        CHECK(same, "the bf16 prefill's logits depend on the cache mode");
    }
    free(lg[0]);
    free(lg[1]);
    free(plain);
    free(ids);
    oscar_rotations_free(&rot);
}

int main(int argc, char **argv) {
    llm_model m;
    FILE *f;
    if (argc < 2) {
        fprintf(stderr, "usage: test_model MODEL.gguf [REF.bin]\n");
        return 2;
    }
    if (!(f = fopen(argv[1], "rb"))) {
        printf("SKIP: test_model: model %s is absent (make model fetches it)\n", argv[1]);
        return 0;
    }
    fclose(f);
    if (llm_load(&m, argv[1])) {
        printf("FAIL: %s\n", m.msg);
        llm_free(&m);
        return 1;
    }
    test_tokenizer(&m);
    if (argc > 4) test_tokenizer_file(&m, argv[3], argv[4]);
    if (argc > 2) test_reference(&m, argv[2]);
    else printf("SKIP: no reference file given\n");
    test_load_errors(&m, argv[1]);
    test_bf16_exact(&m);
    test_int2(&m);
    test_split(&m);
    test_bf16_prefill(&m);
    llm_free(&m);
    printf("test_model: %d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
