/* cmd_fit.c - `oscar fit`, `oscar info`, `oscar synth-dump`, and the threaded layer fitter. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "synth.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- threaded fitting: one layer per task ---- */
typedef struct fit_job {
    oscar_rotations *out;
    int n_layers, d, Hq, Hkv, per_head, comp, next, failed, verbose, done;
    int k_balance; /* 1: also the K balance (oscar_balance_fit) of the keys centered as the cache stores them */
    double rope_base; /* > 1: also the pre-RoPE K means (row t at position t % rope_window) */
    int rope_window;
    cli_layer_get get;
    cli_layer_release release;
    void *user;
    pthread_mutex_t lock;
    char msg[OSCAR_MSG_SIZE + 64];
} fit_job;

/* ck: [Hkv][d][d] <- (1/n) sum_t c_t^T c_t per KV head, c_t the key row less what the cache subtracts:
   RoPE(t) of the pre-RoPE mean (job->rope_base > 1, OSCAR_CENTER_ROPE: the means must be in job->out),
   else the calibration mean (OSCAR_CENTER_MEAN). Without per-head rotations ck[0] then holds the mean
   over the heads. */
static int fit_key_moment(fit_job *job, const oscar_calib *c, int layer, const float *k, int64_t n, double *ck) {
    const int d = job->d, Hkv = job->Hkv;
    const size_t dd = (size_t)d * d;
    float mu[OSCAR_MAX_HEAD_DIM], row[OSCAR_MAX_HEAD_DIM];
    double km[OSCAR_MAX_HEAD_DIM];
    int64_t t;
    int h, i, j, rc;
    for (h = 0; h < Hkv; h++) {
        double *m = ck + (size_t)h * dd;
        const float *rm = job->rope_base > 1.0 ? job->out->k_rope_mean + ((size_t)layer * Hkv + h) * d : NULL;
        if (!rm) {
            if ((rc = oscar_calib_means(c, h, km, NULL)) != OSCAR_OK) return rc;
            for (i = 0; i < d; i++) mu[i] = (float)km[i];
        }
        for (t = 0; t < n; t++) {
            const float *x = k + ((size_t)t * Hkv + h) * d;
            if (rm) oscar_rope_row(mu, rm, d, job->rope_base, t % job->rope_window, 0);
            for (i = 0; i < d; i++) row[i] = x[i] - mu[i];
            for (i = 0; i < d; i++)
                for (j = i; j < d; j++) m[(size_t)i * d + j] += (double)row[i] * row[j];
        }
        for (i = 0; i < d; i++)
            for (j = i; j < d; j++) m[(size_t)j * d + i] = m[(size_t)i * d + j] /= (double)n;
    }
    if (!job->per_head)
        for (i = 0; i < (int)dd; i++) {
            double a = 0.0;
            for (h = 0; h < Hkv; h++) a += ck[(size_t)h * dd + i];
            ck[i] = a / Hkv;
        }
    return OSCAR_OK;
}

static int fit_one(fit_job *job, int layer, double *sk, double *sv) {
    double *ck = NULL;
    float *q = NULL, *k = NULL, *v = NULL;
    int64_t n = 0;
    oscar_calib c;
    int rc, h, nh = job->per_head ? job->Hkv : 1;
    size_t dd = (size_t)job->d * job->d;
    if (job->get(layer, job->user, &q, &k, &v, &n) != 0) return -1;
    rc = oscar_calib_init(&c, job->d, job->Hq, job->Hkv);
    if (rc == OSCAR_OK) rc = oscar_calib_add_q(&c, q, n);
    if (rc == OSCAR_OK) rc = oscar_calib_add_kv(&c, k, v, n);
    if (rc == OSCAR_OK && job->rope_base > 1.0) { /* the K mean before RoPE (OSCAR_CENTER_ROPE) */
        double *acc = (double *)calloc((size_t)job->Hkv * job->d, sizeof(double));
        float row[OSCAR_MAX_HEAD_DIM];
        int64_t t;
        int i;
        if (!acc) rc = OSCAR_ERR_NOMEM;
        for (t = 0; acc && t < n; t++)
            for (h = 0; h < job->Hkv; h++) {
                oscar_rope_row(row, k + ((size_t)t * job->Hkv + h) * job->d, job->d, job->rope_base, t % job->rope_window, 1);
                for (i = 0; i < job->d; i++) acc[(size_t)h * job->d + i] += row[i];
            }
        for (i = 0; acc && i < job->Hkv * job->d; i++) job->out->k_rope_mean[(size_t)layer * job->Hkv * job->d + i] = (float)(acc[i] / (double)n);
        free(acc);
    }
    if (rc == OSCAR_OK && job->k_balance) { /* the second moment of the keys as oscar-cr (or oscar-c) stores them */
        ck = (double *)calloc((size_t)job->Hkv * dd, sizeof(double));
        if (!ck) rc = OSCAR_ERR_NOMEM;
        else rc = fit_key_moment(job, &c, layer, k, n, ck);
    }
    if (job->release) job->release(layer, job->user, q, k, v);
    for (h = 0; rc == OSCAR_OK && h < nh; h++) {
        size_t at = (size_t)layer * nh + h;
        rc = oscar_calib_targets(&c, job->per_head ? h : -1, sk, sv);
        if (rc == OSCAR_OK) rc = oscar_rotation_fit(job->out->k_rot + at * dd, job->out->k_eval + at * job->d, sk, job->d, job->comp);
        if (rc == OSCAR_OK) rc = oscar_rotation_fit(job->out->v_rot + at * dd, job->out->v_eval + at * job->d, sv, job->d, job->comp);
        if (rc != OSCAR_OK && !c.msg[0]) snprintf(c.msg, sizeof c.msg, "%s", oscar_result_string(rc));
        if (rc == OSCAR_OK && ck) { /* per head: that head's moment; shared: their mean (ck[0], see fit_key_moment) */
            rc = oscar_balance_fit(job->out->k_balance + at * job->d, job->out->k_rot + at * dd, job->out->k_eval + at * job->d,
                                   ck + (job->per_head ? (size_t)h * dd : 0), job->d, job->comp);
            if (rc != OSCAR_OK && !c.msg[0]) snprintf(c.msg, sizeof c.msg, "K balance: %s", oscar_result_string(rc));
        }
    }
    free(ck);
    for (h = 0; rc == OSCAR_OK && h < job->Hkv; h++) { /* the means of every KV head (oscar_kv_config.center) */
        double km[OSCAR_MAX_HEAD_DIM], vm[OSCAR_MAX_HEAD_DIM];
        size_t at = ((size_t)layer * job->Hkv + h) * job->d;
        int i;
        rc = oscar_calib_means(&c, h, km, vm);
        for (i = 0; rc == OSCAR_OK && i < job->d; i++) {
            job->out->k_mean[at + i] = (float)km[i];
            job->out->v_mean[at + i] = (float)vm[i];
        }
        if (rc != OSCAR_OK && !c.msg[0]) snprintf(c.msg, sizeof c.msg, "means: %s", oscar_result_string(rc));
    }
    if (rc != OSCAR_OK) {
        pthread_mutex_lock(&job->lock);
        if (!job->failed) snprintf(job->msg, sizeof job->msg, "layer %d: %s", layer, c.msg[0] ? c.msg : oscar_result_string(rc));
        pthread_mutex_unlock(&job->lock);
    }
    oscar_calib_free(&c);
    return rc == OSCAR_OK ? 0 : -1;
}

static void *fit_worker(void *arg) {
    fit_job *job = (fit_job *)arg;
    size_t dd = (size_t)job->d * job->d;
    double *sk = (double *)malloc(sizeof(double) * dd), *sv = (double *)malloc(sizeof(double) * dd);
    for (;;) {
        int layer, bad;
        pthread_mutex_lock(&job->lock);
        layer = job->failed ? job->n_layers : job->next++;
        pthread_mutex_unlock(&job->lock);
        if (layer >= job->n_layers) break;
        bad = !sk || !sv || fit_one(job, layer, sk, sv) != 0;
        pthread_mutex_lock(&job->lock);
        if (bad) {
            if (!job->msg[0]) snprintf(job->msg, sizeof job->msg, "layer %d: out of memory", layer);
            job->failed = 1;
        }
        job->done++;
        if (job->verbose) fprintf(stderr, "\r  fitted %d/%d layers", job->done, job->n_layers);
        pthread_mutex_unlock(&job->lock);
    }
    free(sk);
    free(sv);
    return NULL;
}

int cli_fit_layers(oscar_rotations *out, int n_layers, int d, int Hq, int Hkv, int per_head, int comp, cli_layer_get get,
                   cli_layer_release release, void *user, int n_threads, int verbose, double rope_base, int rope_window, int k_balance) {
    fit_job job;
    pthread_t th[64];
    int i, started = 0;
    if (oscar_rotations_alloc(out, n_layers, d, Hkv, per_head) != OSCAR_OK) {
        fprintf(stderr, "oscar: %s\n", out->msg);
        return -1;
    }
    out->composition = comp;
    if (k_balance && (comp == OSCAR_COMP_HADAMARD || comp == OSCAR_COMP_IDENTITY)) {
        fprintf(stderr, "oscar: --k-balance needs a fitted composition (r_h_pbr or plain), not %s\n", oscar_composition_name(comp));
        oscar_rotations_free(out);
        return -1;
    }
    if (comp == OSCAR_COMP_HADAMARD || comp == OSCAR_COMP_IDENTITY) return oscar_rotations_set_fixed(out, comp) == OSCAR_OK ? 0 : -1;
    if (oscar_rotations_alloc_means(out) != OSCAR_OK || (rope_base > 0.0 && oscar_rotations_alloc_rope_mean(out, rope_base) != OSCAR_OK)) {
        fprintf(stderr, "oscar: %s\n", out->msg);
        oscar_rotations_free(out);
        return -1;
    }
    if (k_balance && oscar_rotations_alloc_balance(out) != OSCAR_OK) {
        fprintf(stderr, "oscar: %s\n", out->msg);
        oscar_rotations_free(out);
        return -1;
    }
    if (rope_base > 0.0 && rope_window < 1) {
        fprintf(stderr, "oscar: the pre-RoPE K mean needs the calibration's window (positions), got %d\n", rope_window);
        oscar_rotations_free(out);
        return -1;
    }
    memset(&job, 0, sizeof job);
    job.out = out;
    job.n_layers = n_layers;
    job.d = d;
    job.Hq = Hq;
    job.Hkv = Hkv;
    job.per_head = per_head;
    job.comp = comp;
    job.get = get;
    job.release = release;
    job.user = user;
    job.verbose = verbose;
    job.rope_base = rope_base;
    job.rope_window = rope_window;
    job.k_balance = k_balance;
    pthread_mutex_init(&job.lock, NULL);
    if (n_threads < 1) n_threads = 1;
    if (n_threads > 64) n_threads = 64;
    if (n_threads > n_layers) n_threads = n_layers;
    for (i = 0; i < n_threads; i++)
        if (pthread_create(&th[i], NULL, fit_worker, &job) == 0) started++;
    if (!started) fit_worker(&job);
    for (i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (verbose) fprintf(stderr, "\n");
    pthread_mutex_destroy(&job.lock);
    if (job.failed || job.msg[0]) {
        fprintf(stderr, "oscar fit: %s\n", job.msg);
        oscar_rotations_free(out);
        return -1;
    }
    return 0;
}

/* ---- oscar fit ---- */
typedef struct dump_ctx {
    oscar_st *st;
    int Hq, Hkv, d;
    int64_t n;
    pthread_mutex_t lock; /* oscar_st_read_f32 writes st->msg on error */
} dump_ctx;

static int dump_read(dump_ctx *c, int layer, const char *which, int heads, float **out) {
    char name[64];
    const oscar_st_tensor *t;
    int rc;
    snprintf(name, sizeof name, "layers.%d.%s", layer, which);
    t = oscar_st_find(c->st, name);
    if (!t) {
        fprintf(stderr, "oscar fit: %s: tensor '%s' is missing\n", c->st->name, name);
        return -1;
    }
    if (t->ndim != 3 || t->shape[0] != c->n || t->shape[1] != heads || t->shape[2] != c->d) {
        fprintf(stderr, "oscar fit: %s: tensor '%s' must be [%lld, %d, %d]\n", c->st->name, name, (long long)c->n, heads, c->d);
        return -1;
    }
    *out = (float *)malloc(sizeof(float) * (size_t)oscar_st_numel(t) + 1);
    if (!*out) {
        fprintf(stderr, "oscar fit: out of memory for '%s'\n", name);
        return -1;
    }
    pthread_mutex_lock(&c->lock);
    rc = oscar_st_read_f32(c->st, t, *out, 1);
    if (rc != OSCAR_OK) fprintf(stderr, "oscar fit: %s\n", c->st->msg);
    pthread_mutex_unlock(&c->lock);
    if (rc != OSCAR_OK) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

static int dump_get(int layer, void *user, float **q, float **k, float **v, int64_t *n) {
    dump_ctx *c = (dump_ctx *)user;
    *q = *k = *v = NULL;
    if (dump_read(c, layer, "q", c->Hq, q) || dump_read(c, layer, "k", c->Hkv, k) || dump_read(c, layer, "v", c->Hkv, v)) {
        free(*q);
        free(*k);
        free(*v);
        return -1;
    }
    *n = c->n;
    return 0;
}

static void dump_release(int layer, void *user, float *q, float *k, float *v) {
    (void)layer;
    (void)user;
    free(q);
    free(k);
    free(v);
}

static void fit_usage(FILE *f) {
    fprintf(f,
            "usage: oscar fit --qkv DUMP.safetensors -o ROT.safetensors [options]\n"
            "Fits K and V rotations for every layer of a calibration dump (tensors layers.{i}.q [n,Hq,d],\n"
            "layers.{i}.k and layers.{i}.v [n,Hkv,d]; F32, F16 or BF16; keys and queries after RoPE).\n"
            "  --composition C   r_h_pbr (default), hadamard, identity, plain\n"
            "  --per-head        one rotation per KV head instead of one per layer\n"
            "  --k-clip X        clip ratio stored for keys (default 0.96; <= 0 disables)\n"
            "  --v-clip X        clip ratio stored for values (default 0.92)\n"
            "  --k-gain, --v-gain  store that caches built from the file use the gain encoder on K (V) rows\n"
            "  --k-balance       also fit the K balance (layers.{i}.k.balance, oscar_balance_fit) for keys\n"
            "                    centered as --kv oscar-cr stores them (oscar-c's calibration mean without a\n"
            "                    RoPE base); the oscar modes use it when the file has it\n"
            "  --group N         INT2 group size stored in the file (default min(128, d))\n"
            "  --model NAME      free-form model name for the metadata\n"
            "  --calibration T   free-form description of the calibration data\n"
            "  --rope-base B     the model's RoPE base: the file also gets the K means before RoPE (for\n"
            "                    --kv oscar-cr); default: the dump's rope_base metadata (oscar dump writes it)\n"
            "  --rope-window N   row t of the dump is at RoPE position t %% N (default: the dump's window\n"
            "                    metadata, else the whole dump is one window)\n"
            "  -t, --threads N   worker threads (default: all cores)\n");
}

int oscar_cli_fit(int argc, char **argv) {
    const char *in = NULL, *outp = NULL, *model = "", *calib = NULL;
    int comp = OSCAR_COMP_R_H_PBR, per_head = 0, group = 0, k_gain = 0, v_gain = 0, k_balance = 0, threads = cli_threads(), i, L = 0, rc, rope_window = 0;
    float kc = 0.96f, vc = 0.92f, rope_base = 0.0f;
    oscar_st st;
    oscar_rotations rot;
    dump_ctx ctx;
    const oscar_st_tensor *t;
    double t0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fit_usage(stdout); return 0; }
        else if (!strcmp(a, "--per-head")) per_head = 1;
        else if (!strcmp(a, "--k-gain")) k_gain = 1;
        else if (!strcmp(a, "--v-gain")) v_gain = 1;
        else if (!strcmp(a, "--k-balance")) k_balance = 1;
        else if (!strcmp(a, "--qkv")) { if (!(in = cli_value("fit", argc, argv, &i))) return 2; }
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) { if (!(outp = cli_value("fit", argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--model")) { if (!(model = cli_value("fit", argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--calibration")) { if (!(calib = cli_value("fit", argc, argv, &i))) return 2; }
        else if (!strcmp(a, "--composition")) {
            if (!(v = cli_value("fit", argc, argv, &i))) return 2;
            if ((comp = oscar_composition_parse(v)) < 0) {
                fprintf(stderr, "oscar fit: unknown composition '%s' (r_h_pbr, hadamard, identity, plain)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--k-clip")) { if (!(v = cli_value("fit", argc, argv, &i)) || !cli_parse_float("fit", a, v, -1.0, 1.0, &kc)) return 2; }
        else if (!strcmp(a, "--v-clip")) { if (!(v = cli_value("fit", argc, argv, &i)) || !cli_parse_float("fit", a, v, -1.0, 1.0, &vc)) return 2; }
        else if (!strcmp(a, "--group")) { if (!(v = cli_value("fit", argc, argv, &i)) || !cli_parse_int("fit", a, v, 1, OSCAR_MAX_HEAD_DIM, &group)) return 2; }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { if (!(v = cli_value("fit", argc, argv, &i)) || !cli_parse_int("fit", a, v, 1, 64, &threads)) return 2; }
        else if (!strcmp(a, "--rope-base")) { if (!(v = cli_value("fit", argc, argv, &i)) || !cli_parse_float("fit", a, v, 1.0001, 1e12, &rope_base)) return 2; }
        else if (!strcmp(a, "--rope-window")) { if (!(v = cli_value("fit", argc, argv, &i)) || !cli_parse_int("fit", a, v, 1, 1 << 30, &rope_window)) return 2; }
        else {
            fprintf(stderr, "oscar fit: unknown option '%s'\n", a);
            fit_usage(stderr);
            return 2;
        }
    }
    if (!in || !outp) {
        fprintf(stderr, "oscar fit: --qkv and -o are required\n");
        fit_usage(stderr);
        return 2;
    }
    if (oscar_st_open(&st, in) != OSCAR_OK) {
        fprintf(stderr, "oscar fit: %s\n", st.msg);
        return 1;
    }
    memset(&ctx, 0, sizeof ctx);
    ctx.st = &st;
    t = oscar_st_find(&st, "layers.0.q");
    if (!t || t->ndim != 3 || !oscar_st_find(&st, "layers.0.k")) {
        fprintf(stderr, "oscar fit: %s: not a calibration dump (needs layers.0.q [n,Hq,d], layers.0.k, layers.0.v)\n", in);
        oscar_st_close(&st);
        return 1;
    }
    ctx.n = t->shape[0];
    ctx.Hq = (int)t->shape[1];
    ctx.d = (int)t->shape[2];
    t = oscar_st_find(&st, "layers.0.k");
    ctx.Hkv = t->ndim == 3 ? (int)t->shape[1] : 0;
    if (ctx.n < 1 || ctx.Hkv < 1 || ctx.Hq % ctx.Hkv || !oscar_is_pow2(ctx.d)) {
        fprintf(stderr, "oscar fit: %s: bad shapes (n %lld, Hq %d, Hkv %d, d %d): need n >= 1, Hq a multiple of Hkv, d a power of two\n", in, (long long)ctx.n, ctx.Hq, ctx.Hkv, ctx.d);
        oscar_st_close(&st);
        return 1;
    }
    if (group && (!oscar_is_pow2(group) || group > ctx.d)) {
        fprintf(stderr, "oscar fit: --group %d must be a power of two dividing the head dim %d\n", group, ctx.d);
        oscar_st_close(&st);
        return 2;
    }
    for (;;) {
        char name[64];
        snprintf(name, sizeof name, "layers.%d.q", L);
        if (!oscar_st_find(&st, name)) break;
        L++;
    }
    if (rope_base == 0.0f && oscar_st_meta(&st, "rope_base") && !cli_parse_float("fit", "rope_base (dump metadata)", oscar_st_meta(&st, "rope_base"), 1.0001, 1e12, &rope_base)) {
        oscar_st_close(&st);
        return 1;
    }
    if (rope_window == 0 && oscar_st_meta(&st, "window") && !cli_parse_int("fit", "window (dump metadata)", oscar_st_meta(&st, "window"), 1, 1 << 30, &rope_window)) {
        oscar_st_close(&st);
        return 1;
    }
    if (rope_window == 0) rope_window = ctx.n > (1 << 30) ? 1 << 30 : (int)ctx.n;
    pthread_mutex_init(&ctx.lock, NULL);
    fprintf(stderr, "oscar fit: %s: %d layers, %lld tokens, %d query / %d KV heads, d %d, %s%s\n", in, L, (long long)ctx.n, ctx.Hq, ctx.Hkv, ctx.d,
            oscar_composition_name(comp), per_head ? ", per head" : "");
    t0 = cli_now();
    rc = cli_fit_layers(&rot, L, ctx.d, ctx.Hq, ctx.Hkv, per_head, comp, dump_get, dump_release, &ctx, threads, 1, rope_base, rope_window, k_balance);
    pthread_mutex_destroy(&ctx.lock);
    if (rc != 0) {
        oscar_st_close(&st);
        return 1;
    }
    rot.k_clip = kc;
    rot.v_clip = vc;
    rot.k_gain = k_gain;
    rot.v_gain = v_gain;
    rot.group_size = group ? group : (ctx.d < 128 ? ctx.d : 128);
    snprintf(rot.model, sizeof rot.model, "%s", model);
    if (calib) snprintf(rot.calibration, sizeof rot.calibration, "%s", calib);
    else if (oscar_st_meta(&st, "calibration")) snprintf(rot.calibration, sizeof rot.calibration, "%s", oscar_st_meta(&st, "calibration"));
    else snprintf(rot.calibration, sizeof rot.calibration, "%s, %lld tokens", in, (long long)ctx.n);
    if (!model[0] && oscar_st_meta(&st, "model")) snprintf(rot.model, sizeof rot.model, "%s", oscar_st_meta(&st, "model"));
    oscar_st_close(&st);
    rc = oscar_rotations_save(&rot, outp);
    if (rc != OSCAR_OK) fprintf(stderr, "oscar fit: %s\n", rot.msg);
    else fprintf(stderr, "oscar fit: wrote %s in %.2f s\n", outp, cli_now() - t0);
    oscar_rotations_free(&rot);
    return rc == OSCAR_OK ? 0 : 1;
}

/* ---- oscar info ---- */
int oscar_cli_info(int argc, char **argv) {
    oscar_rotations r;
    int i, nh, l;
    double orth = 0.0, kmin = INFINITY, kmax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
    if (argc != 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fprintf(argc == 2 ? stdout : stderr, "usage: oscar info ROT.safetensors\nPrints the layers, head dim, composition, clips, the largest\n"
                                             "orthogonality error max|R^T R - I| and the eigenvalue range of a rotation file.\n");
        return argc == 2 ? 0 : 2;
    }
    if (oscar_rotations_load(&r, argv[1]) != OSCAR_OK) {
        fprintf(stderr, "oscar info: %s\n", r.msg);
        return 1;
    }
    nh = r.per_head ? r.n_kv_heads : 1;
    for (l = 0; l < r.n_layers * nh; l++) {
        size_t dd = (size_t)r.head_dim * r.head_dim;
        orth = fmax(orth, oscar_rotation_orth_error(r.k_rot + l * dd, r.head_dim));
        orth = fmax(orth, oscar_rotation_orth_error(r.v_rot + l * dd, r.head_dim));
        for (i = 0; i < r.head_dim; i++) {
            kmin = fmin(kmin, r.k_eval[(size_t)l * r.head_dim + i]);
            kmax = fmax(kmax, r.k_eval[(size_t)l * r.head_dim + i]);
            vmin = fmin(vmin, r.v_eval[(size_t)l * r.head_dim + i]);
            vmax = fmax(vmax, r.v_eval[(size_t)l * r.head_dim + i]);
        }
    }
    printf("file          %s\n", argv[1]);
    printf("layers        %d\n", r.n_layers);
    printf("head dim      %d\n", r.head_dim);
    printf("kv heads      %d (%s)\n", r.n_kv_heads, r.per_head ? "one rotation per KV head" : "one rotation per layer");
    printf("composition   %s\n", oscar_composition_name(r.composition));
    printf("clips         K %.4g, V %.4g\n", r.k_clip, r.v_clip);
    if (r.k_balance) {
        float lo = 1.0f;
        size_t j, nb = (size_t)r.n_layers * (r.per_head ? r.n_kv_heads : 1) * r.head_dim;
        for (j = 0; j < nb; j++) lo = r.k_balance[j] < lo ? r.k_balance[j] : lo;
        printf("K balance     layers.{i}.k.balance, smallest s %.4f (oscar_balance_fit)\n", lo);
    }
    if (r.k_gain || r.v_gain) printf("gain encoder  %s%s%s (OSCAR_INT2_GAIN)\n", r.k_gain ? "K" : "", r.k_gain && r.v_gain ? " and " : "", r.v_gain ? "V" : "");
    printf("group size    %d (%.3g bits per element in the INT2 region)\n", r.group_size, 2.0 + 32.0 / r.group_size);
    printf("model         %s\n", r.model[0] ? r.model : "-");
    printf("calibration   %s\n", r.calibration[0] ? r.calibration : "-");
    printf("means         %s\n", r.k_mean && r.v_mean ? "K and V per KV head (for centered caches: --kv oscar-c)" : "none");
    if (r.k_rope_mean) printf("pre-RoPE K    per KV head, RoPE base %.9g (--kv oscar-cr)\n", r.rope_base);
    printf("orthogonality max |R^T R - I| = %.3g\n", orth);
    printf("eigenvalues   K [%.4g, %.4g], V [%.4g, %.4g]\n", kmin, kmax, vmin, vmax);
    oscar_rotations_free(&r);
    return 0;
}

/* ---- oscar synth-dump ---- */
int oscar_cli_synth_dump(int argc, char **argv) {
    const char *outp = NULL, *dt = "f32";
    int L = 2, n = 512, Hq = 8, Hkv = 2, d = 64, seed = 1, i, l, dtype = OSCAR_F32, rc;
    oscar_st_entry *e;
    void **bufs;
    char (*names)[32];
    const char *meta[4] = {"model", "synthetic attention-like data (cli/synth.h)", "calibration", ""};
    char calib[96];
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: oscar synth-dump -o DUMP.safetensors [--layers L] [--tokens N] [--heads Hq] [--kv-heads Hkv]\n"
                   "                        [--dim d] [--dtype f32|f16|bf16] [--seed S]\n"
                   "Writes attention-like synthetic activations (outlier channels, anisotropic queries) as a\n"
                   "calibration dump that `oscar fit` reads.\n");
            return 0;
        }
        if (i + 1 >= argc || a[0] != '-') { fprintf(stderr, "oscar synth-dump: bad argument '%s'\n", a); return 2; }
        v = argv[++i];
        if (!strcmp(a, "-o")) outp = v;
        else if (!strcmp(a, "--layers")) { if (!cli_parse_int("synth-dump", a, v, 1, 256, &L)) return 2; }
        else if (!strcmp(a, "--tokens")) { if (!cli_parse_int("synth-dump", a, v, 1, 1 << 20, &n)) return 2; }
        else if (!strcmp(a, "--heads")) { if (!cli_parse_int("synth-dump", a, v, 1, 256, &Hq)) return 2; }
        else if (!strcmp(a, "--kv-heads")) { if (!cli_parse_int("synth-dump", a, v, 1, 256, &Hkv)) return 2; }
        else if (!strcmp(a, "--dim")) { if (!cli_parse_int("synth-dump", a, v, 4, 512, &d)) return 2; }
        else if (!strcmp(a, "--seed")) { if (!cli_parse_int("synth-dump", a, v, 0, 1 << 30, &seed)) return 2; }
        else if (!strcmp(a, "--dtype")) dt = v;
        else { fprintf(stderr, "oscar synth-dump: unknown option '%s'\n", a); return 2; }
    }
    if (!outp) { fprintf(stderr, "oscar synth-dump: -o is required\n"); return 2; }
    if (!oscar_is_pow2(d) || Hq % Hkv) { fprintf(stderr, "oscar synth-dump: d must be a power of two and Hq a multiple of Hkv\n"); return 2; }
    if (!strcmp(dt, "f32")) dtype = OSCAR_F32;
    else if (!strcmp(dt, "f16")) dtype = OSCAR_F16;
    else if (!strcmp(dt, "bf16")) dtype = OSCAR_BF16;
    else { fprintf(stderr, "oscar synth-dump: --dtype must be f32, f16 or bf16\n"); return 2; }
    e = (oscar_st_entry *)calloc((size_t)3 * L, sizeof *e);
    bufs = (void **)calloc((size_t)3 * L, sizeof *bufs);
    names = (char (*)[32])calloc((size_t)3 * L, 32);
    for (l = 0; l < L; l++) {
        synth_model m;
        synth_rng r;
        float *q = (float *)malloc(sizeof(float) * n * Hq * d), *k = (float *)malloc(sizeof(float) * n * Hkv * d), *v = (float *)malloc(sizeof(float) * n * Hkv * d);
        float *src[3];
        int w;
        r.s = (uint64_t)seed * 1000003u + (uint64_t)l;
        r.have = 0;
        synth_init(&m, d, Hq, Hkv, (uint64_t)seed * 7919u + (uint64_t)l);
        synth_tokens(&m, &r, n, q, k, v);
        synth_free(&m);
        src[0] = q; src[1] = k; src[2] = v;
        for (w = 0; w < 3; w++) {
            oscar_st_entry *x = &e[3 * l + w];
            size_t cnt = (size_t)n * (w ? Hkv : Hq) * d, j;
            snprintf(names[3 * l + w], 32, "layers.%d.%c", l, "qkv"[w]);
            x->name = names[3 * l + w];
            x->dtype = dtype;
            x->ndim = 3;
            x->shape[0] = n;
            x->shape[1] = w ? Hkv : Hq;
            x->shape[2] = d;
            if (dtype == OSCAR_F32) bufs[3 * l + w] = src[w];
            else {
                uint16_t *h = (uint16_t *)malloc(sizeof(uint16_t) * cnt);
                for (j = 0; j < cnt; j++) h[j] = dtype == OSCAR_F16 ? oscar_f32_to_f16(src[w][j]) : oscar_f32_to_bf16(src[w][j]);
                bufs[3 * l + w] = h;
                free(src[w]);
            }
            x->data = bufs[3 * l + w];
        }
    }
    snprintf(calib, sizeof calib, "synthetic, %d tokens, seed %d", n, seed);
    meta[3] = calib;
    rc = oscar_st_write(outp, e, 3 * L, meta, 2, NULL);
    for (i = 0; i < 3 * L; i++) free(bufs[i]);
    free(bufs);
    free(e);
    free(names);
    if (rc != OSCAR_OK) { fprintf(stderr, "oscar synth-dump: cannot write %s: %s\n", outp, oscar_result_string(rc)); return 1; }
    fprintf(stderr, "oscar synth-dump: wrote %s (%d layers, %d tokens, Hq %d, Hkv %d, d %d, %s)\n", outp, L, n, Hq, Hkv, d, dt);
    return 0;
}
