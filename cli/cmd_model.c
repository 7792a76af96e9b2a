/* cmd_model.c - `oscar tokenize` and `oscar run`: SmolLM2 (any Llama GGUF) on the CPU with
   oscar's compressed KV cache. */
#define _POSIX_C_SOURCE 200809L
#include "llama.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int oscar_cli_tokenize(int argc, char **argv);
int oscar_cli_run(int argc, char **argv);

static double cm__now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cm__cpu(void) { /* CPU seconds of the process, all threads */
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *cm__read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        size_t r;
        if (n + 65536 + 1 > cap) {
            char *nb;
            cap = (n + 65536 + 1) * 2;
            nb = (char *)realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        r = fread(buf + n, 1, 65536, f);
        n += r;
        if (r < 65536) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static int cm__threads_default(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 16) n = 16;
    return (int)n;
}

/* value of option argv[*i] ("--x V"); prints an error when missing */
static const char *cm__val(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: option %s needs a value\n", argv[0], argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int cm__int(const char *cmd, const char *opt, const char *s, int lo, int hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s wants an integer in [%d, %d], got '%s'\n", cmd, opt, lo, hi, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int cm__float(const char *cmd, const char *opt, const char *s, float *out) {
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !isfinite(v)) {
        fprintf(stderr, "%s: %s wants a number, got '%s'\n", cmd, opt, s);
        return -1;
    }
    *out = (float)v;
    return 0;
}

/* >>tokenize ---- */
static void cm__tokenize_help(FILE *o) {
    fprintf(o,
            "usage: oscar tokenize -m MODEL (-p TEXT | -f FILE) [--pieces] [--no-special]\n"
            "  Prints the token ids of TEXT under the GGUF model's byte-level BPE tokenizer.\n"
            "  -m, --model FILE   GGUF model (make model fetches models/SmolLM2-135M-Instruct.Q4_1.gguf)\n"
            "  -p, --prompt TEXT  text to tokenize\n"
            "  -f, --file FILE    read the text from a file\n"
            "  --pieces           one line per token: id and its text\n"
            "  --no-special       treat special-token text such as <|im_start|> as plain text\n");
}

int oscar_cli_tokenize(int argc, char **argv) {
    const char *model = NULL, *prompt = NULL, *file = NULL;
    int pieces = 0, special = 1, i, n, *ids, rc = 1;
    char *text = NULL;
    size_t len;
    llm_model m;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { cm__tokenize_help(stdout); return 0; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { if (!(model = cm__val(argc, argv, &i))) return 2; }
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) { if (!(prompt = cm__val(argc, argv, &i))) return 2; }
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) { if (!(file = cm__val(argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--pieces")) pieces = 1;
        else if (!strcmp(a, "--no-special")) special = 0;
        else {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
            cm__tokenize_help(stderr);
            return 2;
        }
    }
    if (!model || (!prompt && !file) || (prompt && file)) {
        fprintf(stderr, "%s: need -m MODEL and one of -p TEXT / -f FILE\n", argv[0]);
        cm__tokenize_help(stderr);
        return 2;
    }
    if (file) {
        if (!(text = cm__read_file(file, &len))) {
            fprintf(stderr, "%s: cannot read '%s'\n", argv[0], file);
            return 1;
        }
    } else {
        len = strlen(prompt);
    }
    if (llm_load(&m, model)) {
        fprintf(stderr, "%s: %s\n", argv[0], m.msg);
        llm_free(&m);
        free(text);
        return 1;
    }
    if (tok_encode(&m.tok, text ? text : prompt, len, special, &ids, &n) == 0) {
        for (i = 0; i < n; i++) {
            if (pieces) {
                size_t pl;
                const uint8_t *p = tok_piece(&m.tok, ids[i], &pl);
                printf("%6d  '%.*s'\n", ids[i], (int)pl, (const char *)p);
            } else {
                printf(i ? " %d" : "%d", ids[i]);
            }
        }
        if (!pieces) printf("\n");
        free(ids);
        rc = 0;
    } else {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
    }
    llm_free(&m);
    free(text);
    return rc;
}

/* >>run ---- */
static void cm__run_help(FILE *o) {
    fprintf(o,
            "usage: oscar run -m MODEL (-p TEXT | -f FILE) [--chat] [-n N] [--kv MODE] [--rot FILE] [options]\n"
            "  Generates text with a Llama-architecture GGUF model on the CPU; every layer's attention\n"
            "  reads oscar's KV cache. Text streams to stdout; speed and KV memory go to stderr.\n"
            "  -m, --model FILE    GGUF model (make model fetches models/SmolLM2-135M-Instruct.Q4_1.gguf)\n"
            "  -p, --prompt TEXT   prompt text            -f, --file FILE   read the prompt from a file\n"
            "  --chat              wrap the prompt in the ChatML template (system + user turn)\n"
            "  --system TEXT       system message for --chat (default: the model's own)\n"
            "  -n, --n-predict N   tokens to generate (default 64; 0 only reads the prompt)\n"
            "  --kv MODE           bf16 | int2-naive | int2-hadamard | oscar | oscar-c | oscar-cr | kivi2\n"
            "                        bf16          every token in BF16 (the reference)\n"
            "                        int2-naive    INT2 history, no rotation, no clipping\n"
            "                        int2-hadamard INT2 history, Hadamard rotation, clips 0.96 / 0.92\n"
            "                        oscar         INT2 history, fitted rotations from --rot\n"
            "                        oscar-c       oscar with rows stored less the file's K/V means\n"
            "                        oscar-cr      oscar-c with the K mean taken before RoPE (turned to each position)\n"
            "                        kivi2         KIVI-2 baseline: keys per channel, values per token\n"
            "  --rot FILE          rotation file (safetensors, from oscar fit) for --kv oscar: its clips, group,\n"
            "                      gain encoder and K balance apply\n"
            "  --sink N            BF16 sink tokens (default 64; 0: none)\n"
            "  --window N          BF16 recent-window tokens (default 256; 0: none)\n"
            "  --page N            tokens per history page (default 64; must divide the window)\n"
            "  --group N           INT2 group size (default min(128, head dim))\n"
            "  --v-group N         V's INT2 group size if it differs from K's (CPU cache only)\n"
            "  --k-clip X          key clip ratio (default 0.96, or the rotation file's; < 0 disables)\n"
            "  --v-clip X          value clip ratio (default 0.92, or the rotation file's; < 0 disables)\n"
            "  --k-gain, --v-gain  gain encoder for K (V) history rows (OSCAR_INT2_GAIN; default: the rotation file's)\n"
            "  --temp X            sampling temperature (default 0: greedy)\n"
            "  --top-p X           nucleus sampling mass (default 0.9)\n"
            "  --seed N            sampling seed (default 1)\n"
            "  -t, --threads N     threads (default: online CPUs, at most 16)\n"
            "  -c, --ctx N         context length (default: prompt + N, at most the model's)\n"
            "  --batch N           prompt tokens per forward chunk (default 32)\n"
            "  --one-cache         one cache for all KV heads (default: one per head, attended in parallel)\n"
            "  --plain f32|bf16    bypass the cache: plain attention over fp32 or bf16 K/V (for checks)\n"
            "  --ignore-eos        keep generating after the end-of-turn token\n"
            "  --echo              print the prompt before the generated text\n"
            "  --progress          always show the prompt progress bar (default: when stderr is a terminal)\n"
            "  --dump-calib FILE   write every token's post-RoPE q, k and v of every layer (fp16 safetensors,\n"
            "                      layers.{i}.q/k/v) for `oscar fit --qkv FILE`; use with -n 0 on a calibration text\n");
}

typedef struct cm__prog {
    double t0;
    int shown;
} cm__prog;

static void cm__progress(void *user, int done, int total) {
    cm__prog *p = (cm__prog *)user;
    int w = 40, k = (int)((long long)done * w / (total ? total : 1)), i;
    double el = cm__now() - p->t0;
    char bar[64];
    for (i = 0; i < w; i++) bar[i] = i < k ? '#' : '.';
    bar[w] = 0;
    fprintf(stderr, "\rprompt [%s] %d/%d tokens, %.1f tok/s ", bar, done, total, el > 0 ? done / el : 0.0);
    if (done == total) fprintf(stderr, "\n");
    fflush(stderr);
    p->shown = 1;
}

typedef struct cm__rng { uint64_t s; } cm__rng;
static double cm__uniform(cm__rng *r) { /* xorshift64*, [0, 1) */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (double)((r->s * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct cm__cand { float p; int id; } cm__cand;
static int cm__cand_cmp(const void *a, const void *b) {
    float x = ((const cm__cand *)a)->p, y = ((const cm__cand *)b)->p;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* greedy when temp <= 0, else temperature + top-p */
static int cm__sample(const float *logits, int n, float temp, float top_p, cm__rng *rng, cm__cand *buf) {
    int i, best = 0, m = 0;
    double sum = 0, acc = 0, r;
    float mx;
    for (i = 1; i < n; i++)
        if (logits[i] > logits[best]) best = i;
    if (temp <= 0) return best;
    mx = logits[best];
    for (i = 0; i < n; i++) {
        buf[i].p = expf((logits[i] - mx) / temp);
        buf[i].id = i;
        sum += buf[i].p;
    }
    qsort(buf, (size_t)n, sizeof *buf, cm__cand_cmp);
    if (top_p <= 0 || top_p > 1) top_p = 1;
    for (m = 0; m < n; m++) {
        acc += buf[m].p / sum;
        if (acc >= top_p) { m++; break; }
    }
    if (m > n) m = n;
    for (i = 0, acc = 0; i < m; i++) acc += buf[i].p;
    r = cm__uniform(rng) * acc;
    for (i = 0; i < m; i++) {
        r -= buf[i].p;
        if (r <= 0) return buf[i].id;
    }
    return buf[m - 1].id;
}

/* >>dump ---- calibration dump: post-RoPE q/k (cache basis) and v of every token, all layers ---- */
typedef struct cm__dump {
    int L, Hq, Hkv, d, cap, n; /* n: tokens stored (layer 0 decides) */
    uint16_t **q, **k, **v;    /* [L] -> [cap][H][d] fp16 */
    int oom;
} cm__dump;

static void cm__dump_hook(void *user, int layer, int pos, const float *q, const float *k, const float *v) {
    cm__dump *D = (cm__dump *)user;
    size_t qd = (size_t)D->Hq * D->d, kd = (size_t)D->Hkv * D->d, i;
    if (D->oom || pos >= D->cap) return;
    for (i = 0; i < qd; i++) D->q[layer][(size_t)pos * qd + i] = oscar_f32_to_f16(q[i]);
    for (i = 0; i < kd; i++) {
        D->k[layer][(size_t)pos * kd + i] = oscar_f32_to_f16(k[i]);
        D->v[layer][(size_t)pos * kd + i] = oscar_f32_to_f16(v[i]);
    }
    if (layer == 0 && pos + 1 > D->n) D->n = pos + 1;
}

static int cm__dump_init(cm__dump *D, const llm_model *m, int cap) {
    int l;
    memset(D, 0, sizeof *D);
    D->L = m->n_layer;
    D->Hq = m->n_head;
    D->Hkv = m->n_head_kv;
    D->d = m->head_dim;
    D->cap = cap;
    D->q = (uint16_t **)calloc((size_t)D->L, sizeof(uint16_t *));
    D->k = (uint16_t **)calloc((size_t)D->L, sizeof(uint16_t *));
    D->v = (uint16_t **)calloc((size_t)D->L, sizeof(uint16_t *));
    if (!D->q || !D->k || !D->v) return -1;
    for (l = 0; l < D->L; l++) {
        D->q[l] = (uint16_t *)malloc((size_t)cap * D->Hq * D->d * 2);
        D->k[l] = (uint16_t *)malloc((size_t)cap * D->Hkv * D->d * 2);
        D->v[l] = (uint16_t *)malloc((size_t)cap * D->Hkv * D->d * 2);
        if (!D->q[l] || !D->k[l] || !D->v[l]) return -1;
    }
    return 0;
}

static void cm__dump_free(cm__dump *D) {
    int l;
    for (l = 0; l < D->L; l++) {
        if (D->q) free(D->q[l]);
        if (D->k) free(D->k[l]);
        if (D->v) free(D->v[l]);
    }
    free(D->q);
    free(D->k);
    free(D->v);
    memset(D, 0, sizeof *D);
}

static int cm__dump_write(cm__dump *D, const char *path, const char *model, const char *source) {
    oscar_st_entry *e = (oscar_st_entry *)calloc((size_t)D->L * 3, sizeof *e);
    char (*names)[32] = (char (*)[32])calloc((size_t)D->L * 3, 32);
    char calib[256], n_tok[32];
    const char *meta[4][2];
    char msg[OSCAR_MSG_SIZE];
    int l, w, rc;
    if (!e || !names) {
        free(e);
        free(names);
        return -1;
    }
    for (l = 0; l < D->L; l++)
        for (w = 0; w < 3; w++) {
            oscar_st_entry *x = &e[3 * l + w];
            snprintf(names[3 * l + w], 32, "layers.%d.%c", l, "qkv"[w]);
            x->name = names[3 * l + w];
            x->dtype = OSCAR_F16;
            x->ndim = 3;
            x->shape[0] = D->n;
            x->shape[1] = w == 0 ? D->Hq : D->Hkv;
            x->shape[2] = D->d;
            x->data = w == 0 ? (const void *)D->q[l] : w == 1 ? (const void *)D->k[l] : (const void *)D->v[l];
        }
    snprintf(calib, sizeof calib, "%d tokens of %.200s", D->n, source);
    snprintf(n_tok, sizeof n_tok, "%d", D->n);
    meta[0][0] = "model"; meta[0][1] = model;
    meta[1][0] = "calibration"; meta[1][1] = calib;
    meta[2][0] = "basis"; meta[2][1] = "post-RoPE q/k in HF half-split channel order (oscar run)";
    meta[3][0] = "n_tokens"; meta[3][1] = n_tok;
    rc = oscar_st_write(path, e, D->L * 3, &meta[0][0], 4, msg);
    if (rc != OSCAR_OK) fprintf(stderr, "oscar run: --dump-calib: %s\n", msg);
    free(e);
    free(names);
    return rc == OSCAR_OK ? 0 : -1;
}

static double cm__mib(size_t b) { return (double)b / (1024.0 * 1024.0); }

static void cm__print_memory(llm_ctx *c, const char *mode) {
    oscar_kv_memory mem;
    if (c->cfg.attn != LLM_ATTN_OSCAR) return;
    if (llm_kv_memory(c, &mem)) {
        fprintf(stderr, "KV memory: %s\n", c->msg);
        return;
    }
    fprintf(stderr, "KV cache (%s), %lld tokens x %d layers x %d KV heads x %d dims, K and V:\n", mode,
            (long long)mem.n_tokens, c->m->n_layer, c->m->n_head_kv, c->m->head_dim);
    fprintf(stderr, "  BF16 sink     %7lld tokens  %9.3f MiB\n", (long long)mem.n_sink, cm__mib(mem.sink_bytes));
    fprintf(stderr, "  BF16 window   %7lld tokens  %9.3f MiB\n", (long long)mem.n_window, cm__mib(mem.window_bytes));
    if (mem.history_bf16_bytes)
        fprintf(stderr, "  BF16 history  %7lld tokens  %9.3f MiB\n", (long long)mem.n_history, cm__mib(mem.history_bf16_bytes));
    else {
        fprintf(stderr, "  INT2 codes    %7lld tokens  %9.3f MiB\n", (long long)mem.n_history, cm__mib(mem.code_bytes));
        fprintf(stderr, "  INT2 scales                   %9.3f MiB\n", cm__mib(mem.scale_bytes));
    }
    fprintf(stderr, "  total                         %9.3f MiB  (%.3f bits/element", cm__mib(mem.total_bytes), mem.bits_per_element);
    if (mem.n_history && !mem.history_bf16_bytes) fprintf(stderr, "; %.3f in the INT2 history", mem.history_bits_per_element);
    fprintf(stderr, ")\n  all-BF16 cache                %9.3f MiB  (%.2fx of the total)\n", cm__mib(mem.bf16_equiv_bytes),
            mem.total_bytes ? (double)mem.bf16_equiv_bytes / (double)mem.total_bytes : 0.0);
}

static int cm__chat(const llm_model *m, const char *system, const char *user, char **out, size_t *len) {
    const char *sys = system ? system : "You are a helpful AI assistant named SmolLM, trained by Hugging Face";
    size_t n = strlen(sys) + strlen(user) + 128;
    (void)m;
    *out = (char *)malloc(n);
    if (!*out) return -1;
    snprintf(*out, n, "<|im_start|>system\n%s<|im_end|>\n<|im_start|>user\n%s<|im_end|>\n<|im_start|>assistant\n", sys, user);
    *len = strlen(*out);
    return 0;
}

int oscar_cli_run(int argc, char **argv) {
    const char *model = NULL, *prompt = NULL, *file = NULL, *kvmode = "bf16", *rotfile = NULL, *system = NULL, *plain = NULL;
    const char *dump_path = NULL;
    cm__dump dump;
    int chat = 0, n_predict = 64, threads = cm__threads_default(), n_ctx = 0, batch = 32, one_cache = 0;
    int ignore_eos = 0, echo = 0, progress = -1, sink = -1, window = -1, page = 0, group = 0, v_group = 0, seed = 1;
    float temp = 0, top_p = 0.9f, k_clip = 0, v_clip = 0;
    int have_kc = 0, have_vc = 0, i, rc = 1, n_ids = 0, *ids = NULL, n_gen = 0, rot_loaded = 0;
    char *text = NULL, *chat_text = NULL;
    size_t len = 0;
    llm_model m;
    llm_ctx c;
    llm_ctx_config cfg;
    oscar_rotations rot;
    cm__cand *cand = NULL;
    cm__rng rng;
    double t_prompt = 0, t_gen = 0, t0, c_prompt = 0, c_gen = 0, c0;
    memset(&m, 0, sizeof m);
    memset(&c, 0, sizeof c);
    memset(&rot, 0, sizeof rot);
    memset(&cfg, 0, sizeof cfg);
    memset(&dump, 0, sizeof dump);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
#define CM_VAL() do { if (!(v = cm__val(argc, argv, &i))) return 2; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { cm__run_help(stdout); return 0; }
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { CM_VAL(); model = v; }
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) { CM_VAL(); prompt = v; }
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) { CM_VAL(); file = v; }
        else if (!strcmp(a, "--chat")) chat = 1;
        else if (!strcmp(a, "--system")) { CM_VAL(); system = v; }
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) { CM_VAL(); if (cm__int(argv[0], a, v, 0, 1 << 24, &n_predict)) return 2; }
        else if (!strcmp(a, "--kv")) { CM_VAL(); kvmode = v; }
        else if (!strcmp(a, "--rot")) { CM_VAL(); rotfile = v; }
        else if (!strcmp(a, "--sink")) { CM_VAL(); if (cm__int(argv[0], a, v, 0, 1 << 20, &sink)) return 2; }
        else if (!strcmp(a, "--window")) { CM_VAL(); if (cm__int(argv[0], a, v, 0, 1 << 20, &window)) return 2; }
        else if (!strcmp(a, "--page")) { CM_VAL(); if (cm__int(argv[0], a, v, 1, 1 << 16, &page)) return 2; }
        else if (!strcmp(a, "--group")) { CM_VAL(); if (cm__int(argv[0], a, v, 1, 1 << 16, &group)) return 2; }
        else if (!strcmp(a, "--v-group")) { CM_VAL(); if (cm__int(argv[0], a, v, 1, 1 << 16, &v_group)) return 2; }
        else if (!strcmp(a, "--k-gain")) cfg.kv.k_gain = 1;
        else if (!strcmp(a, "--v-gain")) cfg.kv.v_gain = 1;
        else if (!strcmp(a, "--k-clip")) { CM_VAL(); if (cm__float(argv[0], a, v, &k_clip)) return 2; have_kc = 1; }
        else if (!strcmp(a, "--v-clip")) { CM_VAL(); if (cm__float(argv[0], a, v, &v_clip)) return 2; have_vc = 1; }
        else if (!strcmp(a, "--temp")) { CM_VAL(); if (cm__float(argv[0], a, v, &temp)) return 2; }
        else if (!strcmp(a, "--top-p")) { CM_VAL(); if (cm__float(argv[0], a, v, &top_p)) return 2; }
        else if (!strcmp(a, "--seed")) { CM_VAL(); if (cm__int(argv[0], a, v, 0, 0x7fffffff, &seed)) return 2; }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { CM_VAL(); if (cm__int(argv[0], a, v, 1, LLM_MAX_THREADS, &threads)) return 2; }
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx")) { CM_VAL(); if (cm__int(argv[0], a, v, 1, 1 << 24, &n_ctx)) return 2; }
        else if (!strcmp(a, "--batch")) { CM_VAL(); if (cm__int(argv[0], a, v, 1, 4096, &batch)) return 2; }
        else if (!strcmp(a, "--one-cache")) one_cache = 1;
        else if (!strcmp(a, "--plain")) { CM_VAL(); plain = v; }
        else if (!strcmp(a, "--ignore-eos")) ignore_eos = 1;
        else if (!strcmp(a, "--echo")) echo = 1;
        else if (!strcmp(a, "--progress")) progress = 1;
        else if (!strcmp(a, "--dump-calib")) { CM_VAL(); dump_path = v; }
        else {
            fprintf(stderr, "%s: unknown option '%s'\n", argv[0], a);
            cm__run_help(stderr);
            return 2;
        }
#undef CM_VAL
    }
    if (!model || (!prompt && !file) || (prompt && file)) {
        fprintf(stderr, "%s: need -m MODEL and one of -p TEXT / -f FILE\n", argv[0]);
        cm__run_help(stderr);
        return 2;
    }
    if (plain && strcmp(plain, "f32") && strcmp(plain, "bf16")) {
        fprintf(stderr, "%s: --plain wants f32 or bf16, got '%s'\n", argv[0], plain);
        return 2;
    }
    /* the cache configuration of SPEC section 8 */
    cfg.kv.sink = sink < 0 ? 0 : (sink == 0 ? OSCAR_NONE : sink);
    cfg.kv.window = window < 0 ? 0 : (window == 0 ? OSCAR_NONE : window);
    cfg.kv.page_size = page;
    cfg.kv.group_size = group;
    cfg.kv.v_group_size = v_group;
    if (!strcmp(kvmode, "bf16")) {
        cfg.kv.mode = OSCAR_KV_BF16;
    } else if (!strcmp(kvmode, "int2-naive")) {
        cfg.kv.mode = OSCAR_KV_INT2;
        cfg.kv.k_clip = cfg.kv.v_clip = -1.0f;
    } else if (!strcmp(kvmode, "int2-hadamard") || !strcmp(kvmode, "oscar") || !strcmp(kvmode, "oscar-c") || !strcmp(kvmode, "oscar-cr")) {
        cfg.kv.mode = OSCAR_KV_INT2;
        cfg.kv.center = !strcmp(kvmode, "oscar-c") ? OSCAR_CENTER_MEAN : !strcmp(kvmode, "oscar-cr") ? OSCAR_CENTER_ROPE : OSCAR_CENTER_NONE;
    } else if (!strcmp(kvmode, "kivi2")) {
        cfg.kv.mode = OSCAR_KV_KIVI2;
    } else {
        fprintf(stderr, "%s: --kv wants bf16, int2-naive, int2-hadamard, oscar, oscar-c, oscar-cr or kivi2, got '%s'\n", argv[0], kvmode);
        return 2;
    }
    if ((!strcmp(kvmode, "oscar") || !strcmp(kvmode, "oscar-c") || !strcmp(kvmode, "oscar-cr")) && !rotfile) {
        fprintf(stderr, "%s: --kv %s needs --rot FILE (fitted rotations, see `oscar fit`)\n", argv[0], kvmode);
        return 2;
    }
    if (rotfile && strcmp(kvmode, "oscar") && strcmp(kvmode, "oscar-c") && strcmp(kvmode, "oscar-cr")) {
        fprintf(stderr, "%s: --rot is only used with --kv oscar, oscar-c or oscar-cr\n", argv[0]);
        return 2;
    }
    if (file) {
        if (!(text = cm__read_file(file, &len))) {
            fprintf(stderr, "%s: cannot read '%s'\n", argv[0], file);
            return 1;
        }
    } else {
        len = strlen(prompt);
    }
    if (llm_load(&m, model)) {
        fprintf(stderr, "%s: %s\n", argv[0], m.msg);
        goto done;
    }
    if (chat) {
        if (cm__chat(&m, system, text ? text : prompt, &chat_text, &len)) goto oom;
    }
    if (tok_encode(&m.tok, chat_text ? chat_text : (text ? text : prompt), len, 1, &ids, &n_ids)) goto oom;
    if (n_ids == 0) {
        fprintf(stderr, "%s: the prompt is empty\n", argv[0]);
        goto done;
    }
    if (!strcmp(kvmode, "int2-hadamard")) {
        if (oscar_rotations_alloc(&rot, m.n_layer, m.head_dim, m.n_head_kv, 0) != OSCAR_OK ||
            oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD) != OSCAR_OK) {
            fprintf(stderr, "%s: Hadamard rotations: %s\n", argv[0], rot.msg);
            goto done;
        }
        rot_loaded = 1;
        cfg.kv.rot = &rot;
    } else if (rotfile) {
        if (oscar_rotations_load(&rot, rotfile) != OSCAR_OK) {
            fprintf(stderr, "%s: %s\n", argv[0], rot.msg);
            goto done;
        }
        rot_loaded = 1;
        cfg.kv.rot = &rot;
        cfg.kv.k_clip = rot.k_clip > 0 ? rot.k_clip : -1.0f;
        cfg.kv.v_clip = rot.v_clip > 0 ? rot.v_clip : -1.0f;
        if (rot.k_gain) cfg.kv.k_gain = 1;
        if (rot.v_gain) cfg.kv.v_gain = 1;
        if (rot.k_balance) cfg.kv.k_balance = 1; /* rotfile: an oscar mode, INT2 */
        if (!group && rot.group_size > 0) cfg.kv.group_size = rot.group_size;
    }
    if (have_kc) cfg.kv.k_clip = k_clip <= 0 ? -1.0f : k_clip;
    if (have_vc) cfg.kv.v_clip = v_clip <= 0 ? -1.0f : v_clip;
    if (n_ctx == 0) {
        n_ctx = n_ids + n_predict;
        if (n_ctx > m.n_ctx_train) n_ctx = m.n_ctx_train;
    }
    if (n_ids > n_ctx) {
        fprintf(stderr, "%s: the prompt has %d tokens; the context holds %d\n", argv[0], n_ids, n_ctx);
        goto done;
    }
    if (n_ctx > m.n_ctx_train)
        fprintf(stderr, "%s: warning: context %d exceeds the model's training context %d\n", argv[0], n_ctx, m.n_ctx_train);
    cfg.n_ctx = n_ctx;
    cfg.n_threads = threads;
    cfg.n_batch = batch;
    cfg.split_heads = !one_cache;
    cfg.attn = !plain ? LLM_ATTN_OSCAR : !strcmp(plain, "f32") ? LLM_ATTN_PLAIN_F32 : LLM_ATTN_PLAIN_BF16;
    if (dump_path) {
        if (cm__dump_init(&dump, &m, n_ctx)) goto oom;
        cfg.on_qkv = cm__dump_hook;
        cfg.user = &dump;
    }
    if (llm_ctx_init(&c, &m, &cfg)) {
        fprintf(stderr, "%s: %s\n", argv[0], c.msg);
        goto done;
    }
    cand = (cm__cand *)malloc((size_t)m.n_vocab * sizeof *cand);
    if (!cand) goto oom;
    rng.s = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
    if (echo) {
        for (i = 0; i < n_ids; i++) {
            size_t pl;
            const uint8_t *p = tok_piece(&m.tok, ids[i], &pl);
            if (!tok_is_control(&m.tok, ids[i])) fwrite(p, 1, pl, stdout);
        }
        fflush(stdout);
    }
    {
        cm__prog prog;
        int show = progress > 0 || (progress < 0 && isatty(2) && n_ids > 2 * batch);
        prog.t0 = cm__now();
        prog.shown = 0;
        t0 = cm__now();
        c0 = cm__cpu();
        if (llm_eval(&c, ids, n_ids, c.logits, 0, show ? cm__progress : NULL, &prog)) {
            fprintf(stderr, "%s: %s\n", argv[0], c.msg);
            goto done;
        }
        t_prompt = cm__now() - t0;
        c_prompt = cm__cpu() - c0;
    }
    t0 = cm__now();
    c0 = cm__cpu();
    while (n_gen < n_predict && c.n_past < n_ctx) {
        int next = cm__sample(c.logits, m.n_vocab, temp, top_p, &rng, cand);
        size_t pl;
        const uint8_t *p;
        if (!ignore_eos && (next == m.tok.eos || next == m.tok.eot || (m.tok.n_vocab > 0 && next == tok_id(&m.tok, "<|endoftext|>"))))
            break;
        p = tok_piece(&m.tok, next, &pl);
        if (!tok_is_control(&m.tok, next)) {
            fwrite(p, 1, pl, stdout);
            fflush(stdout);
        }
        n_gen++;
        if (n_gen == n_predict) break;
        if (llm_eval(&c, &next, 1, c.logits, 0, NULL, NULL)) {
            fprintf(stderr, "\n%s: %s\n", argv[0], c.msg);
            goto done;
        }
    }
    t_gen = cm__now() - t0;
    c_gen = cm__cpu() - c0;
    printf("\n");
    fflush(stdout);
    fprintf(stderr, "prompt:     %6d tokens in %8.3f s  (%.2f tok/s; %.3f CPU s)\n", n_ids, t_prompt,
            n_ids / (t_prompt > 0 ? t_prompt : 1e-9), c_prompt);
    fprintf(stderr, "generation: %6d tokens in %8.3f s  (%.2f tok/s; %.3f CPU s)\n", n_gen, t_gen,
            n_gen ? n_gen / (t_gen > 0 ? t_gen : 1e-9) : 0.0, c_gen);
    fprintf(stderr, "threads: %d, context %d/%d, attention: %s\n", c.cfg.n_threads, c.n_past, n_ctx,
            plain ? (cfg.attn == LLM_ATTN_PLAIN_F32 ? "plain fp32 (no cache)" : "plain bf16 (no cache)") : kvmode);
    cm__print_memory(&c, kvmode);
    rc = 0;
    if (dump_path) {
        if (cm__dump_write(&dump, dump_path, model, file ? file : "the prompt")) rc = 1;
        else fprintf(stderr, "calibration dump: %d tokens x %d layers -> %s\n", dump.n, dump.L, dump_path);
    }
    goto done;
oom:
    fprintf(stderr, "%s: out of memory\n", argv[0]);
done:
    cm__dump_free(&dump);
    free(cand);
    free(ids);
    free(text);
    free(chat_text);
    llm_ctx_free(&c);
    if (rot_loaded) oscar_rotations_free(&rot);
    llm_free(&m);
    return rc;
}
