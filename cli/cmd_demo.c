/* cmd_demo.c - `oscar demo` (synthetic long-context decode, four cache modes) and `oscar bench`
   (CPU: eigensolver, rotation fitting, decode attention). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const mode_names[5] = {"bf16", "int2-naive", "int2-hadamard", "oscar", "kivi2"};

/* the cache configuration of a SPEC section 8 mode */
static void mode_config(oscar_kv_config *cfg, int mode, const oscar_rotations *fitted, const oscar_rotations *hadamard) {
    cfg->mode = mode == 4 ? OSCAR_KV_KIVI2 : (mode ? OSCAR_KV_INT2 : OSCAR_KV_BF16);
    cfg->rot = mode == 2 ? hadamard : (mode == 3 ? fitted : NULL);
    if (mode == 1) cfg->k_clip = cfg->v_clip = -1.0f; /* naive: no rotation, no clip */
    if (mode == 4) cfg->page_size = 128;              /* KIVI keys: 2 + 32/128 = 2.25 bits, as V */
}

/* a one-layer cache of `ctx` tokens in a mode, with one sequence; prints the error */
/* center: the cache's oscar_kv_config.center (the fitted rotations must carry the means it needs);
   ext: 1 the gain file's encoder, 2 also the K balance (the fitted rotations must carry one) */
static int mode_cache(oscar_kv *kv, int *seq, int mode, int center, int ext, int Hkv, int d, int ctx, const oscar_rotations *fitted, const oscar_rotations *hadamard) {
    oscar_kv_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1;
    cfg.n_kv_heads = Hkv;
    cfg.head_dim = d;
    cfg.max_pages = ctx / 64 + 2;
    cfg.max_seqs = 1;
    mode_config(&cfg, mode, fitted, hadamard);
    cfg.center = center;
    if (ext) { /* the gain file's encoder: clips 0.88 / 0.88, OSCAR_INT2_GAIN on K */
        cfg.k_clip = cfg.v_clip = 0.88f;
        cfg.k_gain = 1;
        cfg.k_balance = ext >= 2;
    }
    if (oscar_kv_init(kv, &cfg) != OSCAR_OK || oscar_kv_seq_create(kv, seq) != OSCAR_OK) {
        fprintf(stderr, "oscar: %s\n", kv->msg);
        oscar_kv_free(kv);
        return -1;
    }
    return 0;
}

static int fit_one_layer(oscar_rotations *rot, const float *q, const float *k, const float *v, int64_t n, int d, int Hq, int Hkv) {
    oscar_calib c;
    double *sk = (double *)malloc(sizeof(double) * d * d), *sv = (double *)malloc(sizeof(double) * d * d);
    int rc = sk && sv ? oscar_calib_init(&c, d, Hq, Hkv) : OSCAR_ERR_NOMEM;
    if (rc == OSCAR_OK) rc = oscar_calib_add_q(&c, q, n);
    if (rc == OSCAR_OK) rc = oscar_calib_add_kv(&c, k, v, n);
    if (rc == OSCAR_OK) rc = oscar_calib_targets(&c, -1, sk, sv);
    if (rc == OSCAR_OK) rc = oscar_rotation_fit(rot->k_rot, rot->k_eval, sk, d, OSCAR_COMP_R_H_PBR);
    if (rc == OSCAR_OK) rc = oscar_rotation_fit(rot->v_rot, rot->v_eval, sv, d, OSCAR_COMP_R_H_PBR);
    if (rc != OSCAR_OK) fprintf(stderr, "oscar: fitting failed: %s\n", c.msg[0] ? c.msg : oscar_result_string(rc));
    rot->composition = OSCAR_COMP_R_H_PBR;
    oscar_calib_free(&c);
    free(sk);
    free(sv);
    return rc;
}

int oscar_cli_demo(int argc, char **argv) {
    int ctx = 32768, d = 128, Hq = 8, Hkv = 2, ncal = 2048, nq = 8, seed = 1, i, mode, rc = 0;
    synth_model m;
    synth_rng r;
    float *q, *k, *v, *ref, *out;
    oscar_rotations fit, had;
    double t0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: oscar demo [--tokens N] [--dim d] [--heads Hq] [--kv-heads Hkv] [--queries Q] [--seed S]\n"
                   "Synthetic long-context decode: attention-like keys/values with outlier channels and\n"
                   "anisotropic queries. Calibrates OSCAR rotations on %d fresh tokens, fills a %d-token cache in\n"
                   "each mode of SPEC section 8 (and the KIVI-2 baseline) and prints the attention-output error against bf16, the bytes\n"
                   "per token and the decode time. (The real-model demo runs with a GGUF model.)\n", ncal, ctx);
            return 0;
        }
        if (!(val = cli_value("demo", argc, argv, &i))) return 2;
        if (!strcmp(a, "--tokens")) { if (!cli_parse_int("demo", a, val, 1, 1 << 22, &ctx)) return 2; }
        else if (!strcmp(a, "--dim")) { if (!cli_parse_int("demo", a, val, 4, 512, &d)) return 2; }
        else if (!strcmp(a, "--heads")) { if (!cli_parse_int("demo", a, val, 1, 256, &Hq)) return 2; }
        else if (!strcmp(a, "--kv-heads")) { if (!cli_parse_int("demo", a, val, 1, 256, &Hkv)) return 2; }
        else if (!strcmp(a, "--queries")) { if (!cli_parse_int("demo", a, val, 1, 1024, &nq)) return 2; }
        else if (!strcmp(a, "--seed")) { if (!cli_parse_int("demo", a, val, 0, 1 << 30, &seed)) return 2; }
        else { fprintf(stderr, "oscar demo: unknown option '%s'\n", a); return 2; }
    }
    if (!oscar_is_pow2(d) || Hq % Hkv) {
        fprintf(stderr, "oscar demo: --dim must be a power of two and --heads a multiple of --kv-heads\n");
        return 2;
    }
    printf("oscar demo: synthetic attention-like data, d %d, %d query / %d KV heads, context %d tokens\n", d, Hq, Hkv, ctx);
    synth_init(&m, d, Hq, Hkv, (uint64_t)seed);
    r.s = (uint64_t)seed * 7777u + 1;
    r.have = 0;
    q = (float *)malloc(sizeof(float) * (size_t)ncal * Hq * d);
    k = (float *)malloc(sizeof(float) * (size_t)(ctx > ncal ? ctx : ncal) * Hkv * d);
    v = (float *)malloc(sizeof(float) * (size_t)(ctx > ncal ? ctx : ncal) * Hkv * d);
    ref = (float *)malloc(sizeof(float) * (size_t)nq * Hq * d);
    out = (float *)malloc(sizeof(float) * (size_t)nq * Hq * d);
    if (!q || !k || !v || !ref || !out) { fprintf(stderr, "oscar demo: out of memory\n"); return 1; }
    t0 = cli_now();
    synth_tokens(&m, &r, ncal, q, k, v);
    oscar_rotations_alloc(&fit, 1, d, Hkv, 0);
    oscar_rotations_alloc(&had, 1, d, Hkv, 0);
    oscar_rotations_set_fixed(&had, OSCAR_COMP_HADAMARD);
    if (fit_one_layer(&fit, q, k, v, ncal, d, Hq, Hkv) != OSCAR_OK) return 1;
    printf("  calibrated on %d tokens, fitted r_h_pbr rotations in %.2f s\n", ncal, cli_now() - t0);
    t0 = cli_now();
    synth_tokens(&m, &r, ctx, NULL, k, v); /* the document: fresh draws, not the calibration data */
    synth_tokens(&m, &r, nq, q, NULL, NULL);
    printf("  generated %d context tokens and %d decode queries in %.2f s\n\n", ctx, nq, cli_now() - t0);
    printf("  %-14s %12s %12s %10s %10s %12s\n", "mode", "attn error", "bytes/token", "bits/elem", "fill s", "decode ms");
    for (mode = 0; mode < 5; mode++) {
        oscar_kv kv;
        oscar_kv_memory mem;
        int seq = 0;
        double fill, dec, num = 0.0, den = 0.0;
        if (mode_cache(&kv, &seq, mode, 0, 0, Hkv, d, ctx, &fit, &had) != 0) {
            rc = 1;
            break;
        }
        t0 = cli_now();
        if (oscar_kv_append(&kv, seq, 0, k, v, ctx) != OSCAR_OK) {
            fprintf(stderr, "oscar demo: %s\n", kv.msg);
            oscar_kv_free(&kv);
            rc = 1;
            break;
        }
        fill = cli_now() - t0;
        t0 = cli_now();
        for (i = 0; i < nq; i++) oscar_kv_attend(&kv, seq, 0, (mode ? out : ref) + (size_t)i * Hq * d, q + (size_t)i * Hq * d, Hq, 0.0f);
        dec = (cli_now() - t0) / nq;
        for (i = 0; mode && i < nq * Hq * d; i++) {
            num += (double)(out[i] - ref[i]) * (out[i] - ref[i]);
            den += (double)ref[i] * ref[i];
        }
        oscar_kv_memory_usage(&kv, seq, &mem);
        printf("  %-14s %12.5f %12.1f %10.3f %10.2f %12.2f\n", mode_names[mode], mode ? sqrt(num / den) : 0.0, mem.bytes_per_token, mem.bits_per_element, fill, dec * 1e3);
        oscar_kv_free(&kv);
    }
    printf("\n  attn error: relative L2 error of the attention outputs of %d decode queries against bf16.\n"
           "  bytes/token: K and V of all KV heads, sink (64) and window (256..319 tokens) in BF16 included.\n", nq);
    oscar_rotations_free(&fit);
    oscar_rotations_free(&had);
    synth_free(&m);
    free(q); free(k); free(v); free(ref); free(out);
    return rc;
}

/* ---- oscar bench ---- */
typedef struct bench_layer_data {
    float *q, *k, *v;
    int64_t n;
} bench_layer_data;

static int bench_get(int layer, void *user, float **q, float **k, float **v, int64_t *n) {
    bench_layer_data *b = (bench_layer_data *)user;
    (void)layer;
    *q = b->q;
    *k = b->k;
    *v = b->v;
    *n = b->n;
    return 0;
}

/* random rows with per-channel scales and a few outlier channels (cheap to make) */
static void bench_fill(float *x, size_t rows, int d, synth_rng *r) {
    size_t t;
    int i;
    for (t = 0; t < rows; t++)
        for (i = 0; i < d; i++) x[t * d + i] = (float)(synth_normal(r) * (0.5 + 2.0 * exp(-i / 16.0)) + (i % 37 == 5 ? 8.0 : 0.0));
}

int oscar_cli_bench(int argc, char **argv) {
    int i, L = 36, Hq = 32, Hkv = 8, d = 128, ncal = 8192, threads = cli_threads(), reps, c, mode;
    int ctxs[2] = {8192, 32768};
    synth_rng r = {12345, 0, 0.0};
    double t0, dt;
    clock_t c0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gpu")) {
#ifdef OSCAR_CLI_GPU
            return oscar_cli_bench_gpu(argc - i, argv + i);
#else
            fprintf(stderr, "oscar bench: this build has no GPU support (build with the GPU fragment, mk/cuda.mk)\n");
            return 1;
#endif
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: oscar bench [-t THREADS]       CPU: Jacobi d=128, fitting a 36-layer Hq 32 / Hkv 8 / d 128 model\n"
                   "                                      from 8K tokens, decode attention at 8K and 32K (bf16, oscar, oscar-cr,\n"
                   "                                      oscar-cr with the gain encoder, and with the K balance too;\n"
                   "                                      fill: appending the context)\n"
                   "       oscar bench --gpu [options]    GPU decode attention and copy bandwidth (see --gpu --help)\n");
            return 0;
        }
        if (!strcmp(argv[i], "-t") || !strcmp(argv[i], "--threads")) {
            const char *val = cli_value("bench", argc, argv, &i);
            if (!val || !cli_parse_int("bench", "-t", val, 1, 64, &threads)) return 2;
            continue;
        }
        fprintf(stderr, "oscar bench: unknown option '%s'\n", argv[i]);
        return 2;
    }
    printf("oscar bench (CPU, %d threads for fitting)\n\n", threads);
    {   /* Jacobi */
        double *S = (double *)malloc(sizeof(double) * d * d), *U = (double *)malloc(sizeof(double) * d * d), *ev = (double *)malloc(sizeof(double) * d);
        float *A = (float *)malloc(sizeof(float) * 4 * d * d);
        int a, b, t;
        bench_fill(A, (size_t)4 * d, d, &r);
        for (a = 0; a < d; a++)
            for (b = 0; b < d; b++) {
                double s = 0.0;
                for (t = 0; t < 4 * d; t++) s += (double)A[t * d + a] * A[t * d + b];
                S[a * d + b] = s;
            }
        reps = 5;
        t0 = cli_now();
        for (i = 0; i < reps; i++) oscar_jacobi_eig(U, ev, S, d, NULL);
        dt = (cli_now() - t0) / reps;
        printf("  %-52s %10.2f ms (wall)\n", "Jacobi eigendecomposition, d 128 (covariance)", dt * 1e3);
        free(S); free(U); free(ev); free(A);
    }
    {   /* fitting */
        bench_layer_data bd;
        oscar_rotations rot;
        bd.n = ncal;
        bd.q = (float *)malloc(sizeof(float) * (size_t)ncal * Hq * d);
        bd.k = (float *)malloc(sizeof(float) * (size_t)ncal * Hkv * d);
        bd.v = (float *)malloc(sizeof(float) * (size_t)ncal * Hkv * d);
        if (!bd.q || !bd.k || !bd.v) { fprintf(stderr, "oscar bench: out of memory\n"); return 1; }
        bench_fill(bd.q, (size_t)ncal * Hq, d, &r);
        bench_fill(bd.k, (size_t)ncal * Hkv, d, &r);
        bench_fill(bd.v, (size_t)ncal * Hkv, d, &r);
        t0 = cli_now();
        c0 = clock();
        if (cli_fit_layers(&rot, L, d, Hq, Hkv, 0, OSCAR_COMP_R_H_PBR, bench_get, NULL, &bd, threads, 0, 0.0, 0, 0) != 0) return 1;
        dt = cli_now() - t0;
        printf("  %-52s %10.2f s (wall), %.2f s CPU\n", "fit 36 layers, Hq 32, Hkv 8, d 128, 8192 tokens", dt, (double)(clock() - c0) / CLOCKS_PER_SEC);
        oscar_rotations_free(&rot);
        /* one fitted layer for the decode benchmark */
        oscar_rotations_alloc(&rot, 1, d, Hkv, 0);
        fit_one_layer(&rot, bd.q, bd.k, bd.v, 2048, d, Hq, Hkv);
        /* means for the centered row (oscar-cr: K before RoPE, base 10000); their values do not change the cost */
        if (oscar_rotations_alloc_means(&rot) != OSCAR_OK || oscar_rotations_alloc_rope_mean(&rot, 10000.0) != OSCAR_OK) {
            fprintf(stderr, "oscar bench: %s\n", rot.msg);
            return 1;
        }
        bench_fill(rot.k_mean, (size_t)Hkv, d, &r);
        bench_fill(rot.v_mean, (size_t)Hkv, d, &r);
        bench_fill(rot.k_rope_mean, (size_t)Hkv, d, &r);
        if (oscar_rotations_alloc_balance(&rot) != OSCAR_OK) { /* a K balance in [1/4, 1]: its values do not change the cost either */
            fprintf(stderr, "oscar bench: %s\n", rot.msg);
            return 1;
        }
        for (i = 0; i < d; i++) rot.k_balance[i] = (float)(0.25 + 0.75 * (double)((i * 37) % d) / (d - 1));
        free(bd.q);
        free(bd.k);
        free(bd.v);
        printf("\n  decode attention, one layer (Hq 32, Hkv 8, d 128), one thread; per token = x36 layers\n");
        printf("  %-8s %-8s %14s %14s %16s %12s\n", "context", "mode", "ms/call wall", "ms/call CPU", "ms/token wall", "fill s");
        for (c = 0; c < 2; c++) {
            int ctx = ctxs[c];
            float *k = (float *)malloc(sizeof(float) * (size_t)ctx * Hkv * d), *v = (float *)malloc(sizeof(float) * (size_t)ctx * Hkv * d);
            float *q = (float *)malloc(sizeof(float) * Hq * d), *o = (float *)malloc(sizeof(float) * Hq * d);
            bench_fill(k, (size_t)ctx * Hkv, d, &r);
            bench_fill(v, (size_t)ctx * Hkv, d, &r);
            bench_fill(q, (size_t)Hq, d, &r);
            for (mode = 0; mode < 7; mode += mode ? 1 : 3) { /* bf16, oscar, oscar-cr (4: oscar with OSCAR_CENTER_ROPE), 5: oscar-cr with the gain encoder, 6: and the K balance */
                oscar_kv kv;
                int seq = 0;
                double fill;
                if (mode_cache(&kv, &seq, mode >= 4 ? 3 : mode, mode >= 4 ? OSCAR_CENTER_ROPE : 0, mode >= 5 ? mode - 4 : 0, Hkv, d, ctx, &rot, NULL) != 0) return 1;
                t0 = cli_now();
                if (oscar_kv_append(&kv, seq, 0, k, v, ctx) != OSCAR_OK) { fprintf(stderr, "oscar bench: %s\n", kv.msg); return 1; }
                fill = cli_now() - t0;
                reps = ctx > 10000 ? 3 : 8;
                oscar_kv_attend(&kv, seq, 0, o, q, Hq, 0.0f); /* warm */
                t0 = cli_now();
                c0 = clock();
                for (i = 0; i < reps; i++) oscar_kv_attend(&kv, seq, 0, o, q, Hq, 0.0f);
                dt = (cli_now() - t0) / reps;
                printf("  %-8d %-8s %14.2f %14.2f %16.1f %12.2f\n", ctx, mode == 6 ? "cr+g+bal" : mode == 5 ? "cr+gain" : mode == 4 ? "oscar-cr" : mode_names[mode], dt * 1e3, (double)(clock() - c0) / CLOCKS_PER_SEC / reps * 1e3, dt * 1e3 * 36, fill);
                oscar_kv_free(&kv);
            }
            free(k); free(v); free(q); free(o);
        }
        oscar_rotations_free(&rot);
    }
    return 0;
}
