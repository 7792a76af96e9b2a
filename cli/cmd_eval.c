/* cmd_eval.c - the model-quality commands: `oscar calibrate` and `oscar dump` (activations of a
   real model -> rotations / calibration dump), `oscar ppl` (perplexity, KL divergence and top-1
   agreement against bf16, per cache mode), `oscar niah` (needle in a haystack) and
   `oscar longdoc` (the real-model demo: a long passage and a question, bf16 and oscar caches). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "kvmode.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int oscar_cli_calibrate(int argc, char **argv);
int oscar_cli_dump(int argc, char **argv);
int oscar_cli_ppl(int argc, char **argv);
int oscar_cli_niah(int argc, char **argv);
int oscar_cli_longdoc(int argc, char **argv);

/* >>common ---- files, tokens, progress, a fork/join helper ---- */
static char *ev_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long sz;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (char *)malloc((size_t)sz + 1)) != NULL) {
        if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
            free(buf);
            buf = NULL;
        } else {
            buf[sz] = 0;
            *len = (size_t)sz;
        }
    }
    fclose(f);
    return buf;
}

static const char *ev_base(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* loads the model; 0 or prints the error */
static int ev_load(const char *cmd, llm_model *m, const char *path) {
    if (llm_load(m, path) == 0) return 0;
    fprintf(stderr, "oscar %s: %s\n", cmd, m->msg);
    llm_free(m);
    return -1;
}

/* the text of a file as token ids (special-token text is plain text); 0 or prints the error */
static int ev_tokenize_file(const char *cmd, const llm_model *m, const char *path, int **ids, int *n) {
    size_t len = 0;
    char *text = ev_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "oscar %s: cannot read '%s'\n", cmd, path);
        return -1;
    }
    if (tok_encode(&m->tok, text, len, 0, ids, n)) {
        fprintf(stderr, "oscar %s: out of memory tokenizing '%s'\n", cmd, path);
        free(text);
        return -1;
    }
    free(text);
    return 0;
}

typedef struct ev_prog {
    const char *what;
    double t0, last;
    int64_t total;
    int show; /* 0 never, 1 on a terminal (\r), 2 to a log (one line every 10 s) */
} ev_prog;

static void ev_prog_start(ev_prog *p, const char *what, int64_t total, int force) {
    p->what = what;
    p->t0 = p->last = cli_now();
    p->total = total;
    p->show = isatty(2) ? 1 : (force ? 2 : 0);
}

static void ev_prog_update(ev_prog *p, int64_t done) {
    double now = cli_now(), el = now - p->t0, rate = el > 0 ? done / el : 0.0;
    int w = 30, k = p->total ? (int)(done * w / p->total) : w, i;
    char bar[40];
    if (!p->show || (done < p->total && now - p->last < (p->show == 1 ? 0.25 : 10.0))) return;
    p->last = now;
    for (i = 0; i < w; i++) bar[i] = i < k ? '#' : '.';
    bar[w] = 0;
    fprintf(stderr, "%s%s [%s] %lld/%lld tokens, %.1f tok/s, %.0f s", p->show == 1 ? "\r" : "", p->what, bar, (long long)done,
            (long long)p->total, rate, el);
    if (done < p->total && rate > 0) fprintf(stderr, ", ~%.0f s left ", (p->total - done) / rate);
    fprintf(stderr, p->show == 1 && done < p->total ? "   " : "\n");
    fflush(stderr);
}

/* runs fn(arg, i) for i in [0, n) on up to T threads (the caller is one of them) */
typedef struct ev_par {
    void (*fn)(void *arg, int i);
    void *arg;
    int n, next;
    pthread_mutex_t mu;
} ev_par;

static void *ev_par_worker(void *a) {
    ev_par *p = (ev_par *)a;
    for (;;) {
        int i;
        pthread_mutex_lock(&p->mu);
        i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n) return NULL;
        p->fn(p->arg, i);
    }
}

static void ev_parallel(void (*fn)(void *arg, int i), void *arg, int n, int T) {
    ev_par p;
    pthread_t th[64];
    int i, started = 0;
    if (T > n) T = n;
    if (T > 64) T = 64;
    if (T <= 1) {
        for (i = 0; i < n; i++) fn(arg, i);
        return;
    }
    p.fn = fn;
    p.arg = arg;
    p.n = n;
    p.next = 0;
    pthread_mutex_init(&p.mu, NULL);
    for (i = 1; i < T; i++)
        if (pthread_create(&th[started], NULL, ev_par_worker, &p) == 0) started++;
    ev_par_worker(&p);
    for (i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.mu);
}

/* >>capture ---- post-RoPE q, k (cache basis) and v of every token and layer, fp32 ---- */
typedef struct ev_cap {
    int L, Hq, Hkv, d;
    int64_t n, base; /* tokens captured; base: index of the current window's position 0 */
    float **q, **k, **v; /* [L] -> [n][H][d] */
} ev_cap;

static void ev_cap_hook(void *user, int layer, int pos, const float *q, const float *k, const float *v) {
    ev_cap *c = (ev_cap *)user;
    size_t qd = (size_t)c->Hq * c->d, kd = (size_t)c->Hkv * c->d, t = (size_t)(c->base + pos);
    memcpy(c->q[layer] + t * qd, q, qd * sizeof(float));
    memcpy(c->k[layer] + t * kd, k, kd * sizeof(float));
    memcpy(c->v[layer] + t * kd, v, kd * sizeof(float));
}

static void ev_cap_free(ev_cap *c) {
    int l;
    for (l = 0; l < c->L; l++) {
        if (c->q) free(c->q[l]);
        if (c->k) free(c->k[l]);
        if (c->v) free(c->v[l]);
    }
    free(c->q);
    free(c->k);
    free(c->v);
    memset(c, 0, sizeof *c);
}

/* runs the model (plain fp32 attention: the model's own activations) over ids[0, n) in windows
   of `window` tokens, each window starting at position 0, and keeps every activation */
static int ev_capture(const char *cmd, ev_cap *c, const llm_model *m, const int *ids, int64_t n, int window, int threads, int progress) {
    int64_t w0;
    int l;
    ev_prog prog;
    memset(c, 0, sizeof *c);
    c->L = m->n_layer;
    c->Hq = m->n_head;
    c->Hkv = m->n_head_kv;
    c->d = m->head_dim;
    c->n = n;
    c->q = (float **)calloc((size_t)c->L, sizeof(float *));
    c->k = (float **)calloc((size_t)c->L, sizeof(float *));
    c->v = (float **)calloc((size_t)c->L, sizeof(float *));
    if (!c->q || !c->k || !c->v) goto oom;
    for (l = 0; l < c->L; l++) {
        c->q[l] = (float *)malloc((size_t)n * c->Hq * c->d * sizeof(float));
        c->k[l] = (float *)malloc((size_t)n * c->Hkv * c->d * sizeof(float));
        c->v[l] = (float *)malloc((size_t)n * c->Hkv * c->d * sizeof(float));
        if (!c->q[l] || !c->k[l] || !c->v[l]) goto oom;
    }
    ev_prog_start(&prog, "capture", n, progress);
    for (w0 = 0; w0 < n; w0 += window) {
        llm_ctx ctx;
        llm_ctx_config cfg;
        int len = (int)(n - w0 < window ? n - w0 : window), s;
        memset(&cfg, 0, sizeof cfg);
        cfg.n_ctx = len;
        cfg.n_threads = threads;
        cfg.attn = LLM_ATTN_PLAIN_F32;
        cfg.on_qkv = ev_cap_hook;
        cfg.user = c;
        c->base = w0;
        if (llm_ctx_init(&ctx, m, &cfg)) {
            fprintf(stderr, "oscar %s: %s\n", cmd, ctx.msg);
            llm_ctx_free(&ctx);
            ev_cap_free(c);
            return -1;
        }
        for (s = 0; s < len; s += 64) {
            int b = len - s < 64 ? len - s : 64;
            if (llm_eval(&ctx, ids + w0 + s, b, NULL, 0, NULL, NULL)) {
                fprintf(stderr, "oscar %s: %s\n", cmd, ctx.msg);
                llm_ctx_free(&ctx);
                ev_cap_free(c);
                return -1;
            }
            ev_prog_update(&prog, w0 + s + b);
        }
        llm_ctx_free(&ctx);
    }
    return 0;
oom:
    fprintf(stderr, "oscar %s: out of memory for %lld tokens of activations (%.1f GiB)\n", cmd, (long long)n,
            (double)n * c->L * (c->Hq + 2 * c->Hkv) * c->d * 4 / 1073741824.0);
    ev_cap_free(c);
    return -1;
}

static int ev_cap_get(int layer, void *user, float **q, float **k, float **v, int64_t *n) {
    ev_cap *c = (ev_cap *)user;
    *q = c->q[layer];
    *k = c->k[layer];
    *v = c->v[layer];
    *n = c->n;
    return 0;
}

static void ev_cap_release(int layer, void *user, float *q, float *k, float *v) {
    ev_cap *c = (ev_cap *)user; /* each layer is fitted once: free its activations */
    (void)q;
    (void)k;
    (void)v;
    free(c->q[layer]);
    free(c->k[layer]);
    free(c->v[layer]);
    c->q[layer] = c->k[layer] = c->v[layer] = NULL;
}

/* the calibration text's provenance, shared by calibrate and dump so that `fit` on a dump writes
   the same metadata as calibrate */
static void ev_calib_desc(char *out, size_t size, const char *text, int64_t n, int window) {
    snprintf(out, size, "%s: first %lld tokens, windows of %d, post-RoPE q/k in HF half-split order", ev_base(text), (long long)n, window);
}

typedef struct ev_calib_args {
    const char *model, *text, *out;
    int tokens, window, threads, progress, per_head, comp, group, dtype, k_gain, v_gain, k_balance;
    float kc, vc;
    const char *layers; /* dump: --layers LIST (the layers written; NULL: all) */
} ev_calib_args;

/* options shared by calibrate and dump; returns 1 to go on, 0 on --help, -1 on a bad option */
static int ev_calib_parse(const char *cmd, int argc, char **argv, ev_calib_args *a, void (*usage)(FILE *)) {
    int i;
    memset(a, 0, sizeof *a);
    a->tokens = 8192;
    a->window = 0;
    a->threads = cli_threads();
    a->comp = OSCAR_COMP_R_H_PBR;
    a->kc = 0.96f;
    a->vc = 0.92f;
    a->dtype = OSCAR_F32;
    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(o, "--per-head")) a->per_head = 1;
        else if (!strcmp(o, "--progress")) a->progress = 1;
        else if (!strcmp(o, "--k-gain")) a->k_gain = 1;
        else if (!strcmp(o, "--v-gain")) a->v_gain = 1;
        else if (!strcmp(o, "--k-balance")) a->k_balance = 1;
        else if (!(v = cli_value(cmd, argc, argv, &i))) return -1;
        else if (!strcmp(o, "-m") || !strcmp(o, "--model")) a->model = v;
        else if (!strcmp(o, "-f") || !strcmp(o, "--file")) a->text = v;
        else if (!strcmp(o, "-o") || !strcmp(o, "--output")) a->out = v;
        else if (!strcmp(o, "--layers") && !strcmp(cmd, "dump")) a->layers = v;
        else if (!strcmp(o, "-c") || !strcmp(o, "--tokens")) { if (!cli_parse_int(cmd, o, v, 1, 1 << 22, &a->tokens)) return -1; }
        else if (!strcmp(o, "--window")) { if (!cli_parse_int(cmd, o, v, 0, 1 << 20, &a->window)) return -1; }
        else if (!strcmp(o, "-t") || !strcmp(o, "--threads")) { if (!cli_parse_int(cmd, o, v, 1, LLM_MAX_THREADS, &a->threads)) return -1; }
        else if (!strcmp(o, "--k-clip")) { if (!cli_parse_float(cmd, o, v, -1.0, 1.0, &a->kc)) return -1; }
        else if (!strcmp(o, "--v-clip")) { if (!cli_parse_float(cmd, o, v, -1.0, 1.0, &a->vc)) return -1; }
        else if (!strcmp(o, "--group")) { if (!cli_parse_int(cmd, o, v, 1, OSCAR_MAX_HEAD_DIM, &a->group)) return -1; }
        else if (!strcmp(o, "--composition")) {
            if ((a->comp = oscar_composition_parse(v)) < 0) {
                fprintf(stderr, "oscar %s: unknown composition '%s' (r_h_pbr, hadamard, identity, plain)\n", cmd, v);
                return -1;
            }
        } else if (!strcmp(o, "--dtype")) {
            if (!strcmp(v, "f32")) a->dtype = OSCAR_F32;
            else if (!strcmp(v, "f16")) a->dtype = OSCAR_F16;
            else if (!strcmp(v, "bf16")) a->dtype = OSCAR_BF16;
            else { fprintf(stderr, "oscar %s: --dtype wants f32, f16 or bf16\n", cmd); return -1; }
        } else {
            fprintf(stderr, "oscar %s: unknown option '%s'\n", cmd, o);
            usage(stderr);
            return -1;
        }
    }
    if (!a->model || !a->text || !a->out) {
        fprintf(stderr, "oscar %s: -m MODEL, -f TEXT and -o OUT are required\n", cmd);
        usage(stderr);
        return -1;
    }
    return 1;
}

/* loads the model, tokenizes the text and captures the activations of its first tokens */
static int ev_calib_capture(const char *cmd, ev_calib_args *a, llm_model *m, ev_cap *cap, int64_t *n_out) {
    int *ids = NULL, n = 0, rc;
    if (ev_load(cmd, m, a->model)) return -1;
    if (ev_tokenize_file(cmd, m, a->text, &ids, &n)) {
        llm_free(m);
        return -1;
    }
    if (n < a->tokens) fprintf(stderr, "oscar %s: %s has %d tokens; using all of them\n", cmd, a->text, n);
    else n = a->tokens;
    if (a->window == 0 || a->window > m->n_ctx_train) a->window = m->n_ctx_train;
    if (a->window > n) a->window = n;
    fprintf(stderr, "oscar %s: %s, %d tokens of %s in windows of %d, %d threads\n", cmd, ev_base(a->model), n, ev_base(a->text),
            a->window, a->threads);
    rc = ev_capture(cmd, cap, m, ids, n, a->window, a->threads, a->progress);
    free(ids);
    if (rc) llm_free(m);
    *n_out = n;
    return rc;
}

/* >>calibrate ---- */
static void ev_calibrate_usage(FILE *f) {
    fprintf(f,
            "usage: oscar calibrate -m MODEL -f TEXT [-c TOKENS] [--per-head] -o ROT.safetensors [options]\n"
            "Runs the model over the first TOKENS tokens of TEXT (plain fp32 attention, windows starting at\n"
            "position 0), captures the post-RoPE queries, keys and values of every layer, accumulates the\n"
            "statistics of SPEC section 2, fits the rotations of section 3 and writes the rotation file.\n"
            "  -c, --tokens N    calibration tokens (default 8192)\n"
            "  --window N        tokens per forward window (default and at most: the model's context)\n"
            "  --per-head        one rotation per KV head instead of one per layer\n"
            "  --composition C   r_h_pbr (default), hadamard, identity, plain\n"
            "  --k-clip X        clip ratio stored for keys (default 0.96; <= 0 disables)\n"
            "  --v-clip X        clip ratio stored for values (default 0.92)\n"
            "  --k-gain, --v-gain  store that caches built from the file use the gain encoder on K (V) rows\n"
            "  --k-balance       also fit the K balance (layers.{i}.k.balance) for keys centered before RoPE\n"
            "                    as --kv oscar-cr stores them; the oscar modes use it when the file has it\n"
            "  --group N         INT2 group size stored in the file (default min(128, head dim))\n"
            "  -t, --threads N   threads (default: all cores)\n"
            "  --progress        progress lines on stderr even when it is not a terminal\n"
            "Memory: all activations are kept, (Hq + 2 Hkv) * d * 4 bytes per token and layer\n"
            "(SmolLM2-135M: 115 KB per token). `oscar dump` + `oscar fit --qkv` gives the same file.\n");
}

int oscar_cli_calibrate(int argc, char **argv) {
    ev_calib_args a;
    llm_model m;
    ev_cap cap;
    oscar_rotations rot;
    int64_t n;
    int rc;
    double t0 = cli_now(), t1;
    if ((rc = ev_calib_parse("calibrate", argc, argv, &a, ev_calibrate_usage)) <= 0) return rc ? 2 : 0;
    if (a.group && (!oscar_is_pow2(a.group))) {
        fprintf(stderr, "oscar calibrate: --group must be a power of two\n");
        return 2;
    }
    if (ev_calib_capture("calibrate", &a, &m, &cap, &n)) return 1;
    t1 = cli_now();
    if (a.group > m.head_dim) {
        fprintf(stderr, "oscar calibrate: --group %d exceeds the head dim %d\n", a.group, m.head_dim);
        ev_cap_free(&cap);
        llm_free(&m);
        return 2;
    }
    rc = cli_fit_layers(&rot, m.n_layer, m.head_dim, m.n_head, m.n_head_kv, a.per_head, a.comp, ev_cap_get, ev_cap_release, &cap,
                        a.threads, 1, m.rope_base, a.window, a.k_balance);
    ev_cap_free(&cap);
    if (rc) {
        llm_free(&m);
        return 1;
    }
    rot.k_clip = a.kc;
    rot.v_clip = a.vc;
    rot.k_gain = a.k_gain;
    rot.v_gain = a.v_gain;
    rot.group_size = a.group ? a.group : (m.head_dim < 128 ? m.head_dim : 128);
    snprintf(rot.model, sizeof rot.model, "%s", ev_base(a.model));
    ev_calib_desc(rot.calibration, sizeof rot.calibration, a.text, n, a.window);
    rc = oscar_rotations_save(&rot, a.out);
    if (rc != OSCAR_OK) fprintf(stderr, "oscar calibrate: %s\n", rot.msg);
    else
        fprintf(stderr, "oscar calibrate: wrote %s (%d layers, %s%s) in %.1f s (model %.1f s, fit %.1f s)\n", a.out, m.n_layer,
                oscar_composition_name(a.comp), a.per_head ? ", per head" : "", cli_now() - t0, t1 - t0, cli_now() - t1);
    oscar_rotations_free(&rot);
    llm_free(&m);
    return rc == OSCAR_OK ? 0 : 1;
}

/* >>dump ---- */
static void ev_dump_usage(FILE *f) {
    fprintf(f,
            "usage: oscar dump -m MODEL -f TEXT [-c TOKENS] -o DUMP.safetensors [--dtype f32|f16|bf16] [--layers 0,15,29]\n"
            "Writes the activations `oscar calibrate` fits on as a calibration dump (SPEC section 7):\n"
            "layers.{i}.q [n, Hq, d], layers.{i}.k and layers.{i}.v [n, Hkv, d] (default F32), post-RoPE\n"
            "q/k in the cache basis. `oscar fit --qkv DUMP` on an F32 dump gives calibrate's file exactly.\n"
            "--layers writes only the listed layers (under their own numbers; metadata `layers`), e.g. for\n"
            "`test_cuda --real` (real rows for the GPU tests); `oscar fit` wants every layer.\n"
            "  -c, --tokens N    tokens (default 8192)      --window N   tokens per forward window (default: model context)\n"
            "  -t, --threads N   threads                    --progress   progress lines when not a terminal\n");
}

static int ev_int_list(const char *cmd, const char *opt, const char *s, int *out, int max, int lo, int hi);

#define EV_MAX_DUMP_LAYERS 256
int oscar_cli_dump(int argc, char **argv) {
    ev_calib_args a;
    llm_model m;
    ev_cap cap;
    int64_t n;
    int rc, l, w, ne = 0, nsel = 0, sel[EV_MAX_DUMP_LAYERS], i;
    oscar_st_entry *e = NULL;
    char (*names)[32] = NULL;
    char calib[256], n_tok[32], rb[32], win[32], lay[1024], msg[OSCAR_MSG_SIZE];
    const char *meta[7][2];
    unsigned char keep[EV_MAX_DUMP_LAYERS];
    if ((rc = ev_calib_parse("dump", argc, argv, &a, ev_dump_usage)) <= 0) return rc ? 2 : 0;
    if (a.layers && (nsel = ev_int_list("dump", "--layers", a.layers, sel, EV_MAX_DUMP_LAYERS, 0, EV_MAX_DUMP_LAYERS - 1)) < 1) {
        if (nsel == 0) fprintf(stderr, "oscar dump: --layers wants layer numbers such as 0,15,29, not '%s'\n", a.layers);
        return 2;
    }
    if (ev_calib_capture("dump", &a, &m, &cap, &n)) return 1;
    memset(keep, !a.layers, sizeof keep);
    for (i = 0; i < nsel; i++) {
        if (sel[i] >= cap.L) {
            fprintf(stderr, "oscar dump: --layers: the model has layers 0-%d, not %d\n", cap.L - 1, sel[i]);
            rc = 2;
            goto done;
        }
        keep[sel[i]] = 1;
    }
    snprintf(lay, sizeof lay, "%s", a.layers ? "" : "all");
    for (l = 0; a.layers && l < cap.L; l++)
        if (keep[l]) snprintf(lay + strlen(lay), sizeof lay - strlen(lay), "%s%d", lay[0] ? "," : "", l);
    e = (oscar_st_entry *)calloc((size_t)cap.L * 3, sizeof *e);
    names = (char (*)[32])calloc((size_t)cap.L * 3, 32);
    if (!e || !names) {
        fprintf(stderr, "oscar dump: out of memory\n");
        rc = 1;
        goto done;
    }
    for (l = 0; l < cap.L; l++)
        for (w = 0; w < 3 && (!a.layers || (l < EV_MAX_DUMP_LAYERS && keep[l])); w++) {
            oscar_st_entry *x = &e[ne];
            float *src = w == 0 ? cap.q[l] : w == 1 ? cap.k[l] : cap.v[l];
            size_t cnt = (size_t)n * (w ? cap.Hkv : cap.Hq) * cap.d, j;
            snprintf(names[ne], 32, "layers.%d.%c", l, "qkv"[w]);
            x->name = names[ne++];
            x->dtype = a.dtype;
            x->ndim = 3;
            x->shape[0] = n;
            x->shape[1] = w ? cap.Hkv : cap.Hq;
            x->shape[2] = cap.d;
            x->data = src;
            if (a.dtype != OSCAR_F32) { /* converted in place over the fp32 buffer */
                uint16_t *h = (uint16_t *)src;
                for (j = 0; j < cnt; j++) h[j] = a.dtype == OSCAR_F16 ? oscar_f32_to_f16(src[j]) : oscar_f32_to_bf16(src[j]);
            }
        }
    ev_calib_desc(calib, sizeof calib, a.text, n, a.window);
    snprintf(n_tok, sizeof n_tok, "%lld", (long long)n);
    meta[0][0] = "model"; meta[0][1] = ev_base(a.model);
    meta[1][0] = "calibration"; meta[1][1] = calib;
    meta[2][0] = "basis"; meta[2][1] = "post-RoPE q/k in HF half-split channel order (oscar dump)";
    meta[3][0] = "n_tokens"; meta[3][1] = n_tok;
    snprintf(rb, sizeof rb, "%.9g", (double)m.rope_base);
    snprintf(win, sizeof win, "%d", a.window);
    meta[4][0] = "rope_base"; meta[4][1] = rb; /* oscar fit: the K means before RoPE */
    meta[5][0] = "window"; meta[5][1] = win;   /* row t is at RoPE position t % window */
    meta[6][0] = "layers"; meta[6][1] = lay;   /* the layers written (--layers; all by default) */
    rc = oscar_st_write(a.out, e, ne, &meta[0][0], 7, msg) == OSCAR_OK ? 0 : 1;
    if (rc) fprintf(stderr, "oscar dump: %s\n", msg);
    else fprintf(stderr, "oscar dump: wrote %s (%d of %d layers, %lld tokens, %s)\n", a.out, ne / 3, cap.L, (long long)n, oscar_dtype_name(a.dtype));
done:
    free(e);
    free(names);
    ev_cap_free(&cap);
    llm_free(&m);
    return rc;
}

/* a comma-separated list of integers; returns the count or -1 */
static int ev_int_list(const char *cmd, const char *opt, const char *s, int *out, int max, int lo, int hi) {
    char buf[256], *p, *tok;
    int n = 0;
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    for (p = buf; (tok = strtok(p, ",")) != NULL; p = NULL) {
        if (n == max) {
            fprintf(stderr, "oscar %s: %s takes at most %d values\n", cmd, opt, max);
            return -1;
        }
        if (!cli_parse_int(cmd, opt, tok, lo, hi, &out[n])) return -1;
        n++;
    }
    return n;
}

/* >>modes ---- one llm_ctx per cache mode, run side by side ---- */
typedef struct ev_modes {
    const char *cmd;
    const llm_model *m;
    int n, modes[KVM_COUNT + 1]; /* modes[0] is bf16, the reference */
    int listed[KVM_COUNT + 1];   /* shown in the table */
    oscar_rotations had, fitted;
    int have_had, have_fitted;
    int sink, window, group, v_group; /* sink, window -1: default; groups 0: default */
    float k_clip, v_clip;        /* 0: the mode's own */
    int k_gain, v_gain;          /* 1: OSCAR_INT2_GAIN encoder for K / V in the rotated INT2 modes */
    int no_k_balance;            /* 1: the oscar modes ignore the rotation file's K balance */
    int ctx_threads;
    int bf16_prefill;            /* prompts attend plainly over bf16 rows (llm_ctx_config.bf16_prefill) */
    llm_ctx ctx[KVM_COUNT + 1];
} ev_modes;

/* modes list -> ev_modes with bf16 first; loads rotations as needed. 0 or prints the error. */
static int ev_modes_setup(ev_modes *E, const char *cmd, const llm_model *m, const char *list, const char *rotfile) {
    int req[KVM_COUNT], nr, i, need_had = 0, need_fit = 0;
    E->cmd = cmd;
    E->m = m;
    if ((nr = kvm_parse_list(cmd, list, req)) < 0) return -1;
    E->n = 1;
    E->modes[0] = KVM_BF16;
    E->listed[0] = 0;
    for (i = 0; i < nr; i++) {
        if (req[i] == KVM_BF16) { E->listed[0] = 1; continue; }
        E->modes[E->n] = req[i];
        E->listed[E->n++] = 1;
        need_had |= req[i] == KVM_HADAMARD;
        need_fit |= req[i] == KVM_OSCAR || req[i] == KVM_OSCAR_C || req[i] == KVM_OSCAR_CR;
    }
    if (need_fit && !rotfile) {
        fprintf(stderr, "oscar %s: --kv oscar / oscar-c / oscar-cr need --rot FILE (see `oscar calibrate`)\n", cmd);
        return -1;
    }
    if (need_had) {
        if (oscar_rotations_alloc(&E->had, m->n_layer, m->head_dim, m->n_head_kv, 0) != OSCAR_OK ||
            oscar_rotations_set_fixed(&E->had, OSCAR_COMP_HADAMARD) != OSCAR_OK) {
            fprintf(stderr, "oscar %s: Hadamard rotations: %s\n", cmd, E->had.msg);
            return -1;
        }
        E->have_had = 1;
    }
    if (need_fit) {
        if (oscar_rotations_load(&E->fitted, rotfile) != OSCAR_OK) {
            fprintf(stderr, "oscar %s: %s\n", cmd, E->fitted.msg);
            return -1;
        }
        E->have_fitted = 1;
        if (E->fitted.n_layers != m->n_layer || E->fitted.head_dim != m->head_dim || E->fitted.n_kv_heads != m->n_head_kv) {
            fprintf(stderr, "oscar %s: %s is for %d layers, head dim %d, %d KV heads; the model has %d, %d, %d\n", cmd, rotfile,
                    E->fitted.n_layers, E->fitted.head_dim, E->fitted.n_kv_heads, m->n_layer, m->head_dim, m->n_head_kv);
            return -1;
        }
    }
    return 0;
}

static void ev_modes_free(ev_modes *E) {
    int i;
    for (i = 0; i < E->n; i++) llm_ctx_free(&E->ctx[i]);
    if (E->have_had) oscar_rotations_free(&E->had);
    if (E->have_fitted) oscar_rotations_free(&E->fitted);
    E->have_had = E->have_fitted = 0;
}

/* (re)creates every mode's context for n_ctx tokens */
static int ev_modes_open(ev_modes *E, int n_ctx) {
    int i;
    for (i = 0; i < E->n; i++) {
        llm_ctx_config cfg;
        char msg[OSCAR_MSG_SIZE];
        llm_ctx_free(&E->ctx[i]);
        memset(&cfg, 0, sizeof cfg);
        cfg.n_ctx = n_ctx;
        cfg.n_threads = E->ctx_threads;
        cfg.split_heads = E->ctx_threads > 1;
        cfg.bf16_prefill = E->bf16_prefill;
        cfg.kv.sink = E->sink < 0 ? 0 : (E->sink == 0 ? OSCAR_NONE : E->sink);
        cfg.kv.window = E->window < 0 ? 0 : (E->window == 0 ? OSCAR_NONE : E->window);
        cfg.kv.group_size = E->group > 0 ? E->group : 0;
        if (kvm_config(&cfg, E->modes[i], E->have_had ? &E->had : NULL, E->have_fitted ? &E->fitted : NULL, msg)) {
            fprintf(stderr, "oscar %s: %s\n", E->cmd, msg);
            return -1;
        }
        if (E->modes[i] == KVM_HADAMARD || E->modes[i] == KVM_OSCAR || E->modes[i] == KVM_OSCAR_C || E->modes[i] == KVM_OSCAR_CR) {
            if (E->k_clip != 0) cfg.kv.k_clip = E->k_clip < 0 ? -1.0f : E->k_clip;
            if (E->v_clip != 0) cfg.kv.v_clip = E->v_clip < 0 ? -1.0f : E->v_clip;
            if (E->k_gain) cfg.kv.k_gain = 1; /* else the rotation file's (oscar modes) */
            if (E->v_gain) cfg.kv.v_gain = 1;
            if (E->no_k_balance) cfg.kv.k_balance = 0;
        }
        if (E->v_group > 0) cfg.kv.v_group_size = E->v_group;
        if (llm_ctx_init(&E->ctx[i], E->m, &cfg)) {
            fprintf(stderr, "oscar %s: %s: %s\n", E->cmd, kvm_names[E->modes[i]], E->ctx[i].msg);
            return -1;
        }
    }
    return 0;
}

/* 1 when the oscar modes of E store K through the rotation file's balance */
static int ev_k_balance(const ev_modes *E) {
    return E->have_fitted && E->fitted.k_balance && !E->no_k_balance;
}

/* niah's needle of index idx (length, depth, trial order) runs in this process (--part K/N, --from N) */
static int ev_niah_selected(int idx, int part_k, int part_n, int from) {
    return idx % part_n == part_k && idx >= from;
}

/* --prefill cache|bf16 -> E->bf16_prefill; 0 or prints the error */
static int ev_parse_prefill(const char *cmd, const char *v, ev_modes *E) {
    if (!strcmp(v, "cache")) E->bf16_prefill = 0;
    else if (!strcmp(v, "bf16")) E->bf16_prefill = 1;
    else return fprintf(stderr, "oscar %s: --prefill takes cache or bf16, not '%s'\n", cmd, v), -1;
    return 0;
}

/* KV bits per element of mode i's cache now (whole cache, and inside the INT2 history) */
static void ev_modes_bits(ev_modes *E, int i, double *bits, double *hist) {
    oscar_kv_memory mem;
    *bits = *hist = 0.0;
    if (E->modes[i] == KVM_PLAIN_F32) { *bits = *hist = 32.0; return; }
    if (E->modes[i] == KVM_PLAIN_BF16) { *bits = *hist = 16.0; return; }
    if (llm_kv_memory(&E->ctx[i], &mem)) return;
    *bits = mem.bits_per_element;
    *hist = mem.n_history ? (mem.history_bf16_bytes ? 16.0 : mem.history_bits_per_element) : 0.0;
}

/* >>ppl ---- teacher-forced perplexity, KLD and top-1 agreement against bf16 ---- */
typedef struct ev_ppl {
    ev_modes *E;
    const int *ids;     /* the window's tokens */
    int s, B, need;     /* chunk start, size; need logits */
    int score_from, ctx;
    float **logits;     /* [n_modes] -> [B][V] */
    double *res;        /* [B][n_modes][3]: nll, kld, agree of each scored position */
    int fail;
} ev_ppl;

static void ev_ppl_eval(void *arg, int i) {
    ev_ppl *P = (ev_ppl *)arg;
    llm_ctx *c = &P->E->ctx[i];
    if (llm_eval(c, P->ids + P->s, P->B, P->need ? P->logits[i] : NULL, 1, NULL, NULL)) {
        fprintf(stderr, "oscar ppl: %s: %s\n", kvm_names[P->E->modes[i]], c->msg);
        P->fail = 1;
    }
}

/* log-sum-exp and argmax of a row of logits */
static double ev_lse(const float *x, int n, int *amax) {
    int i, b = 0;
    double mx, s = 0.0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    mx = x[b];
    for (i = 0; i < n; i++) s += exp((double)x[i] - mx);
    *amax = b;
    return mx + log(s);
}

/* metrics of chunk position b (token s + b predicts s + b + 1) for every mode */
static void ev_ppl_score(void *arg, int b) {
    ev_ppl *P = (ev_ppl *)arg;
    int V = P->E->m->n_vocab, nm = P->E->n, i, j, a0, a;
    int pos = P->s + b, target;
    const float *r = P->logits[0] + (size_t)b * V;
    double lr, *out = P->res + (size_t)b * nm * 3;
    if (pos < P->score_from || pos + 1 >= P->ctx) return;
    target = P->ids[pos + 1];
    lr = ev_lse(r, V, &a0);
    out[0] = lr - r[target];
    out[1] = 0.0;
    out[2] = 1.0;
    for (i = 1; i < nm; i++) {
        const float *x = P->logits[i] + (size_t)b * V;
        double lx = ev_lse(x, V, &a), kld = 0.0;
        for (j = 0; j < V; j++) {
            double lp = (double)r[j] - lr;
            kld += exp(lp) * (lp - ((double)x[j] - lx));
        }
        out[3 * i] = lx - x[target];
        out[3 * i + 1] = kld > 0 ? kld : 0.0;
        out[3 * i + 2] = a == a0;
    }
}

static void ev_ppl_usage(FILE *f) {
    fprintf(f,
            "usage: oscar ppl -m MODEL -f TEXT -c CTX [--kv MODE[,MODE...]] [--rot FILE] [--json] [options]\n"
            "Teacher-forced evaluation over windows of CTX tokens of TEXT. Every position attends through\n"
            "the cache exactly as decode would (sink, window and INT2 history at that position). For each\n"
            "mode: perplexity, mean KL(bf16 || mode) of the next-token distribution, top-1 agreement with\n"
            "bf16, and the cache's bits per element (whole cache at the context length; INT2 history).\n"
            "The bf16 cache is always run as the reference; all modes advance chunk by chunk together.\n"
            "  --kv LIST          modes (default bf16,int2-naive,int2-hadamard,kivi2, plus oscar with --rot):\n"
            "                     bf16 int2-naive int2-hadamard oscar oscar-c oscar-cr kivi2 plain-bf16 plain-f32\n"
            "  --rot FILE         fitted rotations for oscar, oscar-c, oscar-cr (the last two need its means)\n"
            "  -c, --ctx N        window length in tokens (required)\n"
            "  --windows N        windows to evaluate (default 1), consecutive from --start\n"
            "  --start N          first token of the first window (default 0)\n"
            "  --score-from N     score predictions from position N of each window (default CTX/2, so every\n"
            "                     scored token sees at least CTX/2 tokens; 0 scores every position)\n"
            "  --contexts C,...   also report shorter contexts from the same run: context C scores positions\n"
            "                     [C/2, C-1) (or [N, C-1) with --score-from), exactly what `-c C` over a window\n"
            "                     starting at the same token computes (attention is causal)\n"
            "  --sink N, --window N, --group N   cache geometry for every mode (default 64, 256, min(128, d))\n"
            "  --v-group N        V's INT2 group in every INT2 mode (default: K's), so that K can take more bits\n"
            "  --k-clip X, --v-clip X            override the clips of int2-hadamard and oscar (< 0: none)\n"
            "  --k-gain, --v-gain keep each INT2 K (V) row's projection onto itself (OSCAR_INT2_GAIN: the stored\n"
            "                     scale and min times sum x^2 / sum x.x^) in int2-hadamard and the oscar modes\n"
            "  --no-k-balance     the oscar modes ignore the rotation file's K balance (layers.{i}.k.balance)\n"
            "  --batch N          tokens per forward chunk (default 32)\n"
            "  -t, --threads N    threads (default: all cores; modes run side by side, one thread each)\n"
            "  --json             print the results as JSON on stdout instead of a table\n"
            "  --progress         progress lines on stderr even when it is not a terminal\n");
}

#define EV_MAX_CTXS 16

int oscar_cli_ppl(int argc, char **argv) {
    const char *model = NULL, *file = NULL, *list = NULL, *rotfile = NULL;
    int ctx = 0, windows = 1, start = 0, score_from = -1, batch = 32, threads = cli_threads(), json = 0, progress = 0, i, w, c, rc = 1;
    int sink = -1, window = -1, group = 0, v_group = 0, *ids = NULL, n_ids = 0, nm, V, ctxs[EV_MAX_CTXS], nc = 0, from[EV_MAX_CTXS], min_from;
    float kc = 0, vc = 0;
    llm_model m;
    ev_modes E;
    ev_ppl P;
    ev_prog prog;
    static double acc[EV_MAX_CTXS][KVM_COUNT + 1][3], bits[EV_MAX_CTXS][KVM_COUNT + 1][2];
    int64_t scored[EV_MAX_CTXS];
    double t0;
    memset(&E, 0, sizeof E);
    memset(&P, 0, sizeof P);
    memset(acc, 0, sizeof acc);
    memset(bits, 0, sizeof bits);
    memset(scored, 0, sizeof scored);
    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) { ev_ppl_usage(stdout); return 0; }
        else if (!strcmp(o, "--json")) json = 1;
        else if (!strcmp(o, "--progress")) progress = 1;
        else if (!strcmp(o, "--k-gain")) E.k_gain = 1;
        else if (!strcmp(o, "--no-k-balance")) E.no_k_balance = 1;
        else if (!strcmp(o, "--v-gain")) E.v_gain = 1;
        else if (!(v = cli_value("ppl", argc, argv, &i))) return 2;
        else if (!strcmp(o, "-m") || !strcmp(o, "--model")) model = v;
        else if (!strcmp(o, "-f") || !strcmp(o, "--file")) file = v;
        else if (!strcmp(o, "--kv")) list = v;
        else if (!strcmp(o, "--rot")) rotfile = v;
        else if (!strcmp(o, "-c") || !strcmp(o, "--ctx")) { if (!cli_parse_int("ppl", o, v, 2, 1 << 20, &ctx)) return 2; }
        else if (!strcmp(o, "--contexts")) { if ((nc = ev_int_list("ppl", o, v, ctxs, EV_MAX_CTXS, 2, 1 << 20)) < 1) return 2; }
        else if (!strcmp(o, "--windows")) { if (!cli_parse_int("ppl", o, v, 1, 1 << 20, &windows)) return 2; }
        else if (!strcmp(o, "--start")) { if (!cli_parse_int("ppl", o, v, 0, 1 << 30, &start)) return 2; }
        else if (!strcmp(o, "--score-from")) { if (!cli_parse_int("ppl", o, v, 0, 1 << 20, &score_from)) return 2; }
        else if (!strcmp(o, "--sink")) { if (!cli_parse_int("ppl", o, v, 0, 1 << 20, &sink)) return 2; }
        else if (!strcmp(o, "--window")) { if (!cli_parse_int("ppl", o, v, 0, 1 << 20, &window)) return 2; }
        else if (!strcmp(o, "--group")) { if (!cli_parse_int("ppl", o, v, 1, OSCAR_MAX_HEAD_DIM, &group)) return 2; }
        else if (!strcmp(o, "--v-group")) { if (!cli_parse_int("ppl", o, v, 1, OSCAR_MAX_HEAD_DIM, &v_group)) return 2; }
        else if (!strcmp(o, "--k-clip")) { if (!cli_parse_float("ppl", o, v, -1.0, 1.0, &kc)) return 2; }
        else if (!strcmp(o, "--v-clip")) { if (!cli_parse_float("ppl", o, v, -1.0, 1.0, &vc)) return 2; }
        else if (!strcmp(o, "--batch")) { if (!cli_parse_int("ppl", o, v, 1, 4096, &batch)) return 2; }
        else if (!strcmp(o, "-t") || !strcmp(o, "--threads")) { if (!cli_parse_int("ppl", o, v, 1, LLM_MAX_THREADS, &threads)) return 2; }
        else {
            fprintf(stderr, "oscar ppl: unknown option '%s'\n", o);
            ev_ppl_usage(stderr);
            return 2;
        }
    }
    if (!model || !file || !ctx) {
        fprintf(stderr, "oscar ppl: -m MODEL, -f TEXT and -c CTX are required\n");
        ev_ppl_usage(stderr);
        return 2;
    }
    if (!list) list = rotfile ? "bf16,int2-naive,int2-hadamard,oscar,kivi2" : "bf16,int2-naive,int2-hadamard,kivi2";
    if (!nc) ctxs[nc++] = ctx;
    min_from = ctx;
    for (c = 0; c < nc; c++) {
        if (ctxs[c] > ctx || (c && ctxs[c] <= ctxs[c - 1])) {
            fprintf(stderr, "oscar ppl: --contexts must increase and not exceed -c %d\n", ctx);
            return 2;
        }
        from[c] = score_from >= 0 ? score_from : ctxs[c] / 2;
        if (from[c] >= ctxs[c] - 1) {
            fprintf(stderr, "oscar ppl: scoring from %d leaves nothing to score in a context of %d\n", from[c], ctxs[c]);
            return 2;
        }
        if (from[c] < min_from) min_from = from[c];
    }
    if (ev_load("ppl", &m, model)) return 1;
    V = m.n_vocab;
    if (ctx > m.n_ctx_train) fprintf(stderr, "oscar ppl: warning: context %d exceeds the model's training context %d\n", ctx, m.n_ctx_train);
    if (ev_tokenize_file("ppl", &m, file, &ids, &n_ids)) goto done;
    if ((int64_t)start + (int64_t)windows * ctx > n_ids) {
        fprintf(stderr, "oscar ppl: %s has %d tokens; %d windows of %d from token %d need %lld\n", file, n_ids, windows, ctx, start,
                (long long)start + (long long)windows * ctx);
        goto done;
    }
    E.sink = sink;
    E.window = window;
    E.group = group;
    E.v_group = v_group;
    E.k_clip = kc;
    E.v_clip = vc;
    if (ev_modes_setup(&E, "ppl", &m, list, rotfile)) goto done;
    nm = E.n;
    E.ctx_threads = threads > nm ? threads / nm : 1;
    P.E = &E;
    P.B = batch;
    P.ctx = ctx;
    P.score_from = min_from;
    P.logits = (float **)calloc((size_t)nm, sizeof(float *));
    P.res = (double *)malloc(sizeof(double) * (size_t)batch * nm * 3);
    if (!P.logits || !P.res) goto oom;
    for (i = 0; i < nm; i++)
        if (!(P.logits[i] = (float *)malloc(sizeof(float) * (size_t)batch * V))) goto oom;
    fprintf(stderr, "oscar ppl: %s, %s: %d window%s of %d tokens from token %d; %d modes on %d threads\n", ev_base(model), ev_base(file),
            windows, windows > 1 ? "s" : "", ctx, start, nm, threads);
    ev_prog_start(&prog, "ppl", (int64_t)windows * ctx, progress);
    t0 = cli_now();
    for (w = 0; w < windows; w++) {
        int s;
        P.ids = ids + start + (size_t)w * ctx;
        if (ev_modes_open(&E, ctx)) goto done;
        for (s = 0; s < ctx; s += batch) {
            int b;
            P.s = s;
            P.B = ctx - s < batch ? ctx - s : batch;
            P.need = s + P.B > min_from && s < ctx - 1;
            P.fail = 0;
            ev_parallel(ev_ppl_eval, &P, nm, threads);
            if (P.fail) goto done;
            if (P.need) {
                for (b = 0; b < P.B * nm * 3; b++) P.res[b] = -1.0;
                ev_parallel(ev_ppl_score, &P, P.B, threads);
                for (b = 0; b < P.B; b++) {
                    const double *r = P.res + (size_t)b * nm * 3;
                    int pos = s + b;
                    if (r[0] < 0) continue;
                    for (c = 0; c < nc; c++) {
                        if (pos < from[c] || pos + 1 >= ctxs[c]) continue;
                        for (i = 0; i < nm; i++) {
                            acc[c][i][0] += r[3 * i];
                            acc[c][i][1] += r[3 * i + 1];
                            acc[c][i][2] += r[3 * i + 2];
                        }
                        scored[c]++;
                    }
                }
            }
            for (c = 0; c < nc; c++) /* the cache's size when it holds the context's tokens */
                if (s < ctxs[c] && s + P.B >= ctxs[c]) {
                    double n = scored[c] ? (double)scored[c] : 1.0;
                    for (i = 0; i < nm; i++) ev_modes_bits(&E, i, &bits[c][i][0], &bits[c][i][1]);
                    if (prog.show == 2 || (windows == 1 && nc > 1)) { /* partial results of long runs */
                        fprintf(stderr, "%scontext %d, window %d: %lld scored;", prog.show == 1 ? "\n" : "", ctxs[c], w + 1, (long long)scored[c]);
                        for (i = 0; i < nm; i++)
                            fprintf(stderr, " %s PPL %.4f KLD %.5f top-1 %.4f;", kvm_names[E.modes[i]], exp(acc[c][i][0] / n), acc[c][i][1] / n,
                                    acc[c][i][2] / n);
                        fprintf(stderr, "\n");
                    }
                }
            ev_prog_update(&prog, (int64_t)w * ctx + s + P.B);
        }
        if (windows > 1 && !json) {
            fprintf(stderr, "  window %d/%d done (%lld scored at context %d): PPL", w + 1, windows, (long long)scored[nc - 1], ctxs[nc - 1]);
            for (i = 0; i < nm; i++) fprintf(stderr, " %s %.4f", kvm_names[E.modes[i]], exp(acc[nc - 1][i][0] / (double)scored[nc - 1]));
            fprintf(stderr, "\n");
        }
    }
    if (json) {
        printf("{\"model\": \"%s\", \"text\": \"%s\", \"ctx\": %d, \"windows\": %d, \"start\": %d, \"sink\": %d, \"window\": %d, "
               "\"group\": %d, \"v_group\": %d, \"rot\": \"%s\", \"k_clip\": %g, \"v_clip\": %g, \"k_gain\": %d, \"v_gain\": %d, \"k_balance\": %d, \"seconds\": %.1f, \"contexts\": [",
               ev_base(model), ev_base(file), ctx, windows, start, sink < 0 ? 64 : sink, window < 0 ? 256 : window, group, v_group,
               rotfile ? ev_base(rotfile) : "", kc, vc, E.k_gain, E.v_gain, ev_k_balance(&E), cli_now() - t0);
        for (c = 0; c < nc; c++) {
            int k = 0;
            double n = scored[c] ? (double)scored[c] : 1.0;
            printf("%s\n {\"ctx\": %d, \"score_from\": %d, \"scored\": %lld, \"modes\": [", c ? "," : "", ctxs[c], from[c], (long long)scored[c]);
            for (i = 0; i < nm; i++) {
                if (!E.listed[i]) continue;
                printf("%s\n  {\"mode\": \"%s\", \"ppl\": %.9g, \"nll\": %.12g, \"kld\": %.9g, \"top1\": %.9g, \"bits\": %.4f, \"history_bits\": %.4f}",
                       k++ ? "," : "", kvm_names[E.modes[i]], exp(acc[c][i][0] / n), acc[c][i][0] / n, acc[c][i][1] / n, acc[c][i][2] / n,
                       bits[c][i][0], bits[c][i][1]);
            }
            printf("]}");
        }
        printf("\n]}\n");
    } else {
        for (c = 0; c < nc; c++) {
            double n = scored[c] ? (double)scored[c] : 1.0, p0 = exp(acc[c][0][0] / n);
            printf("%s on %s: context %d, %d window%s of %d from token %d, %lld scored predictions (positions %d..%d of each)\n",
                   ev_base(model), ev_base(file), ctxs[c], windows, windows > 1 ? "s" : "", ctx, start, (long long)scored[c], from[c],
                   ctxs[c] - 2);
            printf("  %-14s %10s %8s %11s %8s %10s %9s\n", "mode", "PPL", "vs bf16", "KLD", "top-1", "bits/elem", "history");
            for (i = 0; i < nm; i++) {
                double p = exp(acc[c][i][0] / n);
                if (!E.listed[i]) continue;
                printf("  %-14s %10.4f %+7.2f%% %11.6f %7.2f%% %10.3f %9.3f\n", kvm_names[E.modes[i]], p, 100.0 * (p / p0 - 1.0),
                       acc[c][i][1] / n, 100.0 * acc[c][i][2] / n, bits[c][i][0], bits[c][i][1]);
            }
        }
        printf("  (%.1f s; bits/elem: whole cache at the context length, with the BF16 sink and window; history: the INT2 region)\n",
               cli_now() - t0);
    }
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "oscar ppl: out of memory\n");
done:
    if (P.logits)
        for (i = 0; i < E.n; i++) free(P.logits[i]);
    free(P.logits);
    free(P.res);
    ev_modes_free(&E);
    free(ids);
    llm_free(&m);
    return rc;
}

/* >>generate ---- prompt + greedy answer in every mode, side by side ---- */
typedef struct ev_gen {
    ev_modes *E;
    const int *prompt;
    int n_prompt, max_new;
    int *out;        /* [n_modes][max_new] generated ids */
    int *n_out;      /* [n_modes] */
    double *t;       /* [n_modes][2] prompt and generation seconds */
    int fail;
    int listed_only; /* 1: modes not asked for (the bf16 reference) generate nothing */
    const int *forced;   /* score mode: the answer fed after the prompt (no generation) */
    const char *scored;  /* [n_forced] 1 where the forced token's log-probability counts */
    int n_forced;
    double *nll;         /* [n_modes] sum of -log p over the scored tokens */
    int *top;            /* [n_modes] 1 if every scored token was the argmax */
} ev_gen;

static int ev_is_stop(const llm_model *m, int id) {
    return id == m->tok.eos || id == m->tok.eot || id == tok_id(&m->tok, "<|endoftext|>");
}

static int ev_argmax(const float *x, int n) {
    int i, b = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return b;
}

static void ev_gen_task(void *arg, int i) {
    ev_gen *G = (ev_gen *)arg;
    llm_ctx *c = &G->E->ctx[i];
    const llm_model *m = G->E->m;
    int n = 0;
    double t0 = cli_now();
    G->n_out[i] = 0;
    if (G->listed_only && !G->E->listed[i]) return;
    c->prefill = c->cfg.bf16_prefill; /* the prompt at full precision, if asked for; decode reads the cache */
    if (llm_eval(c, G->prompt, G->n_prompt, c->logits, 0, NULL, NULL)) goto fail;
    c->prefill = 0;
    G->t[2 * i] = cli_now() - t0;
    t0 = cli_now();
    if (G->forced) { /* teacher-force the answer: log-probabilities of the scored tokens */
        int j, V = m->n_vocab;
        G->nll[i] = 0.0;
        G->top[i] = 1;
        for (j = 0; j < G->n_forced; j++) {
            if (G->scored[j]) {
                int amax;
                G->nll[i] += ev_lse(c->logits, V, &amax) - (double)c->logits[G->forced[j]];
                if (amax != G->forced[j]) G->top[i] = 0;
            }
            if (j + 1 < G->n_forced && llm_eval(c, &G->forced[j], 1, c->logits, 0, NULL, NULL)) goto fail;
        }
        G->t[2 * i + 1] = cli_now() - t0;
        return;
    }
    while (n < G->max_new) {
        int next = ev_argmax(c->logits, m->n_vocab);
        if (ev_is_stop(m, next)) break;
        G->out[(size_t)i * G->max_new + n++] = next;
        if (n == G->max_new || c->n_past >= c->cfg.n_ctx) break;
        if (llm_eval(c, &next, 1, c->logits, 0, NULL, NULL)) goto fail;
    }
    G->t[2 * i + 1] = cli_now() - t0;
    G->n_out[i] = n;
    return;
fail:
    fprintf(stderr, "oscar: %s: %s\n", kvm_names[G->E->modes[i]], c->msg);
    G->fail = 1;
}

/* the text of generated ids (control tokens dropped) into buf */
static void ev_detok(const llm_model *m, const int *ids, int n, char *buf, size_t size) {
    size_t at = 0;
    int i;
    buf[0] = 0;
    for (i = 0; i < n; i++) {
        size_t pl;
        const uint8_t *p = tok_piece(&m->tok, ids[i], &pl);
        if (tok_is_control(&m->tok, ids[i])) continue;
        if (at + pl + 1 > size) break;
        memcpy(buf + at, p, pl);
        at += pl;
        buf[at] = 0;
    }
}

/* appends the ids of text (special tokens parsed) to a growing array; 0 or -1 */
static int ev_append_text(const llm_model *m, int **ids, int *n, int *cap, const char *text) {
    int *t = NULL, k = 0;
    if (tok_encode(&m->tok, text, strlen(text), 1, &t, &k)) return -1;
    if (*n + k > *cap) {
        int nc = (*n + k) * 2 + 16, *ni = (int *)realloc(*ids, sizeof(int) * (size_t)nc);
        if (!ni) {
            free(t);
            return -1;
        }
        *ids = ni;
        *cap = nc;
    }
    memcpy(*ids + *n, t, sizeof(int) * (size_t)k);
    *n += k;
    free(t);
    return 0;
}

static int ev_append_ids(int **ids, int *n, int *cap, const int *src, int k) {
    if (*n + k > *cap) {
        int nc = (*n + k) * 2 + 16, *ni = (int *)realloc(*ids, sizeof(int) * (size_t)nc);
        if (!ni) return -1;
        *ids = ni;
        *cap = nc;
    }
    memcpy(*ids + *n, src, sizeof(int) * (size_t)k);
    *n += k;
    return 0;
}

#define EV_SYSTEM "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\n"
#define EV_ASSISTANT "<|im_end|>\n<|im_start|>assistant\n"

/* the index nearest after `at` (within `limit`) whose token ends a line, else at */
static int ev_line_break(const llm_model *m, const int *ids, int at, int limit) {
    int i;
    for (i = at; i < limit && i < at + 64; i++) {
        size_t pl;
        const uint8_t *p = tok_piece(&m->tok, ids[i], &pl);
        if (pl && p[pl - 1] == '\n') return i + 1;
    }
    return at;
}

/* >>niah ---- needle in a haystack ---- */
static void ev_niah_usage(FILE *f) {
    fprintf(f,
            "usage: oscar niah -m MODEL -f FILLER [--kv MODE[,MODE...]] [--rot FILE] [options]\n"
            "Needle in a haystack: the sentence \"The special magic number is NNNN.\" is placed at several\n"
            "depths of a filler text (at a line break), the prompt is cut to several total lengths, and the\n"
            "question comes at the end inside the model's chat template. The greedy answer is an exact match\n"
            "when its first number is NNNN. Each (length, depth, trial) uses its own number and filler offset.\n"
            "  --kv LIST          modes (default bf16,int2-naive,int2-hadamard,kivi2, plus oscar with --rot;\n"
            "                     oscar-c and oscar-cr also available)\n"
            "  --rot FILE         fitted rotations for oscar, oscar-c and oscar-cr\n"
            "  --lengths L,...    prompt lengths in tokens (default 1024,2048,4096,8000)\n"
            "  --depths D,...     needle depths in percent of the filler (default 10,30,50,70,90)\n"
            "  --trials N         trials per (length, depth) (default 1)\n"
            "  --seed N           numbers and filler offsets (default 1)\n"
            "  --part K/N         run only the needles whose index (length, depth, trial order) is K mod N, so\n"
            "                     N processes share one set; each needle is the one the whole run would use\n"
            "  --from N           skip the needles before index N (resume a run, or one length of several)\n"
            "  --k-clip X, --v-clip X  override the clips of int2-hadamard and oscar (< 0: none)\n"
            "  --k-gain, --v-gain keep each INT2 K (V) row's projection onto itself (OSCAR_INT2_GAIN) in\n"
            "                     int2-hadamard and the oscar modes\n"
            "  --no-k-balance     the oscar modes ignore the rotation file's K balance (layers.{i}.k.balance)\n"
            "  --sink N, --window N    BF16 sink and window of every mode (default 64, 256; 0: none)\n"
            "  --group N, --v-group N  INT2 group of K (and V) and of V alone in every INT2 mode (default min(128, d))\n"
            "  --prefill WHERE    cache (default): every prompt token attends through the cache as decode would;\n"
            "                     bf16: the prompt attends at full precision over its bf16 K/V rows (what a\n"
            "                     serving engine's prefill does) while its rows go into the cache, and only\n"
            "                     the answer's tokens read the cache\n"
            "  -t, --threads N    threads (default: all cores; modes run side by side)\n"
            "  --score            instead of generating, feed the answer \"The special magic number mentioned in\n"
            "                     the text is NNNN.\" after the prompt and score its digits: the sum of -log p of\n"
            "                     the digit tokens (reported as the mean per needle) and a hit when every digit\n"
            "                     is the argmax; a continuous measure that a few needles resolve better\n"
            "  --json             JSON on stdout instead of tables      -v  print every answer\n");
}

int oscar_cli_niah(int argc, char **argv) {
    const char *model = NULL, *file = NULL, *list = NULL, *rotfile = NULL;
    int lengths[16] = {1024, 2048, 4096, 8000}, depths[16] = {10, 30, 50, 70, 90}, nl = 4, nd = 5, trials = 1, seed = 1;
    int threads = cli_threads(), json = 0, verbose = 0, score = 0, i, rc = 1, *fill = NULL, n_fill = 0, li, di, tr, nm, max_new = 32;
    int *forced = NULL, n_forced = 0;
    char scored[32];
    double *nll = NULL;
    int sink = -1, window = -1, group = 0, v_group = 0, part_k = 0, part_n = 1, from = 0, n_ran = 0;
    float kc = 0, vc = 0;
    int *ran = NULL, *hits = NULL, *prompt = NULL, np = 0, pcap = 0;
    llm_model m;
    ev_modes E;
    ev_gen G;
    ev_prog prog;
    int64_t progressed = 0, total = 0;
    double t0;
    memset(&E, 0, sizeof E);
    memset(&G, 0, sizeof G);
    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) { ev_niah_usage(stdout); return 0; }
        else if (!strcmp(o, "--json")) json = 1;
        else if (!strcmp(o, "-v")) verbose = 1;
        else if (!strcmp(o, "--score")) score = 1;
        else if (!strcmp(o, "--k-gain")) E.k_gain = 1;
        else if (!strcmp(o, "--no-k-balance")) E.no_k_balance = 1;
        else if (!strcmp(o, "--v-gain")) E.v_gain = 1;
        else if (!(v = cli_value("niah", argc, argv, &i))) return 2;
        else if (!strcmp(o, "-m") || !strcmp(o, "--model")) model = v;
        else if (!strcmp(o, "-f") || !strcmp(o, "--file")) file = v;
        else if (!strcmp(o, "--kv")) list = v;
        else if (!strcmp(o, "--rot")) rotfile = v;
        else if (!strcmp(o, "--prefill")) { if (ev_parse_prefill("niah", v, &E)) return 2; }
        else if (!strcmp(o, "--lengths")) { if ((nl = ev_int_list("niah", o, v, lengths, 16, 128, 1 << 20)) < 1) return 2; }
        else if (!strcmp(o, "--depths")) { if ((nd = ev_int_list("niah", o, v, depths, 16, 0, 100)) < 1) return 2; }
        else if (!strcmp(o, "--trials")) { if (!cli_parse_int("niah", o, v, 1, 1000, &trials)) return 2; }
        else if (!strcmp(o, "--seed")) { if (!cli_parse_int("niah", o, v, 0, 1 << 30, &seed)) return 2; }
        else if (!strcmp(o, "--part")) {
            char tail;
            if (sscanf(v, "%d/%d%c", &part_k, &part_n, &tail) != 2 || part_n < 1 || part_n > 1000 || part_k < 0 || part_k >= part_n) {
                fprintf(stderr, "oscar niah: --part takes K/N with 0 <= K < N <= 1000, not '%s'\n", v);
                return 2;
            }
        }
        else if (!strcmp(o, "--from")) { if (!cli_parse_int("niah", o, v, 0, 1 << 30, &from)) return 2; }
        else if (!strcmp(o, "--k-clip")) { if (!cli_parse_float("niah", o, v, -1.0, 1.0, &kc)) return 2; }
        else if (!strcmp(o, "--v-clip")) { if (!cli_parse_float("niah", o, v, -1.0, 1.0, &vc)) return 2; }
        else if (!strcmp(o, "--sink")) { if (!cli_parse_int("niah", o, v, 0, 1 << 20, &sink)) return 2; }
        else if (!strcmp(o, "--window")) { if (!cli_parse_int("niah", o, v, 0, 1 << 20, &window)) return 2; }
        else if (!strcmp(o, "--group")) { if (!cli_parse_int("niah", o, v, 1, OSCAR_MAX_HEAD_DIM, &group)) return 2; }
        else if (!strcmp(o, "--v-group")) { if (!cli_parse_int("niah", o, v, 1, OSCAR_MAX_HEAD_DIM, &v_group)) return 2; }
        else if (!strcmp(o, "-t") || !strcmp(o, "--threads")) { if (!cli_parse_int("niah", o, v, 1, LLM_MAX_THREADS, &threads)) return 2; }
        else {
            fprintf(stderr, "oscar niah: unknown option '%s'\n", o);
            ev_niah_usage(stderr);
            return 2;
        }
    }
    if (!model || !file) {
        fprintf(stderr, "oscar niah: -m MODEL and -f FILLER are required\n");
        ev_niah_usage(stderr);
        return 2;
    }
    if (!list) list = rotfile ? "bf16,int2-naive,int2-hadamard,oscar,kivi2" : "bf16,int2-naive,int2-hadamard,kivi2";
    if (ev_load("niah", &m, model)) return 1;
    if (ev_tokenize_file("niah", &m, file, &fill, &n_fill)) goto done;
    for (li = 0; li < nl; li++) {
        if (lengths[li] + max_new > m.n_ctx_train)
            fprintf(stderr, "oscar niah: warning: length %d + %d answer tokens exceeds the model's context %d\n", lengths[li], max_new, m.n_ctx_train);
        if (lengths[li] > n_fill) {
            fprintf(stderr, "oscar niah: %s has %d tokens, fewer than the length %d\n", file, n_fill, lengths[li]);
            goto done;
        }
        for (di = 0; di < nd * trials; di++) total += ev_niah_selected(li * nd * trials + di, part_k, part_n, from) ? lengths[li] : 0;
    }
    if (!total) {
        fprintf(stderr, "oscar niah: --part %d/%d and --from %d leave none of the %d needles to run\n", part_k, part_n, from, nl * nd * trials);
        goto done;
    }
    if (ev_modes_setup(&E, "niah", &m, list, rotfile)) goto done;
    E.sink = sink; /* -1: the cache's defaults (SPEC: 64 and 256) */
    E.window = window;
    E.group = group;
    E.v_group = v_group;
    E.k_clip = kc;
    E.v_clip = vc;
    nm = E.n;
    G.listed_only = 1; /* the bf16 reference only runs when asked for */
    for (i = 0, tr = 0; i < nm; i++) tr += E.listed[i];
    E.ctx_threads = threads > tr ? threads / tr : 1;
    hits = (int *)calloc((size_t)nm * nl * nd, sizeof(int));
    ran = (int *)calloc((size_t)nl * nd, sizeof(int)); /* needles run per (length, depth) */
    G.out = (int *)malloc(sizeof(int) * (size_t)nm * max_new);
    G.n_out = (int *)calloc((size_t)nm, sizeof(int));
    G.t = (double *)calloc((size_t)nm * 2, sizeof(double));
    G.nll = (double *)calloc((size_t)nm, sizeof(double));
    G.top = (int *)calloc((size_t)nm, sizeof(int));
    nll = (double *)calloc((size_t)nm * nl * nd, sizeof(double));
    if (!hits || !ran || !G.out || !G.n_out || !G.t || !G.nll || !G.top || !nll) goto oom;
    G.E = &E;
    G.max_new = max_new;
    fprintf(stderr, "oscar niah: %s, filler %s (%d tokens), %d lengths x %d depths x %d trials, %d modes on %d threads\n",
            ev_base(model), ev_base(file), n_fill, nl, nd, trials, tr, threads);
    ev_prog_start(&prog, "niah", total, 1);
    t0 = cli_now();
    for (li = 0; li < nl; li++)
        for (di = 0; di < nd; di++)
            for (tr = 0; tr < trials; tr++) {
                uint64_t h;
                int value, n_head, n_tail, n_hay, at, off;
                char needle[96], question[256], val[16];
                if (!ev_niah_selected((li * nd + di) * trials + tr, part_k, part_n, from)) continue; /* another part's, or before --from */
                h = 0x9E3779B97F4A7C15ULL * (uint64_t)(seed * 1000003 + li * 7919 + di * 104729 + tr * 15485863 + 1);
                h ^= h >> 31;
                h *= 0xBF58476D1CE4E5B9ULL;
                h ^= h >> 29;
                value = 1000 + (int)(h % 9000);
                snprintf(val, sizeof val, "%d", value);
                snprintf(needle, sizeof needle, "\nThe special magic number is %d.\n", value);
                snprintf(question, sizeof question, "\n\nWhat is the special magic number mentioned in the text above? Answer with the number only.");
                /* header, needle and tail lengths decide how much filler fits */
                np = 0;
                if (ev_append_text(&m, &prompt, &np, &pcap, EV_SYSTEM "Read the text below and remember the special magic number in it.\n\n")) goto oom;
                n_head = np;
                {
                    int *tmp = NULL, k1 = 0, k2 = 0;
                    if (tok_encode(&m.tok, needle, strlen(needle), 0, &tmp, &k1)) goto oom;
                    free(tmp);
                    tmp = NULL;
                    if (tok_encode(&m.tok, question, strlen(question), 0, &tmp, &k2)) goto oom;
                    free(tmp);
                    n_tail = k1 + k2 + 5; /* + the assistant header */
                }
                n_hay = lengths[li] - n_head - n_tail;
                if (n_hay < 16) {
                    fprintf(stderr, "oscar niah: length %d is too short for the template\n", lengths[li]);
                    goto done;
                }
                off = (int)((h >> 20) % (uint64_t)(n_fill - n_hay));
                off = ev_line_break(&m, fill, off, n_fill - n_hay);
                if (off + n_hay > n_fill) off = n_fill - n_hay;
                at = ev_line_break(&m, fill + off, (int)((int64_t)n_hay * depths[di] / 100), n_hay);
                if (ev_append_ids(&prompt, &np, &pcap, fill + off, at) || ev_append_text(&m, &prompt, &np, &pcap, needle) ||
                    ev_append_ids(&prompt, &np, &pcap, fill + off + at, n_hay - at) ||
                    ev_append_text(&m, &prompt, &np, &pcap, question) || ev_append_text(&m, &prompt, &np, &pcap, EV_ASSISTANT))
                    goto oom;
                if (score) { /* the answer bf16 gives, with this needle's number; its digit tokens are scored */
                    char answer[96];
                    int j;
                    free(forced);
                    forced = NULL;
                    snprintf(answer, sizeof answer, "The special magic number mentioned in the text is %d.", value);
                    if (tok_encode(&m.tok, answer, strlen(answer), 0, &forced, &n_forced)) goto oom;
                    if (n_forced > max_new) {
                        fprintf(stderr, "oscar niah: the scored answer has %d tokens, over %d\n", n_forced, max_new);
                        goto done;
                    }
                    for (j = 0; j < n_forced; j++) {
                        size_t pl, q;
                        const uint8_t *p = tok_piece(&m.tok, forced[j], &pl);
                        scored[j] = 0;
                        for (q = 0; q < pl; q++)
                            if (p[q] >= '0' && p[q] <= '9') scored[j] = 1;
                    }
                    G.forced = forced;
                    G.scored = scored;
                    G.n_forced = n_forced;
                }
                G.prompt = prompt;
                G.n_prompt = np;
                G.fail = 0;
                if (ev_modes_open(&E, np + max_new)) goto done;
                ev_parallel(ev_gen_task, &G, nm, threads);
                if (G.fail) goto done;
                for (i = 0; i < nm; i++) {
                    char ans[256];
                    const char *d;
                    int ok;
                    size_t k = 0;
                    if (!E.listed[i]) continue;
                    if (score) {
                        ok = G.top[i];
                        snprintf(ans, sizeof ans, "digits -log p %.3f", G.nll[i]);
                        nll[((size_t)i * nl + li) * nd + di] += G.nll[i];
                    } else {
                        ev_detok(&m, G.out + (size_t)i * max_new, G.n_out[i], ans, sizeof ans);
                        for (d = ans; *d && (*d < '0' || *d > '9'); d++) {}
                        while (d[k] >= '0' && d[k] <= '9') k++;
                        ok = k == strlen(val) && !strncmp(d, val, k);
                    }
                    hits[((size_t)i * nl + li) * nd + di] += ok;
                    if (verbose) {
                        char *c;
                        for (c = ans; *c; c++)
                            if (*c == '\n') *c = ' ';
                        fprintf(stderr, "  len %5d (%5d tokens) depth %3d%% (token %5d) %-13s %s '%s' (needle %s)\n", lengths[li], np, depths[di],
                                n_head + at, kvm_names[E.modes[i]], ok ? "HIT " : "miss", ans, val);
                    }
                }
                ran[li * nd + di]++;
                n_ran++;
                progressed += lengths[li];
                ev_prog_update(&prog, progressed);
            }
    if (json) {
        printf("{\"model\": \"%s\", \"filler\": \"%s\", \"rot\": \"%s\", \"k_clip\": %g, \"v_clip\": %g, \"k_gain\": %d, \"v_gain\": %d, \"k_balance\": %d, \"sink\": %d, \"window\": %d, \"group\": %d, \"v_group\": %d, \"trials\": %d, "
               "\"seed\": %d, \"part\": \"%d/%d\", \"prefill\": \"%s\", \"seconds\": %.1f, \"lengths\": [",
               ev_base(model), ev_base(file), rotfile ? ev_base(rotfile) : "", kc, vc, E.k_gain, E.v_gain, ev_k_balance(&E), E.ctx[0].kv ? E.ctx[0].kv[0].S0 : -1, E.ctx[0].kv ? E.ctx[0].kv[0].W : -1, group,
               v_group, trials, seed, part_k, part_n, E.bf16_prefill ? "bf16" : "cache", cli_now() - t0);
        for (li = 0; li < nl; li++) printf("%s%d", li ? ", " : "", lengths[li]);
        printf("], \"depths\": [");
        for (di = 0; di < nd; di++) printf("%s%d", di ? ", " : "", depths[di]);
        printf("], \"needles\": [");
        for (li = 0; li < nl; li++) {
            printf("%s[", li ? ", " : "");
            for (di = 0; di < nd; di++) printf("%s%d", di ? ", " : "", ran[li * nd + di]);
            printf("]");
        }
        printf("], \"modes\": [");
        for (i = 0, tr = 0; i < nm; i++) {
            int tot = 0;
            if (!E.listed[i]) continue;
            printf("%s\n  {\"mode\": \"%s\", \"hits\": [", tr++ ? "," : "", kvm_names[E.modes[i]]);
            for (li = 0; li < nl; li++) {
                printf("%s[", li ? ", " : "");
                for (di = 0; di < nd; di++) {
                    int h = hits[((size_t)i * nl + li) * nd + di];
                    tot += h;
                    printf("%s%d", di ? ", " : "", h);
                }
                printf("]");
            }
            printf("], \"rate\": %.4f", n_ran ? (double)tot / n_ran : 0.0);
            if (score) {
                double sum = 0.0;
                printf(", \"digits_nll\": [");
                for (li = 0; li < nl; li++) {
                    printf("%s[", li ? ", " : "");
                    for (di = 0; di < nd; di++) {
                        double v = nll[((size_t)i * nl + li) * nd + di];
                        sum += v;
                        printf("%s%.4f", di ? ", " : "", ran[li * nd + di] ? v / ran[li * nd + di] : 0.0);
                    }
                    printf("]");
                }
                printf("], \"digits_nll_mean\": %.4f", n_ran ? sum / n_ran : 0.0);
            }
            printf("}");
        }
        printf("\n]}\n");
    } else {
        printf("needle in a haystack: %s, filler %s, prompt through the %s, %d trial%s per cell, %s (of %d per cell)\n", ev_base(model),
               ev_base(file), E.bf16_prefill ? "bf16 prefill" : "cache", trials, trials > 1 ? "s" : "",
               score ? "answers whose digits are all the argmax when fed" : "exact matches", trials);
        if (part_n > 1) printf("  part %d of %d: %d needles run\n", part_k, part_n, n_ran);
        for (i = 0; i < nm; i++) {
            int tot = 0;
            if (!E.listed[i]) continue;
            printf("  %-14s depth:", kvm_names[E.modes[i]]);
            for (di = 0; di < nd; di++) printf(" %4d%%", depths[di]);
            printf("   rate\n");
            for (li = 0; li < nl; li++) {
                int row = 0, nrow = 0;
                printf("  %14s %6d", "", lengths[li]);
                for (di = 0; di < nd; di++) {
                    int h = hits[((size_t)i * nl + li) * nd + di];
                    row += h;
                    nrow += ran[li * nd + di];
                    printf(" %5d", h);
                }
                tot += row;
                printf("  %5.1f%%\n", nrow ? 100.0 * row / nrow : 0.0);
            }
            printf("  %14s  total %5.1f%%\n", "", n_ran ? 100.0 * tot / n_ran : 0.0);
            if (score) {
                double sum = 0.0;
                for (li = 0; li < nl * nd; li++) sum += nll[(size_t)i * nl * nd + li];
                printf("  %14s  mean -log p of the needle's digits %.3f nats\n", "", n_ran ? sum / n_ran : 0.0);
            }
        }
        printf("  (%.1f s)\n", cli_now() - t0);
    }
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "oscar niah: out of memory\n");
done:
    free(hits);
    free(ran);
    free(nll);
    free(forced);
    free(G.nll);
    free(G.top);
    free(G.out);
    free(G.n_out);
    free(G.t);
    free(prompt);
    free(fill);
    ev_modes_free(&E);
    llm_free(&m);
    return rc;
}

/* >>longdoc ---- the real-model demo ---- */
static void ev_longdoc_usage(FILE *f) {
    fprintf(f,
            "usage: oscar longdoc -m MODEL -f TEXT --rot FILE [-q QUESTION] [--tokens N] [--kv MODE[,MODE...]]\n"
            "Reads the first N tokens of TEXT (cut at a line break) with a question at the end, in the model's\n"
            "chat template, and answers it once per cache mode (default bf16,oscar), one after the other\n"
            "with all threads: the answers, prompt and generation speed, and the KV memory of each.\n"
            "  -q, --question Q   the question (default: \"In which city does this scene take place?\")\n"
            "  --tokens N         passage length in tokens (default 3000)\n"
            "  -n N               answer tokens at most (default 48)\n"
            "  --prefill WHERE    cache (default): the passage attends through each cache as decode would;\n"
            "                     bf16: it attends at full precision over its bf16 K/V rows while they go\n"
            "                     into the cache (a serving engine's prefill), and the answer reads the cache\n"
            "  -t, --threads N    threads (default: all cores)\n");
}

int oscar_cli_longdoc(int argc, char **argv) {
    const char *model = NULL, *file = NULL, *list = "bf16,oscar", *rotfile = NULL;
    const char *question = "In which city does this scene take place?";
    int tokens = 3000, max_new = 48, threads = cli_threads(), i, rc = 1, *text = NULL, n_text = 0, *prompt = NULL, np = 0, pcap = 0, cut, nm;
    llm_model m;
    ev_modes E;
    ev_gen G;
    char q[1024];
    memset(&E, 0, sizeof E);
    memset(&G, 0, sizeof G);
    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) { ev_longdoc_usage(stdout); return 0; }
        else if (!(v = cli_value("longdoc", argc, argv, &i))) return 2;
        else if (!strcmp(o, "-m") || !strcmp(o, "--model")) model = v;
        else if (!strcmp(o, "-f") || !strcmp(o, "--file")) file = v;
        else if (!strcmp(o, "--kv")) list = v;
        else if (!strcmp(o, "--rot")) rotfile = v;
        else if (!strcmp(o, "--prefill")) { if (ev_parse_prefill("longdoc", v, &E)) return 2; }
        else if (!strcmp(o, "-q") || !strcmp(o, "--question")) question = v;
        else if (!strcmp(o, "--tokens")) { if (!cli_parse_int("longdoc", o, v, 16, 1 << 20, &tokens)) return 2; }
        else if (!strcmp(o, "-n")) { if (!cli_parse_int("longdoc", o, v, 1, 4096, &max_new)) return 2; }
        else if (!strcmp(o, "-t") || !strcmp(o, "--threads")) { if (!cli_parse_int("longdoc", o, v, 1, LLM_MAX_THREADS, &threads)) return 2; }
        else {
            fprintf(stderr, "oscar longdoc: unknown option '%s'\n", o);
            ev_longdoc_usage(stderr);
            return 2;
        }
    }
    if (!model || !file) {
        fprintf(stderr, "oscar longdoc: -m MODEL and -f TEXT are required\n");
        ev_longdoc_usage(stderr);
        return 2;
    }
    if (ev_load("longdoc", &m, model)) return 1;
    if (ev_tokenize_file("longdoc", &m, file, &text, &n_text)) goto done;
    if (tokens > n_text) tokens = n_text;
    cut = tokens;
    for (i = tokens; i > tokens / 2; i--) { /* end the passage at a line break */
        size_t pl;
        const uint8_t *p = tok_piece(&m.tok, text[i - 1], &pl);
        if (pl && p[pl - 1] == '\n') {
            cut = i;
            break;
        }
    }
    snprintf(q, sizeof q, "\nQuestion: %s\nAnswer in one short sentence.", question);
    if (ev_append_text(&m, &prompt, &np, &pcap, EV_SYSTEM "Here is a passage from a play.\n\n") || ev_append_ids(&prompt, &np, &pcap, text, cut) ||
        ev_append_text(&m, &prompt, &np, &pcap, q) || ev_append_text(&m, &prompt, &np, &pcap, EV_ASSISTANT))
        goto oom;
    if (np + max_new > m.n_ctx_train) {
        fprintf(stderr, "oscar longdoc: %d prompt + %d answer tokens exceed the model's context %d\n", np, max_new, m.n_ctx_train);
        goto done;
    }
    E.sink = E.window = -1;
    if (ev_modes_setup(&E, "longdoc", &m, list, rotfile)) goto done;
    nm = E.n;
    E.ctx_threads = threads;
    G.E = &E;
    G.prompt = prompt;
    G.n_prompt = np;
    G.max_new = max_new;
    G.out = (int *)malloc(sizeof(int) * (size_t)nm * max_new);
    G.n_out = (int *)calloc((size_t)nm, sizeof(int));
    G.t = (double *)calloc((size_t)nm * 2, sizeof(double));
    if (!G.out || !G.n_out || !G.t) goto oom;
    if (ev_modes_open(&E, np + max_new)) goto done;
    printf("%s reads %d tokens of %s (a %d-token prompt) and answers, once per KV cache:\n", ev_base(model), cut, ev_base(file), np);
    printf("  Q: %s\n\n", question);
    fflush(stdout);
    for (i = 0; i < nm; i++) {
        char ans[2048];
        oscar_kv_memory mem;
        if (!E.listed[i]) continue;
        fprintf(stderr, "  [%s] reading...\n", kvm_names[E.modes[i]]);
        ev_gen_task(&G, i);
        if (G.fail) goto done;
        ev_detok(&m, G.out + (size_t)i * max_new, G.n_out[i], ans, sizeof ans);
        {
            char *c;
            for (c = ans; *c; c++)
                if (*c == '\n') *c = ' ';
        }
        printf("  %-14s A: %s\n", kvm_names[E.modes[i]], ans);
        if (llm_kv_memory(&E.ctx[i], &mem) == 0)
            printf("  %-14s    prompt %.1f tok/s, answer %.1f tok/s, KV cache %.2f MiB for %lld tokens (%.2f bits/element%s)\n", "",
                   np / (G.t[2 * i] > 0 ? G.t[2 * i] : 1e-9), G.n_out[i] / (G.t[2 * i + 1] > 0 ? G.t[2 * i + 1] : 1e-9),
                   (double)mem.total_bytes / 1048576.0, (long long)mem.n_tokens, mem.bits_per_element,
                   mem.history_bf16_bytes ? "" : ", INT2 history + BF16 sink and window");
        fflush(stdout);
    }
    if (nm == 2 && E.listed[0] && G.n_out[0] == G.n_out[1] && !memcmp(G.out, G.out + max_new, sizeof(int) * (size_t)G.n_out[0]))
        printf("\n  The two caches give the same answer, token for token.\n");
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "oscar longdoc: out of memory\n");
done:
    free(G.out);
    free(G.n_out);
    free(G.t);
    free(prompt);
    free(text);
    ev_modes_free(&E);
    llm_free(&m);
    return rc;
}
