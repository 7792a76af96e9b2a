/* bench_gpu.c - `oscar bench --gpu`: decode attention over the device cache (BF16 and INT2) and
   the card's copy bandwidth, in one run.

   oscar bench --gpu [--batch 1,4] [--ctx 8192,32768,131072] [--hq 32] [--hkv 8] [--dim 128]
                     [--group 128] [--iters 50] [--device 0]

   Every configuration is timed on random data (outlier channels included) after a warm-up; each
   call is bracketed by events and the median is reported. The cache spans enough layers that the
   KV data of all of them is at least 4x the L2 cache, and successive calls walk the layers, so the
   numbers are HBM numbers, not L2 ones. Times are per oscar_cuda_kv_attend call (one layer, the
   whole batch: query rotation, split-K attention, merge and V un-rotation).
   Build standalone with -DOSCAR_BENCH_GPU_MAIN (make bench-gpu).
*/
#ifdef OSCAR_BENCH_GPU_MAIN
#define OSCAR_IMPLEMENTATION
#endif
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../oscar.h"
#define OSCAR_CUDA_IMPLEMENTATION
#include "../oscar_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif
int oscar_cli_bench_gpu(int argc, char **argv);
#ifdef __cplusplus
}
#endif

static uint64_t oscar__bg_rng = 0x243F6A8885A308D3ull;
static float oscar__bg_normal(void) {
    double u, v;
    uint64_t z;
    z = (oscar__bg_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    u = ((double)(z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    z = (oscar__bg_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    v = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

static int oscar__bg_list(const char *s, int *out, int cap) {
    int n = 0;
    while (s && *s && n < cap) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s) break;
        if (*end == 'k' || *end == 'K') {
            v *= 1024;
            end++;
        }
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end != ',') break;
    }
    return n;
}

static int oscar__bg_cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static int oscar__bg_cmp(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

typedef struct oscar__bg_result {
    double us, gbs, kv_mb, min_us, pipe_us, graph_us; /* graph_us < 0: not measured */
    double host_us; /* median wall time of the attend call itself on the host (launches submitted, no wait) */
    int layers;
    double out_norm;
    float *out; /* host copy of the last layer-0 output, for the INT2 vs BF16 comparison */
} oscar__bg_result;

static int oscar__bg_diag;   /* --diag: resources, occupancy and per-launch times of the INT2 decode */
static int oscar__bg_step;   /* --step: also time a decode step, the one-token append of every sequence and then attend */
static int oscar__bg_splits; /* --splits N: oscar_cuda_kv.splits of the INT2 and BF16 caches (0: auto) */
static int oscar__bg_dpdl; /* --dpdl N: oscar_cuda_kv.decode_pdl (0: the decode starts during the query rotation, 2: after) */
static int oscar__bg_wtokens = 131072; /* --wtokens N: the write path's prefill (tokens of one sequence) */
static int oscar__bg_wstag; /* --wstag 0|1|2: oscar_cuda_kv.append_stagger (0: a long flush launch's first wave by rank on the SM, 1: every oscar_append_w launch's, 2: none) */
static int oscar__bg_wsplit; /* --wsplit 0|1|2: oscar_cuda_kv.append_wsplit (0: a late sink / window launch and one too small for the SMs in blocks of 16 jobs, 1: every one, 2: whole tiles) */
static int oscar__bg_wlate; /* --wlate 0|1|2: oscar_cuda_kv.append_wlate in the write path (0: a prefill's sink / window launch waits for a flush through oscar_append_w at its end, 1: for every flush, 2: at its start) */
static int oscar__bg_apdl; /* --apdl N: oscar_cuda_kv.append_pdl (0: the append kernels start during the previous kernel and let the next start early, 2: not) */
static int oscar__bg_mthreads; /* --mthreads N: oscar_cuda_kv.merge_threads (0: automatic; else a multiple of --dim up to 512) */
static int oscar__bg_poll; /* --poll N: oscar_cuda_kv.poll (0: auto, 1: the merge always polls per-KV-head split counts, 2: never) */
static int oscar__bg_wig;  /* --wig N: oscar_cuda_kv.wig (0: auto, 1: the interleaved decode wherever built, 2: never) */
static int oscar__bg_l2pf; /* --l2pf N: oscar_cuda_kv.l2pf (0: auto, 1: the decode's L2 prefetch at every batch, 2: never) */
static int oscar__bg_cmerge; /* --cmerge N: oscar_cuda_kv.cmerge (0: auto, 1: the cluster merge wherever built, 2: never) */
static int oscar__bg_ccap; /* --ccap N: oscar_cuda_kv.cluster_cap (0: blocks per SM capped by shared memory, 2: not) */
static int oscar__bg_cpolicy; /* --cpolicy N: oscar_cuda_kv.cluster_policy (0 load balancing, 1 the driver's default, 3 spread) */
static int oscar__bg_hsplit; /* --hsplit N: oscar_cuda_kv.hsplit (0: auto, 1: never split a KV head's query heads, n: n groups) */
static int oscar__bg_quality;  /* bit 0 (--center): the write path's caches center rows by (random) means (cfg.center 1);
                                  bit 1 (--gain): the gain encoder on K and V (k_gain, v_gain); --quality: both. Each
                                  builds its own append module */
static int oscar__bg_modes = 3; /* --mode: 1 bf16, 2 int2, 3 both, 4 (write) none: only the write path of --diag */
static int oscar__bg_wide = 0;  /* --wide: oscar_cuda_kv.append_wide in the write diagnostics (0 automatic, 1 always, 2 never) */
static int oscar__bg_small = 0; /* --small: oscar_cuda_kv.append_small in the write diagnostics and the decode step (0 automatic, 1 always, 2 never) */
static int oscar__bg_wcarve = -2; /* --wcarve: the preferred shared-memory carveout (%) of oscar_append and oscar_append_w (-2: not set) */
static int oscar__bg_wchunks[16] = {2048}, oscar__bg_nwchunks = 1; /* --wchunks: the write diagnostics' chunked prefills' append sizes */
static int oscar__bg_rot = 1;   /* --rot: 0 none (INT2 without rotations), 1 hadamard, 2 hadamard with R_v absorbed, 3 dense */

static int oscar__bg_attr(oscar_cuda *cu, oscar_cu_function fn, int attr) {
    int v = -1;
    if (!fn || cu->drv.cuFuncGetAttribute(&v, attr, fn)) return -1;
    return v;
}

/* registers, static/local memory per thread block and resident blocks per SM of each decode launch,
   then the median time of each launch (query rotation, split-K decode, merge) over iters calls */
static void oscar__bg_diag_attend(oscar_cuda *cu, oscar_cuda_kv *kv, const int *seqs, int B, oscar_cu_ptr dout, oscar_cu_ptr dq, int Hq, int L, int iters, int ctx) {
    const char *names[6] = {"oscar_decode", "oscar_rotate_q", "oscar_merge", "oscar_append", "oscar_append_wht", "oscar_append_fwht"};
    int G = Hq / kv->Hkv, f, i, k, pdl = 1, rq1 = 0, il = oscar__kv_il(kv, G, B, kv->Hkv), splits = oscar__kv_pick_splits(kv, G, B, kv->Hkv, 1024, ctx, il, &pdl, &rq1);
    const int cm = oscar__kv_cm(kv, G, il, B, kv->Hkv, &splits); /* the splits merge inside clusters: no merge launch */
    if (kv->wk_decode[G]) names[0] = cm ? (il ? "oscar_decode_w_ilc" : "oscar_decode_wc") : il ? "oscar_decode_w_il" : "oscar_decode_w";
    if (rq1) names[1] = "oscar_rotate_q1";
    const int mk = oscar__kv_merge_kind(kv, G, Hq, B); /* the merge kernel attend launches */
    names[2] = oscar__merge_name[mk];
    float *t[3];
    for (f = 0; f < 6; f++) {
        oscar_cu_function fn = f < 3 ? kv->fn_decode[G][f == 1 && rq1 ? 4 : f == 2 ? oscar__merge_fn[mk] : f == 0 ? (cm ? (il ? 8 : 7) : il ? 6 : 0) : f] : f == 3 ? kv->fn_append : f == 4 ? kv->fn_append_wht : kv->fn_append_fwht;
        if (f == 2 && cm) {
            printf("diag merge: inside %s (clusters of %d blocks), no launch\n", names[0], splits);
            continue;
        }
        if (f == 1 && oscar__kv_qwht(kv, G)) {
            printf("diag query rotation: inside %s (every rotation is H), no launch\n", names[0]);
            continue;
        }
        if (!fn) continue;
        /* CU_FUNC_ATTRIBUTE_: 0 max threads, 1 static smem, 3 local bytes, 4 registers, 9 preferred carveout (%, -1 none) */
        printf("diag %-16s regs %3d  static smem %6d B  local %4d B  max threads %4d  carveout %d", names[f], oscar__bg_attr(cu, fn, 4), oscar__bg_attr(cu, fn, 1), oscar__bg_attr(cu, fn, 3),
               oscar__bg_attr(cu, fn, 0), oscar__bg_attr(cu, fn, 9));
        if (f == 0) {
            int per = kv->Hkv * B;
            printf("  dynamic smem %6d B  blocks/SM %d (%d threads)  splits %d  grid %d%s", kv->smem_decode[G], kv->occ_decode[G], kv->thr_decode[G], splits, splits * per,
                   pdl ? "" : "  (launched after the query rotation)");
            if (cm) { /* how many of these clusters the device holds at once (the grid's clusters: per) */
                const int sm = oscar__kv_cm_smem(kv, G, (long long)splits * per);
                const int n = oscar__clusters_held(cu, fn, (unsigned)splits, (unsigned)splits, (unsigned)kv->Hkv, (unsigned)B, (unsigned)kv->thr_decode[G], (unsigned)sm);
                printf("  clusters of %d: %d, launched with %d B of dynamic smem, the device holds %d at once", splits, per, sm, n);
            }
        }
        printf("\n");
    }
    for (k = 0; k < 3; k++) t[k] = (float *)malloc(sizeof(float) * (size_t)iters);
    for (i = 0; i < 4; i++) cu->drv.cuEventCreate(&kv->prof_ev[i], 0);
    for (i = 0; i < iters && t[0] && t[1] && t[2]; i++) {
        if (oscar_cuda_kv_attend(kv, i % L, seqs, B, dout, dq, Hq, 0.0f)) break;
        cu->drv.cuEventSynchronize(kv->prof_ev[3]);
        for (k = 0; k < 3; k++) cu->drv.cuEventElapsedTime(&t[k][i], kv->prof_ev[k], kv->prof_ev[k + 1]);
    }
    if (i == iters) {
        for (k = 0; k < 3; k++) qsort(t[k], (size_t)iters, sizeof(float), oscar__bg_cmp);
        /* with q . H in the decode the first interval holds no launch (only the gap between two event records) */
        const int qw = oscar__kv_qwht(kv, G);
        const double rq = qw ? 0.0 : 1000.0 * t[0][iters / 2];
        if (qw) printf("diag per launch, batch %d x %d, median of %d: rotate_q none (q . H in the decode)", B, ctx, iters);
        else printf("diag per launch, batch %d x %d, median of %d: rotate_q %.1f us", B, ctx, iters, rq);
        if (cm) printf("  decode %.1f us  merge none (inside the decode's clusters; %.1f us to the next event)\n", 1000.0 * t[1][iters / 2], 1000.0 * t[2][iters / 2]);
        else printf("  decode %.1f us  merge %.1f us  (sum %.1f)\n", 1000.0 * t[1][iters / 2], 1000.0 * t[2][iters / 2], rq + 1000.0 * (t[1][iters / 2] + t[2][iters / 2]));
    }
    for (i = 0; i < 4; i++) {
        cu->drv.cuEventDestroy(kv->prof_ev[i]);
        kv->prof_ev[i] = NULL;
    }
    for (k = 0; k < 3; k++) free(t[k]);
}

/* timing builds with -DOSCAR_APPEND_BREC=1 (the tiled append kernels record each block's start, length, SM and
   kernel): with OSCAR_ABREC_OUT=prefix set, one prefill from an idle GPU and two queued back to back; the records
   go to prefix.idle / prefix.b2b (pairs of u64 as the kernels wrote them), the calls' event times to stdout, for
   tools/issue5/s38/abrec.py. With OSCAR_ABREC_CHUNK=N too, the same prefill as appends of N tokens from an idle GPU
   into prefix.chunk, for tools/issue5/s41/abrec_chunks.py */
static void oscar__bg_abrec(oscar_cuda *cu, oscar_cuda_kv *kv, oscar_cu_ptr dk, oscar_cu_ptr dv, int n) {
    const char *out = getenv("OSCAR_ABREC_OUT");
    oscar_cu_ptr gp = 0, np = 0;
    oscar_cu_event e0 = NULL, e1 = NULL, e2 = NULL;
    size_t gb = 0, nb = 0;
    int k, chunk = getenv("OSCAR_ABREC_CHUNK") ? atoi(getenv("OSCAR_ABREC_CHUNK")) : 0;
    if (!out || cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_append, "oscar_abrec") || cu->drv.cuModuleGetGlobal(&np, &nb, kv->mod_append, "oscar_abrec_n")) return;
    if (cu->drv.cuEventCreate(&e0, 0) || cu->drv.cuEventCreate(&e1, 0) || cu->drv.cuEventCreate(&e2, 0)) k = 3; /* none timed */
    else k = 0;
    for (; k < (chunk > 0 ? 3 : 2); k++) { /* 0: idle, 1: back to back, 2: the chunked prefill */
        int sa = -1, sb = -1, rc;
        char path[512];
        float t1 = 0.0f, t2 = 0.0f;
        unsigned long long *h = (unsigned long long *)malloc(gb);
        FILE *f;
        rc = oscar_cuda_kv_seq_create(kv, &sa);
        if (!rc && k) rc = oscar_cuda_kv_seq_create(kv, &sb);
        cu->drv.cuMemsetD8Async(gp, 0, gb, kv->stream);
        cu->drv.cuMemsetD8Async(np, 0, nb, kv->stream);
        cu->drv.cuCtxSynchronize();
        cu->drv.cuEventRecord(e0, kv->stream);
        if (!rc && k < 2) rc = oscar_cuda_kv_append(kv, sa, 0, dk, dv, n);
        for (int t = 0; k == 2 && t < n && !rc; t += chunk)
            rc = oscar_cuda_kv_append(kv, sa, 0, dk + sizeof(float) * (size_t)t * kv->Hkv * kv->d, dv + sizeof(float) * (size_t)t * kv->Hkv * kv->d, n - t < chunk ? n - t : chunk);
        cu->drv.cuEventRecord(e1, kv->stream);
        if (!rc && k == 1) rc = oscar_cuda_kv_append(kv, sb, 0, dk, dv, n);
        cu->drv.cuEventRecord(e2, kv->stream);
        cu->drv.cuCtxSynchronize();
        cu->drv.cuEventElapsedTime(&t1, e0, e1);
        cu->drv.cuEventElapsedTime(&t2, e1, e2);
        if (!rc && h && !cu->drv.cuMemcpyDtoH(h, gp, gb)) {
            snprintf(path, sizeof path, "%s.%s", out, k == 2 ? "chunk" : k ? "b2b" : "idle");
            if ((f = fopen(path, "wb")) != NULL) {
                fwrite(h, 1, gb, f);
                fclose(f);
            }
            if (k == 2) printf("abrec chunk: by events %.1f us for %d appends of %d tokens\n", 1000.0 * t1, (n + chunk - 1) / chunk, chunk);
            else if (k) printf("abrec b2b: by events the first call %.1f us, the second (queued behind it) %.1f us\n", 1000.0 * t1, 1000.0 * t2);
            else printf("abrec idle: by events %.1f us\n", 1000.0 * t1);
        }
        free(h);
        if (sa >= 0) oscar_cuda_kv_seq_release(kv, sa);
        if (sb >= 0) oscar_cuda_kv_seq_release(kv, sb);
    }
    if (e0) cu->drv.cuEventDestroy(e0);
    if (e1) cu->drv.cuEventDestroy(e1);
    if (e2) cu->drv.cuEventDestroy(e2);
}

/* the write path: quantise an n-token prefill (K and V, fp32 in) for Hkv heads into one layer of an
   INT2 cache, one append call; bytes read (K, V fp32) + written (codes, fp16 scales, BF16 sink and
   window) / time of the call (events around it: host job list, its upload, the append launches) */
/* dense = 0: Hadamard rotations (the append kernel's fast transform); 1: the same matrix with one
   element one ulp off, which takes the dense d x d product that fitted rotations (r_h_pbr) need */
static void oscar__bg_write(oscar_cuda *cu, int Hkv, int d, int g, int n, double bw, int dense) {
    oscar_kv_config cfg;
    oscar_cuda_kv kv;
    oscar_rotations rot;
    oscar_cu_ptr dk = 0, dv = 0;
    oscar_cu_event e0 = NULL, e1 = NULL;
    float tm[7], *h = NULL;
    double th[7];
    int i, seq, rc, chunk = 2048, reps = 7, b2b = 0; /* b2b: the back-to-back timing ran (the idle-GPU one had not failed) */
    int S0 = 64, W = 256, P = 64, H = n >= S0 + W ? P * ((n - S0 - W) / P) : 0;
    size_t row = (size_t)Hkv * d, bytes;
    bytes = 2 * (size_t)n * row * 4 + (size_t)Hkv * 2 * ((size_t)(n - H) * d * 2 + (size_t)H * ((size_t)d / 4 + (size_t)(d / g) * 4));
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1;
    cfg.n_kv_heads = Hkv;
    cfg.head_dim = d;
    cfg.mode = OSCAR_KV_INT2;
    cfg.group_size = g;
    cfg.page_size = P;
    cfg.max_pages = 4 * (n / P) + 16; /* four prefills held at once (the kernels' pages compared, two back to back) */
    cfg.max_seqs = 4;
    if (oscar_rotations_alloc(&rot, 1, d, Hkv, 0) || oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD)) {
        printf("diag write: rotations: %s\n", rot.msg);
        return;
    }
    if (dense) {
        rot.k_rot[1] = nextafterf(rot.k_rot[1], 1.0f);
        rot.v_rot[1] = nextafterf(rot.v_rot[1], 1.0f);
    }
    if (oscar__bg_quality & 1) { /* means of the size of the rows' own offsets; K rows with the outlier channel's */
        if (oscar_rotations_alloc_means(&rot)) {
            printf("diag write: means: %s\n", rot.msg);
            oscar_rotations_free(&rot);
            return;
        }
        for (i = 0; i < Hkv * d; i++) {
            rot.k_mean[i] = 0.3f * oscar__bg_normal() * (i % d == 3 ? 12.0f : 1.0f);
            rot.v_mean[i] = 0.3f * oscar__bg_normal();
        }
        cfg.center = OSCAR_CENTER_MEAN;
    }
    if (oscar__bg_quality & 2) cfg.k_gain = cfg.v_gain = 1;
    cfg.rot = &rot;
    if ((rc = oscar_cuda_kv_init(&kv, cu, &cfg)) != OSCAR_OK) {
        printf("diag write: %s\n", kv.msg);
        oscar_rotations_free(&rot);
        return;
    }
    kv.append_wide = oscar__bg_wide;
    kv.append_small = oscar__bg_small;
    kv.append_pdl = oscar__bg_apdl;
    kv.append_wlate = oscar__bg_wlate;
    kv.append_wsplit = oscar__bg_wsplit;
    kv.append_stagger = oscar__bg_wstag;
    if (oscar__bg_wcarve != -2) {
        cu->drv.cuFuncSetAttribute(kv.fn_append, OSCAR__CU_FUNC_PREFERRED_CARVEOUT, oscar__bg_wcarve);
        if (kv.fn_append_w) cu->drv.cuFuncSetAttribute(kv.fn_append_w, OSCAR__CU_FUNC_PREFERRED_CARVEOUT, oscar__bg_wcarve);
    }
    h = (float *)malloc(sizeof(float) * chunk * row);
    rc = !h || oscar_cuda_malloc(cu, &dk, sizeof(float) * (size_t)n * row) || oscar_cuda_malloc(cu, &dv, sizeof(float) * (size_t)n * row);
    for (i = 0; !rc && i < n; i += chunk) { /* random rows, outlier channels in K */
        size_t r;
        int c = n - i < chunk ? n - i : chunk;
        for (r = 0; r < (size_t)c * row; r++) h[r] = oscar__bg_normal() * ((r % d) == 3 ? 12.0f : 1.0f);
        rc = oscar_cuda_upload(cu, dk + sizeof(float) * (size_t)i * row, h, sizeof(float) * c * row);
        for (r = 0; !rc && r < (size_t)c * row; r++) h[r] = oscar__bg_normal();
        if (!rc) rc = oscar_cuda_upload(cu, dv + sizeof(float) * (size_t)i * row, h, sizeof(float) * c * row);
    }
    if (!rc && oscar_cuda_push(cu) == OSCAR_OK) {
        int mode, keep[2] = {-1, -1};
        cu->drv.cuEventCreate(&e0, 0);
        cu->drv.cuEventCreate(&e1, 0);
        for (mode = 0; mode < (kv.wht ? 2 : 1) && !rc; mode++) { /* 0: the default kernel; 1 (H rotations): the warp-per-row kernel */
            kv.wht_warp = mode == 1; /* H rotations: oscar_append_wht (a warp per row) instead of oscar_append_fwht */
            for (i = 0; i < reps + 1 && !rc; i++) { /* the first call compiles/loads: not timed */
                if ((rc = oscar_cuda_kv_seq_create(&kv, &seq)) != OSCAR_OK) break;
                cu->drv.cuCtxSynchronize();
                cu->drv.cuEventRecord(e0, kv.stream);
                {
                    struct timespec t0, t1;
                    clock_gettime(CLOCK_MONOTONIC, &t0);
                    rc = oscar_cuda_kv_append(&kv, seq, 0, dk, dv, n);
                    clock_gettime(CLOCK_MONOTONIC, &t1);
                    if (i > 0) th[i - 1] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
                }
                cu->drv.cuEventRecord(e1, kv.stream);
                cu->drv.cuEventSynchronize(e1);
                if (i > 0) cu->drv.cuEventElapsedTime(&tm[i - 1], e0, e1);
                if (!rc) rc = oscar_cuda_kv_errors(&kv);
                if (i == reps && !rc) keep[mode] = seq;
                else oscar_cuda_kv_seq_release(&kv, seq);
            }
            if (!rc) {
                double ms;
                char wlabel[160];
                if (kv.fn_append_w && kv.append_wide != 2)
                    snprintf(wlabel, sizeof wlabel, "%s (%d blocks per SM): fixed point on integer tensor cores",
                             kv.append_wide == 1 ? "oscar_append_w for every flush" : "oscar_append, oscar_append_w for long flushes", kv.occ_append_w);
                else
                    snprintf(wlabel, sizeof wlabel, "oscar_append: fixed point on integer tensor cores");
                qsort(tm, (size_t)reps, sizeof(float), oscar__bg_cmp);
                qsort(th, (size_t)reps, sizeof(double), oscar__bg_cmpd);
                ms = tm[reps / 2];
                printf("diag write path, %s%s (%s): %d tokens x %d KV heads x d %d (K and V, fp32 in), one append call: %.3f ms (min %.3f), %.1f MB read+written, %.0f GB/s = %.1f%% of copy; host side of the call (job list, upload, launches) %.3f ms\n",
                       kv.wht ? "H rotations: fast transform" : "dense rotations (the cost of fitted ones)", oscar__bg_quality == 3 ? ", rows centered, gain encoder" : oscar__bg_quality == 1 ? ", rows centered" : oscar__bg_quality == 2 ? ", gain encoder" : "",
                       kv.wht ? (mode == 0 ? (kv.fn_append_fwht ? "oscar_append_fwht, the default" : "oscar_append_wht, oscar_append_fwht not built") : "oscar_append_wht, wht_warp = 1")
                              : wlabel,
                       n, Hkv, d, ms, tm[0], bytes / 1e6, bytes / (ms * 1e-3) / 1e9,
                       bw > 0 ? 100.0 * bytes / (ms * 1e-3) / 1e9 / bw : 0.0, th[reps / 2]);
            } else {
                printf("diag write: %s %s\n", kv.msg, cu->msg);
            }
            /* back to back: the same call queued behind one for another sequence, so the GPU runs it without
               waiting for the host (the figure above starts before the host builds the call: its job list, any
               block-table upload and the launches come before the first kernel on an idle GPU); not where that failed */
            b2b = !rc;
            for (i = 0; i < reps && !rc; i++) {
                int sa = -1, sb = -1;
                rc = oscar_cuda_kv_seq_create(&kv, &sa);
                if (!rc) rc = oscar_cuda_kv_seq_create(&kv, &sb);
                cu->drv.cuCtxSynchronize();
                if (!rc) rc = oscar_cuda_kv_append(&kv, sa, 0, dk, dv, n);
                cu->drv.cuEventRecord(e0, kv.stream);
                if (!rc) rc = oscar_cuda_kv_append(&kv, sb, 0, dk, dv, n);
                cu->drv.cuEventRecord(e1, kv.stream);
                cu->drv.cuEventSynchronize(e1);
                cu->drv.cuEventElapsedTime(&tm[i], e0, e1);
                if (!rc) rc = oscar_cuda_kv_errors(&kv);
                if (sa >= 0) oscar_cuda_kv_seq_release(&kv, sa);
                if (sb >= 0) oscar_cuda_kv_seq_release(&kv, sb);
            }
            if (!rc) {
                qsort(tm, (size_t)reps, sizeof(float), oscar__bg_cmp);
                printf("diag write b2b, %s: one append call queued behind another: %.3f ms (min %.3f) = %.1f%% of copy\n",
                       kv.wht ? (mode == 0 ? "H rotations" : "H rotations, wht_warp = 1") : "dense rotations", tm[reps / 2], tm[0],
                       bw > 0 ? 100.0 * bytes / (tm[reps / 2] * 1e-3) / 1e9 / bw : 0.0);
            } else if (b2b) {
                printf("diag write b2b: %s %s\n", kv.msg, cu->msg);
            }
        }
        kv.wht_warp = 0;
        if (!rc && !kv.wht) oscar__bg_abrec(cu, &kv, dk, dv, n);
        if (!rc && keep[0] >= 0 && keep[1] >= 0) { /* both kernels' pages, byte for byte */
            size_t hpb = kv.head_page_bytes * (size_t)Hkv, diff = 0, pg;
            unsigned char *a = (unsigned char *)malloc(hpb), *b = (unsigned char *)malloc(hpb);
            for (pg = 0; a && b && pg < (size_t)kv.seqs[keep[0]].n_pages; pg++) {
                size_t j;
                if (oscar_cuda_download(cu, a, kv.pool + (size_t)kv.seqs[keep[0]].pages[pg] * hpb, hpb) ||
                    oscar_cuda_download(cu, b, kv.pool + (size_t)kv.seqs[keep[1]].pages[pg] * hpb, hpb))
                    break;
                for (j = 0; j < hpb; j++) diff += a[j] != b[j];
            }
            printf("diag write path: pages of the two kernels: %zu pages x %zu bytes compared, %zu bytes differ\n", pg, hpb, diff);
            free(a);
            free(b);
        }
        if (keep[0] >= 0) oscar_cuda_kv_seq_release(&kv, keep[0]);
        if (keep[1] >= 0) oscar_cuda_kv_seq_release(&kv, keep[1]);
        /* the same prefill in appends of each --wchunks size, the runs in the launches' parameters; the first size
           a second time with them uploaded */
        for (i = 0; i <= oscar__bg_nwchunks && !rc; i++) { /* i 1: the first size again, uploaded */
            float ms = 0.0f;
            const int ai = i == 1 ? 2 : 0;
            chunk = oscar__bg_wchunks[i > 1 ? i - 1 : 0];
            kv.append_inline = ai;
            if ((rc = oscar_cuda_kv_seq_create(&kv, &seq)) == OSCAR_OK) {
                int t;
                struct timespec c0, c1;
                cu->drv.cuCtxSynchronize();
                cu->drv.cuEventRecord(e0, kv.stream);
                clock_gettime(CLOCK_MONOTONIC, &c0);
                for (t = 0; t < n && !rc; t += chunk)
                    rc = oscar_cuda_kv_append(&kv, seq, 0, dk + sizeof(float) * (size_t)t * row, dv + sizeof(float) * (size_t)t * row, n - t < chunk ? n - t : chunk);
                clock_gettime(CLOCK_MONOTONIC, &c1);
                cu->drv.cuEventRecord(e1, kv.stream);
                cu->drv.cuEventSynchronize(e1);
                cu->drv.cuEventElapsedTime(&ms, e0, e1);
                /* the host's time in the calls against the stream's span: equal when the host is what limits */
                printf("diag write path, %d-token appends (runs %s): %.3f ms, %.0f GB/s = %.1f%% of copy; the host in the %d calls %.3f ms\n", chunk,
                       ai ? "uploaded, append_inline = 2" : "in the launches' parameters", ms, bytes / (ms * 1e-3) / 1e9, bw > 0 ? 100.0 * bytes / (ms * 1e-3) / 1e9 / bw : 0.0,
                       (n + chunk - 1) / chunk, (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6);
                oscar_cuda_kv_seq_release(&kv, seq);
            }
        }
        kv.append_inline = 0;
        cu->drv.cuEventDestroy(e0);
        cu->drv.cuEventDestroy(e1);
        oscar_cuda_pop(cu);
    }
    oscar_cuda_mfree(cu, dk);
    oscar_cuda_mfree(cu, dv);
    oscar_cuda_kv_free(&kv);
    oscar_rotations_free(&rot);
    free(h);
}

/* OSCAR_WPROF_OUT=FILE with kernels built with -DOSCAR_WPROF=N (OSCAR_CUDA_NVRTC_OPTIONS): after
   5 calls back to back, the per-block records of the last oscar_decode_w launch are appended to FILE
   (one line per block) and summarised: when SMs finish, block and warp durations, BF16 units */
static void oscar__bg_wprof(oscar_cuda *cu, oscar_cuda_kv *kv, const int *seqs, int B, oscar_cu_ptr dout, oscar_cu_ptr dq, int Hq, int Hkv, int L, int ctx) {
    const char *path = getenv("OSCAR_WPROF_OUT");
    oscar_cu_ptr gp = 0;
    size_t gb = 0, nb, i, k;
    unsigned long long *r;
    FILE *f;
    double g0 = 1e300, g1 = 0, smend[1024], smfirst[1024], bd = 0, bdmax = 0, bdbf = 0, wimb = 0, wimbmax = 0;
    int nsm = 0, nbf = 0, nblk = 0, G = Hq / Hkv;
    if (!path || G < 1 || G > 32 || !kv->mod_decode[G]) return;
    if (cu->drv.cuModuleGetGlobal(&gp, &gb, kv->mod_decode[G], "oscar_wprof") || gb < 16 * sizeof(unsigned long long)) {
        printf("wprof: the kernels were not built with -DOSCAR_WPROF=N\n");
        return;
    }
    /* records of an earlier launch with more blocks (another shape in this process) would stay behind */
    cu->drv.cuMemsetD8Async(gp, 0, gb, kv->stream);
    {
        oscar_cu_ptr xp = 0;
        size_t xb = 0;
        if (!cu->drv.cuModuleGetGlobal(&xp, &xb, kv->mod_decode[G], "oscar_rprof")) cu->drv.cuMemsetD8Async(xp, 0, xb, kv->stream);
        if (!cu->drv.cuModuleGetGlobal(&xp, &xb, kv->mod_decode[G], "oscar_mprof")) cu->drv.cuMemsetD8Async(xp, 0, xb, kv->stream);
        if (!cu->drv.cuModuleGetGlobal(&xp, &xb, kv->mod_decode[G], "oscar_wph")) cu->drv.cuMemsetD8Async(xp, 0, xb, kv->stream);
        if (!cu->drv.cuModuleGetGlobal(&xp, &xb, kv->mod_decode[G], "oscar_mph")) cu->drv.cuMemsetD8Async(xp, 0, xb, kv->stream);
    }
    for (i = 0; i < 5; i++) oscar_cuda_kv_attend(kv, (int)i % L, seqs, B, dout, dq, Hq, 0.0f);
    cu->drv.cuCtxSynchronize();
    nb = gb / (16 * sizeof(unsigned long long));
    if (!(r = (unsigned long long *)malloc(gb)) || cu->drv.cuMemcpyDtoH(r, gp, gb)) {
        free(r);
        return;
    }
    for (i = 0; i < 1024; i++) smend[i] = 0, smfirst[i] = 1e300;
    f = fopen(path, "a");
    for (i = 0; i < nb; i++) {
        unsigned long long *x = r + 16 * i;
        double t0 = (double)x[1], t1 = (double)x[12], wm = 0, wx = 0;
        int bf = 0;
        if (!x[12] || x[0] >= 1024) continue;
        nblk++;
        if (t0 < g0) g0 = t0;
        if (t1 > g1) g1 = t1;
        if (t1 > smend[x[0]]) smend[x[0]] = t1;
        if (t0 < smfirst[x[0]]) smfirst[x[0]] = t0;
        if ((int)x[0] + 1 > nsm) nsm = (int)x[0] + 1;
        for (k = 0; k < 4; k++) {
            wm += (double)x[4 + k] / 4;
            if ((double)x[4 + k] > wx) wx = (double)x[4 + k];
            bf += (int)((x[8 + k] >> 16) & 0xffff);
        }
        bd += (double)x[3];
        if ((double)x[3] > bdmax) bdmax = (double)x[3];
        if (bf) nbf++, bdbf += (double)x[3];
        wimb += wx - wm;
        if (wx - wm > wimbmax) wimbmax = wx - wm;
        if (f) {
            fprintf(f, "%d,%d,%zu,%llu,%.0f,%.0f,%llu", B, ctx, i, x[0], t0, t1, x[3]);
            for (k = 0; k < 4; k++) fprintf(f, ",%llu,%llu,%llu", x[4 + k], x[8 + k] & 0xffff, (x[8 + k] >> 16) & 0xffff);
            fprintf(f, ",%llu,%llu,%llu", x[13], x[14], x[15]);
            fprintf(f, "\n");
        }
    }
    if (f) fclose(f);
    { /* one call's chain: oscar_rotate_q, oscar_decode_w, the merge (start, wait done, end; us from rotate_q's first start) */
        oscar_cu_ptr rp = 0, mp = 0;
        size_t rb = 0, mb = 0;
        unsigned long long *rr = NULL, *mm = NULL;
        if (!cu->drv.cuModuleGetGlobal(&rp, &rb, kv->mod_decode[G], "oscar_rprof") && !cu->drv.cuModuleGetGlobal(&mp, &mb, kv->mod_decode[G], "oscar_mprof") &&
            (rr = (unsigned long long *)malloc(rb)) && (mm = (unsigned long long *)malloc(mb)) && !cu->drv.cuMemcpyDtoH(rr, rp, rb) && !cu->drv.cuMemcpyDtoH(mm, mp, mb)) {
            double t[3][3][2]; /* kernel, phase, min / max */
            int kk, ph;
            for (kk = 0; kk < 3; kk++)
                for (ph = 0; ph < 3; ph++) t[kk][ph][0] = 1e300, t[kk][ph][1] = 0;
            for (kk = 0; kk < 3; kk++) {
                const unsigned long long *a = kk == 0 ? rr : kk == 2 ? mm : NULL;
                const size_t n = kk == 0 ? rb / 24 : kk == 2 ? mb / 24 : nb;
                for (i = 0; i < n; i++) {
                    double v[3];
                    if (a) {
                        if (!a[3 * i + 2]) continue;
                        v[0] = (double)a[3 * i], v[1] = (double)a[3 * i + 1], v[2] = (double)a[3 * i + 2];
                    } else {
                        if (!r[16 * i + 12]) continue;
                        v[0] = (double)r[16 * i + 1], v[1] = (double)r[16 * i + 2], v[2] = (double)r[16 * i + 12];
                    }
                    for (ph = 0; ph < 3; ph++) {
                        if (v[ph] < t[kk][ph][0]) t[kk][ph][0] = v[ph];
                        if (v[ph] > t[kk][ph][1]) t[kk][ph][1] = v[ph];
                    }
                }
            }
            if (t[1][0][1] > 0 && t[2][0][1] > 0) { /* no oscar_rotate_q records: the query rotated inside the decode */
                const int rq = t[0][0][1] > 0;
                const double z = t[rq ? 0 : 1][0][0];
                static const char *kn[3] = {"rotate_q", "decode", "merge"};
                printf("chain B=%d ctx=%d (us from %s's first start; first / last block):", B, ctx, rq ? "rotate_q" : "the decode");
                for (kk = rq ? 0 : 1; kk < 3; kk++)
                    printf("  %s start %.2f / %.2f, wait done %.2f / %.2f, end %.2f / %.2f;", kn[kk], (t[kk][0][0] - z) / 1e3, (t[kk][0][1] - z) / 1e3, (t[kk][1][0] - z) / 1e3,
                           (t[kk][1][1] - z) / 1e3, (t[kk][2][0] - z) / 1e3, (t[kk][2][1] - z) / 1e3);
                printf("\n");
            }
        }
        free(rr);
        free(mm);
    }
    { /* phases in cycles from each block's start (oscar_wph, oscar_mph): mean over the blocks that recorded their last */
        static const char *gn[2] = {"oscar_wph", "oscar_mph"};
        static const char *pn[2][8] = {{"query in smem", "transformed", "normalisers", "epilogue weights", "bf16 frags", "int2 frags", "frags barrier", ""},
                                      {"wait done", "partials summed", "slices summed", "end", "loads arrived", "weights", "", ""}};
        int kk, ph;
        for (kk = 0; kk < 2; kk++) {
            oscar_cu_ptr xp = 0;
            size_t xb = 0, n;
            unsigned long long *a;
            double sum[8] = {0}, mx[8] = {0};
            int cnt[8] = {0};
            if (cu->drv.cuModuleGetGlobal(&xp, &xb, kv->mod_decode[G], gn[kk]) || !(a = (unsigned long long *)malloc(xb))) continue;
            if (!cu->drv.cuMemcpyDtoH(a, xp, xb)) {
                for (n = 0; n < xb / 64; n++)
                    for (ph = 0; ph < 8; ph++)
                        if (a[8 * n + ph]) {
                            sum[ph] += (double)a[8 * n + ph], cnt[ph]++;
                            if ((double)a[8 * n + ph] > mx[ph]) mx[ph] = (double)a[8 * n + ph];
                        }
                printf("phases %s B=%d ctx=%d (cycles from the block's start, mean / max):", kk ? "merge" : "decode", B, ctx);
                for (ph = 0; ph < 8; ph++)
                    if (cnt[ph]) printf(" %s %.0f / %.0f (%d);", pn[kk][ph], sum[ph] / cnt[ph], mx[ph], cnt[ph]);
                printf("\n");
            }
            free(a);
        }
    }
    free(r);
    if (!nblk) return;
    {
        double mn = 1e300, mx = 0, mean = 0;
        int c = 0;
        for (i = 0; i < (size_t)nsm; i++)
            if (smend[i] > 0) {
                const double e = smend[i] - g0;
                mean += e, c++;
                if (e < mn) mn = e;
                if (e > mx) mx = e;
            }
        printf("wprof B=%d ctx=%d: %d blocks on %d SMs, launch span %.1f us; SM last end min / mean / max %.1f / %.1f / %.1f us; "
               "block cycles mean %.0f max %.0f (with BF16 units: %d blocks, mean %.0f); warp max - warp mean in a block: mean %.0f max %.0f cycles\n",
               B, ctx, nblk, c, (g1 - g0) / 1e3, mn / 1e3, mean / c / 1e3, mx / 1e3, bd / nblk, bdmax, nbf, nbf ? bdbf / nbf : 0.0, wimb / nblk, wimbmax);
    }
}

/* graph_us: the same calls captured into a CUDA graph on a stream of their own and replayed, so
   the host's submission of each launch is not in the time (how an engine runs a decode step).
   Only for batches whose sequence list travels in the kernel parameters (no host-to-device copy
   in the call). Returns microseconds per call, or -1 when the driver cannot capture. */
static double oscar__bg_graph(oscar_cuda *cu, oscar_cuda_kv *kv, const int *seqs, int B, oscar_cu_ptr dout, oscar_cu_ptr dq, int Hq, int L, int iters) {
    typedef int (*stream_create_fn)(oscar_cu_stream *, unsigned);
    typedef int (*stream_fn)(oscar_cu_stream);
    typedef int (*begin_fn)(oscar_cu_stream, int);
    typedef int (*end_fn)(oscar_cu_stream, void **);
    typedef int (*inst_fn)(void **, void *, unsigned long long);
    typedef int (*launch_fn)(void *, oscar_cu_stream);
    typedef int (*destroy_fn)(void *);
    stream_create_fn s_create;
    stream_fn s_destroy, s_sync;
    begin_fn begin;
    end_fn end;
    inst_fn inst;
    launch_fn launch;
    destroy_fn g_destroy, ge_destroy;
    oscar_cu_stream st = NULL, old = kv->stream;
    oscar_cu_event e0 = NULL, e1 = NULL;
    void *graph = NULL, *exec = NULL;
    double best = -1.0;
    int i, rc = 0, rep;
    if (B > OSCAR__INLINE_SEQS || !cu->lib_cuda) return -1.0;
    *(void **)&s_create = dlsym(cu->lib_cuda, "cuStreamCreate");
    *(void **)&s_destroy = dlsym(cu->lib_cuda, "cuStreamDestroy_v2");
    *(void **)&s_sync = dlsym(cu->lib_cuda, "cuStreamSynchronize");
    *(void **)&begin = dlsym(cu->lib_cuda, "cuStreamBeginCapture_v2");
    *(void **)&end = dlsym(cu->lib_cuda, "cuStreamEndCapture");
    *(void **)&inst = dlsym(cu->lib_cuda, "cuGraphInstantiateWithFlags");
    *(void **)&launch = dlsym(cu->lib_cuda, "cuGraphLaunch");
    *(void **)&g_destroy = dlsym(cu->lib_cuda, "cuGraphDestroy");
    *(void **)&ge_destroy = dlsym(cu->lib_cuda, "cuGraphExecDestroy");
    if (!s_create || !s_destroy || !s_sync || !begin || !end || !inst || !launch || !g_destroy || !ge_destroy) return -1.0;
    if (s_create(&st, 1 /* CU_STREAM_NON_BLOCKING */)) return -1.0;
    kv->stream = st;
    if (begin(st, 2 /* CU_STREAM_CAPTURE_MODE_RELAXED */) == 0) {
        for (i = 0; i < iters && !rc; i++) rc = oscar_cuda_kv_attend(kv, i % L, seqs, B, dout, dq, Hq, 0.0f);
        if (end(st, &graph) || rc) rc = 1;
    } else {
        rc = 1;
    }
    kv->stream = old;
    if (!rc && inst(&exec, graph, 0)) rc = 1;
    if (!rc && (cu->drv.cuEventCreate(&e0, 0) || cu->drv.cuEventCreate(&e1, 0))) rc = 1;
    if (!rc && (launch(exec, st) || s_sync(st))) rc = 1; /* warm */
    for (rep = 0; rep < 5 && !rc; rep++) {
        float ms = 0.0f;
        cu->drv.cuEventRecord(e0, st);
        rc = launch(exec, st) != 0;
        cu->drv.cuEventRecord(e1, st);
        cu->drv.cuEventSynchronize(e1);
        cu->drv.cuEventElapsedTime(&ms, e0, e1);
        if (!rc && (best < 0.0 || 1000.0 * ms / iters < best)) best = 1000.0 * ms / iters;
    }
    if (e0) cu->drv.cuEventDestroy(e0);
    if (e1) cu->drv.cuEventDestroy(e1);
    if (exec) ge_destroy(exec);
    if (graph) g_destroy(graph);
    s_sync(st);
    s_destroy(st);
    return rc ? -1.0 : best;
}

/* --step: what a decode step of one layer costs: the new token's K and V of every sequence appended
   (oscar_cuda_kv_append_batch: rows of dk, dv) and then the attend call, against the append alone; median
   of events around each (from an idle GPU) and iters back to back. Every append grows the cache by a
   token (a flush of a page every P tokens is in the back-to-back figures as an engine would meet it); the
   pool holds 8 spare pages per sequence (--step), 4 iters appends per layer at most here */
static int oscar__bg_step_time(oscar_cuda *cu, oscar_cuda_kv *kv, const int *seqs, int B, oscar_cu_ptr dk, oscar_cu_ptr dv, oscar_cu_ptr dout, oscar_cu_ptr dq, int Hq, int L,
                               int iters, int ctx, int int2) {
    oscar_cu_event e0 = NULL, e1 = NULL;
    double us[2][3], host[2] = {0.0, 0.0}; /* [append | step][events median | events max | back to back]; the host per back-to-back call */
    struct timespec h0, h1;
    int i, w, rc = OSCAR_OK;
    float *times;
    if (4 * iters > 8 * kv->P * L - 2 * kv->P) {
        printf("step B=%d ctx=%d: %d appends per layer would outgrow the spare pages; not timed\n", B, ctx, 4 * iters / L);
        return OSCAR_OK;
    }
    times = (float *)malloc(sizeof(float) * (size_t)iters);
    if (!times) return OSCAR_ERR_NOMEM;
    if (cu->drv.cuEventCreate(&e0, 0) || cu->drv.cuEventCreate(&e1, 0)) {
        if (e0) cu->drv.cuEventDestroy(e0);
        free(times);
        return OSCAR_ERR_CUDA;
    }
    for (w = 0; w < 2 && !rc; w++) { /* 0: the append alone; 1: append + attend */
        float ms = 0.0f;
        cu->drv.cuCtxSynchronize();
        for (i = 0; i < iters && !rc; i++) {
            cu->drv.cuEventRecord(e0, kv->stream);
            rc = oscar_cuda_kv_append_batch(kv, i % L, seqs, B, dk, dv);
            if (!rc && w) rc = oscar_cuda_kv_attend(kv, i % L, seqs, B, dout, dq, Hq, 0.0f);
            cu->drv.cuEventRecord(e1, kv->stream);
            cu->drv.cuEventSynchronize(e1);
            cu->drv.cuEventElapsedTime(&times[i], e0, e1);
        }
        if (rc) break;
        qsort(times, (size_t)iters, sizeof(float), oscar__bg_cmp);
        us[w][0] = 1000.0 * times[iters / 2];
        us[w][1] = 1000.0 * times[iters - 1];
        cu->drv.cuEventRecord(e0, kv->stream);
        clock_gettime(CLOCK_MONOTONIC, &h0);
        for (i = 0; i < iters && !rc; i++) {
            rc = oscar_cuda_kv_append_batch(kv, i % L, seqs, B, dk, dv);
            if (!rc && w) rc = oscar_cuda_kv_attend(kv, i % L, seqs, B, dout, dq, Hq, 0.0f);
        }
        clock_gettime(CLOCK_MONOTONIC, &h1);
        host[w] = (1e6 * (double)(h1.tv_sec - h0.tv_sec) + 1e-3 * (double)(h1.tv_nsec - h0.tv_nsec)) / iters;
        cu->drv.cuEventRecord(e1, kv->stream);
        cu->drv.cuEventSynchronize(e1);
        cu->drv.cuEventElapsedTime(&ms, e0, e1);
        us[w][2] = 1000.0 * ms / iters;
    }
    if (!rc) rc = oscar_cuda_kv_errors(kv);
    cu->drv.cuEventDestroy(e0);
    cu->drv.cuEventDestroy(e1);
    free(times);
    if (rc) {
        printf("step B=%d ctx=%d: %s\n", B, ctx, kv->msg);
        return rc;
    }
    printf("step %s B=%d ctx=%d: append of one token per sequence %.1f us (max %.1f; back to back %.1f, host %.1f); append + attend %.1f us (max %.1f; back to back %.1f, host %.1f)\n",
           int2 ? "int2" : "bf16", B, ctx, us[0][0], us[0][1], us[0][2], host[0], us[1][0], us[1][1], us[1][2], host[1]);
    return OSCAR_OK;
}

/* one configuration: fill a cache, check the output, time attend */
static int oscar__bg_run(oscar_cuda *cu, int int2, int B, int ctx, int Hq, int Hkv, int d, int g, int iters, oscar__bg_result *res) {
    oscar_kv_config cfg;
    oscar_cuda_kv kv;
    oscar_rotations rot;
    int have_rot = 0, L, l, b, i, rc, P = 64, chunk = 2048, seqs[64];
    size_t kv_layer, rows, n_out = (size_t)B * Hq * d;
    float *hk = NULL, *hv = NULL, *hq = NULL, *times = NULL;
    double *hts = NULL;
    oscar_cu_ptr dk = 0, dv = 0, dq = 0, dout = 0;
    oscar_cu_event e0 = NULL, e1 = NULL;
    int S0 = 64, W = 256, ns = ctx < S0 ? ctx : S0, H = ctx >= S0 + W ? P * ((ctx - S0 - W) / P) : 0, nbf = ctx - H;
    memset(res, 0, sizeof *res);
    /* bytes one attend call reads: BF16 rows, INT2 history (codes + fp16 scale/min) */
    if (int2) kv_layer = (size_t)B * Hkv * 2 * ((size_t)nbf * d * 2 + (size_t)H * ((size_t)d / 4 + (size_t)(d / g) * 4));
    else kv_layer = (size_t)B * Hkv * 2 * (size_t)ctx * d * 2;
    (void)ns;
    L = (int)((4.0 * (cu->l2_bytes > 0 ? cu->l2_bytes : 50 << 20)) / (double)kv_layer) + 1;
    if (L > 64) L = 64;
    if ((double)L * kv_layer > 0.5 * (double)cu->total_mem) L = (int)(0.5 * (double)cu->total_mem / (double)kv_layer);
    if (L < 1) {
        printf("  %s B=%d ctx=%d: does not fit in device memory\n", int2 ? "int2" : "bf16", B, ctx);
        return OSCAR_ERR_DEVICE_OOM;
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = L;
    cfg.n_kv_heads = Hkv;
    cfg.head_dim = d;
    cfg.mode = int2 ? OSCAR_KV_INT2 : OSCAR_KV_BF16;
    cfg.group_size = g;
    cfg.page_size = P;
    cfg.max_pages = B * (ctx / P + (oscar__bg_step ? 8 : 2)); /* --step appends up to 4 iters tokens over L layers */
    cfg.max_seqs = B;
    if (int2 && oscar__bg_rot) {
        rc = oscar_rotations_alloc(&rot, L, d, Hkv, 0);
        if (!rc) rc = oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD);
        if (!rc && oscar__bg_rot == 3) { /* dense: H with its columns in bit-reversed order, orthogonal but not H, so the
                                            cache takes the path of fitted rotations (dense products, oscar_rotate_q) */
            size_t m, nm = (size_t)2 * L * (rot.per_head ? Hkv : 1), i, j;
            float *tmp = (float *)malloc(sizeof(float) * (size_t)d);
            for (m = 0; tmp && m < nm; m++) {
                float *R = (m & 1 ? rot.v_rot : rot.k_rot) + (m >> 1) * (size_t)d * d;
                for (i = 0; i < (size_t)d; i++) {
                    for (j = 0; j < (size_t)d; j++) tmp[j] = R[i * d + (size_t)oscar_bitrev((int)j, d)];
                    memcpy(R + i * d, tmp, sizeof(float) * (size_t)d);
                }
            }
            if (!tmp) rc = OSCAR_ERR_NOMEM;
            free(tmp);
        }
        if (rc) {
            printf("rotations: %s\n", rot.msg);
            return rc;
        }
        have_rot = 1;
        cfg.rot = &rot;
        cfg.absorb_v = oscar__bg_rot == 2;
    }
    rc = oscar_cuda_kv_init(&kv, cu, &cfg);
    if (rc) {
        printf("  %s B=%d ctx=%d: %s: %s\n", int2 ? "int2" : "bf16", B, ctx, oscar_result_string(rc), kv.msg);
        if (have_rot) oscar_rotations_free(&rot);
        return rc;
    }
    kv.splits = oscar__bg_splits;
    kv.hsplit = oscar__bg_hsplit;
    kv.decode_pdl = oscar__bg_dpdl;
    kv.append_pdl = oscar__bg_apdl;
    kv.poll = oscar__bg_poll;
    kv.merge_threads = oscar__bg_mthreads;
    kv.wig = oscar__bg_wig;
    kv.cmerge = oscar__bg_cmerge;
    kv.l2pf = oscar__bg_l2pf;
    kv.append_small = oscar__bg_small;
    kv.append_wsplit = oscar__bg_wsplit;
    kv.cluster_policy = oscar__bg_cpolicy;
    kv.cluster_cap = oscar__bg_ccap;
    rows = (size_t)chunk * Hkv * d;
    hk = (float *)malloc(sizeof(float) * rows);
    hv = (float *)malloc(sizeof(float) * rows);
    hq = (float *)malloc(sizeof(float) * n_out);
    times = (float *)malloc(sizeof(float) * (size_t)(iters > 0 ? iters : 1));
    hts = (double *)malloc(sizeof(double) * (size_t)(iters > 0 ? iters : 1));
    res->out = (float *)malloc(sizeof(float) * n_out);
    if (!hk || !hv || !hq || !times || !hts || !res->out) {
        rc = OSCAR_ERR_NOMEM;
        goto done;
    }
    oscar__bg_rng = 0x243F6A8885A308D3ull; /* the same data for both modes */
    for (i = 0; i < (int)rows; i++) {
        int c = i % d;
        float out = (c == 3 || c == 77 % d) ? 12.0f : 1.0f;
        hk[i] = oscar__bg_normal() * out + (c == 3 ? 6.0f : 0.0f);
        hv[i] = oscar__bg_normal();
    }
    for (i = 0; i < (int)n_out; i++) hq[i] = oscar__bg_normal();
    if ((rc = oscar_cuda_malloc(cu, &dk, sizeof(float) * rows)) || (rc = oscar_cuda_malloc(cu, &dv, sizeof(float) * rows)) ||
        (rc = oscar_cuda_malloc(cu, &dq, sizeof(float) * n_out)) || (rc = oscar_cuda_malloc(cu, &dout, sizeof(float) * n_out)) ||
        (rc = oscar_cuda_upload(cu, dk, hk, sizeof(float) * rows)) || (rc = oscar_cuda_upload(cu, dv, hv, sizeof(float) * rows)) ||
        (rc = oscar_cuda_upload(cu, dq, hq, sizeof(float) * n_out))) {
        printf("device buffers: %s\n", cu->msg);
        goto done;
    }
    for (b = 0; b < B; b++) oscar_cuda_kv_seq_create(&kv, &seqs[b]);
    for (l = 0; l < L; l++)
        for (b = 0; b < B; b++) {
            int left = ctx;
            while (left > 0) {
                int c = left < chunk ? left : chunk;
                rc = oscar_cuda_kv_append(&kv, seqs[b], l, dk, dv, c);
                if (rc) {
                    printf("append: %s\n", kv.msg);
                    goto done;
                }
                left -= c;
            }
        }
    if ((rc = oscar_cuda_kv_errors(&kv)) != OSCAR_OK) {
        printf("append rejected rows: %s\n", kv.msg);
        goto done;
    }
    /* check before timing: finite, non-zero output */
    rc = oscar_cuda_kv_attend(&kv, 0, seqs, B, dout, dq, Hq, 0.0f);
    if (!rc) rc = oscar_cuda_download(cu, res->out, dout, sizeof(float) * n_out);
    if (rc) {
        printf("attend: %s %s\n", kv.msg, cu->msg);
        goto done;
    }
    {
        double s = 0.0;
        for (i = 0; i < (int)n_out; i++) {
            if (!(fabsf(res->out[i]) < 1e30f)) {
                printf("attend produced a non-finite output\n");
                rc = OSCAR_ERR_NONFINITE;
                goto done;
            }
            s += (double)res->out[i] * res->out[i];
        }
        res->out_norm = sqrt(s);
        if (s == 0.0) {
            printf("attend produced all zeros\n");
            rc = OSCAR_ERR_STATE;
            goto done;
        }
        if (oscar__bg_diag) { /* the outputs' bits, to compare kernel variants on the same inputs */
            unsigned long long h = 14695981039346656037ull;
            unsigned u;
            for (i = 0; i < (int)n_out; i++) {
                memcpy(&u, &res->out[i], sizeof u);
                h = (h ^ u) * 1099511628211ull;
            }
            printf("diag out %s B=%d ctx=%d G=%d d=%d: %d floats, FNV-1a of their words %016llx\n", int2 ? "int2" : "bf16", B, ctx, Hq / Hkv, d, (int)n_out, h);
        }
    }
    if ((rc = oscar_cuda_push(cu)) != OSCAR_OK) goto done;
    if (cu->drv.cuEventCreate(&e0, 0) || cu->drv.cuEventCreate(&e1, 0)) {
        oscar_cuda_pop(cu);
        rc = OSCAR_ERR_CUDA;
        goto done;
    }
    for (i = 0; i < 2 * L && i < 20; i++) oscar_cuda_kv_attend(&kv, i % L, seqs, B, dout, dq, Hq, 0.0f);
    cu->drv.cuCtxSynchronize();
    for (i = 0; i < iters; i++) {
        struct timespec h0, h1;
        cu->drv.cuEventRecord(e0, kv.stream);
        clock_gettime(CLOCK_MONOTONIC, &h0);
        rc = oscar_cuda_kv_attend(&kv, i % L, seqs, B, dout, dq, Hq, 0.0f);
        clock_gettime(CLOCK_MONOTONIC, &h1);
        hts[i] = 1e6 * (double)(h1.tv_sec - h0.tv_sec) + 1e-3 * (double)(h1.tv_nsec - h0.tv_nsec);
        cu->drv.cuEventRecord(e1, kv.stream);
        cu->drv.cuEventSynchronize(e1);
        cu->drv.cuEventElapsedTime(&times[i], e0, e1);
        if (rc) break;
    }
    if (!rc) { /* back to back: the calls queue up, so host work overlaps the GPU's */
        float ms = 0.0f;
        cu->drv.cuEventRecord(e0, kv.stream);
        for (i = 0; i < iters && !rc; i++) rc = oscar_cuda_kv_attend(&kv, i % L, seqs, B, dout, dq, Hq, 0.0f);
        cu->drv.cuEventRecord(e1, kv.stream);
        cu->drv.cuEventSynchronize(e1);
        cu->drv.cuEventElapsedTime(&ms, e0, e1);
        res->pipe_us = 1000.0 * ms / iters;
    }
    res->graph_us = rc ? -1.0 : oscar__bg_graph(cu, &kv, seqs, B, dout, dq, Hq, L, iters);
    if (!rc) oscar__bg_wprof(cu, &kv, seqs, B, dout, dq, Hq, Hkv, L, ctx);
    if (!rc && oscar__bg_step) rc = oscar__bg_step_time(cu, &kv, seqs, B, dk, dv, dout, dq, Hq, L, iters, ctx, int2);
    if (!rc && oscar__bg_diag && int2) oscar__bg_diag_attend(cu, &kv, seqs, B, dout, dq, Hq, L, iters, ctx);
    cu->drv.cuEventDestroy(e0);
    cu->drv.cuEventDestroy(e1);
    oscar_cuda_pop(cu);
    if (rc) {
        printf("attend: %s\n", kv.msg);
        goto done;
    }
    qsort(times, (size_t)iters, sizeof(float), oscar__bg_cmp);
    qsort(hts, (size_t)iters, sizeof(double), oscar__bg_cmpd);
    res->host_us = hts[iters / 2];
    res->us = 1000.0 * times[iters / 2];
    res->min_us = 1000.0 * times[0];
    res->kv_mb = (double)kv_layer / 1e6;
    res->gbs = (double)kv_layer / (res->us * 1e-6) / 1e9;
    res->layers = L;
done:
    oscar_cuda_mfree(cu, dk);
    oscar_cuda_mfree(cu, dv);
    oscar_cuda_mfree(cu, dq);
    oscar_cuda_mfree(cu, dout);
    oscar_cuda_kv_free(&kv);
    if (have_rot) oscar_rotations_free(&rot);
    free(hk);
    free(hv);
    free(hq);
    free(times);
    free(hts);
    if (rc) {
        free(res->out);
        res->out = NULL;
    }
    return rc;
}

/* device-to-device copy of 1 GiB; bytes read + written per second */
static double oscar__bg_copy(oscar_cuda *cu, double *ms_out) {
    size_t bytes = (size_t)1 << 30;
    oscar_cu_ptr a = 0, b = 0;
    oscar_cu_event e0 = NULL, e1 = NULL;
    float t[12];
    int i;
    double bw = 0.0;
    if (oscar_cuda_malloc(cu, &a, bytes) || oscar_cuda_malloc(cu, &b, bytes)) {
        oscar_cuda_mfree(cu, a);
        return 0.0;
    }
    if (oscar_cuda_push(cu) == OSCAR_OK) {
        cu->drv.cuMemsetD32Async(a, 0x3f9e3779u, bytes / 4, (oscar_cu_stream)0);
        cu->drv.cuEventCreate(&e0, 0);
        cu->drv.cuEventCreate(&e1, 0);
        for (i = 0; i < 3; i++) cu->drv.cuMemcpyDtoDAsync(b, a, bytes, (oscar_cu_stream)0);
        for (i = 0; i < 12; i++) {
            cu->drv.cuEventRecord(e0, (oscar_cu_stream)0);
            cu->drv.cuMemcpyDtoDAsync(i & 1 ? a : b, i & 1 ? b : a, bytes, (oscar_cu_stream)0);
            cu->drv.cuEventRecord(e1, (oscar_cu_stream)0);
            cu->drv.cuEventSynchronize(e1);
            cu->drv.cuEventElapsedTime(&t[i], e0, e1);
        }
        qsort(t, 12, sizeof(float), oscar__bg_cmp);
        *ms_out = t[6];
        bw = 2.0 * (double)bytes / (t[6] * 1e-3) / 1e9;
        cu->drv.cuEventDestroy(e0);
        cu->drv.cuEventDestroy(e1);
        oscar_cuda_pop(cu);
    }
    oscar_cuda_mfree(cu, a);
    oscar_cuda_mfree(cu, b);
    return bw;
}

int oscar_cli_bench_gpu(int argc, char **argv) {
    oscar_cuda cu;
    oscar_cuda_config cc;
    int batches[16] = {1}, ctxs[16] = {8192, 32768, 131072}, nb = 1, nc = 3;
    int Hq = 32, Hkv = 8, d = 128, g = 128, iters = 50, i, bi, ci, rc;
    double copy_ms = 0.0, bw;
    time_t now = time(NULL);
    char date[64];
    const char *csv_path = NULL;
    FILE *csv = NULL;
    memset(&cc, 0, sizeof cc);
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--gpu") || !strcmp(a, "bench") || (i == 0 && a[0] != '-')) continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: oscar bench --gpu [--batch 1,4] [--ctx 8192,32768,131072] [--hq 32] [--hkv 8] [--dim 128] [--group 128] [--iters 50] [--device 0] [--arch N] [--csv FILE] [--splits N] [--hsplit N] [--dpdl 0|2] [--apdl 0|1|2] [--poll 0|1|2] [--mthreads N] [--l2pf 0|1|2] [--wig 0|1|2] [--mode both|int2|bf16|write] [--wide 0|1|2] [--wlate 0|1|2] [--wsplit 0|1|2] [--wstag 0|1|2] [--small 0|1|2] [--wcarve N] [--wchunks 2048,8192] [--wtokens 131072] [--rot hadamard|none|absorb|dense] [--diag] [--step] [--quality | --center | --gain]\n"
                   "  decode attention (BF16 and INT2 caches) per call, median of --iters calls, and the 1 GiB device-to-device copy bandwidth\n"
                   "  --step: also a decode step per layer: the one-token append of every sequence, then attend (events from an idle GPU, and back to back)\n"
                   "  --splits N: split each (sequence, KV head) N ways instead of the automatic choice\n"
                   "  --poll N: oscar_cuda_kv.poll: 0 automatic (the merge polls per-KV-head split counts from 64 (sequence, KV head) pairs up), 1 always, 2 never\n"
                   "  --mthreads N: oscar_cuda_kv.merge_threads: 0 automatic (oscar_merge_h in 256-thread blocks at d 128 up to 48 splits, else 512), N forces N\n"
                   "  --wig N: oscar_cuda_kv.wig: 0 automatic (INT2 d 128 G 4: the block's warps take its units in turn from 64 pairs up), 1 always, 2 never\n"
                   "  --cmerge N: oscar_cuda_kv.cmerge: 0 automatic (sm_90+: decodes of <= 16 splits merge inside thread block clusters), 1 always (splits capped), 2 never\n"
                   "  --l2pf N: oscar_cuda_kv.l2pf: 0 automatic (INT2, sm_90+ kernels, >= 64 (sequence, KV head) pairs: each decode warp prefetches its first 2 units into L2 before its wait), 1 always, 2 never\n"
                   "  --cpolicy N: oscar_cuda_kv.cluster_policy: 0 load balancing, 1 the driver's default, 3 spread\n"
                   "  --ccap N: oscar_cuda_kv.cluster_cap: 0 a cluster launch's blocks per SM capped by its shared memory, 2 not\n"
                   "  --hsplit N: oscar_cuda_kv.hsplit: 0 automatic (G > 8: groups of 3-8 query heads), 1 never split a KV head's query heads, n: n groups\n"
                   "  --rot: the INT2 cache's rotations: Hadamard (default; queries rotated inside the decode), none, Hadamard with R_v absorbed (no un-rotation),\n"
                   "         or dense (H with permuted columns: the cost of fitted rotations, a query-rotation launch before the decode)\n"
                   "  --diag: registers, shared memory and blocks per SM of the INT2 decode, each launch timed, the outputs hashed, and the write path (128K-token prefill)\n"
                   "  --mode write: no decode rows, only --diag's write path (e.g. to profile its kernels alone)\n"
                   "  --wide N: oscar_cuda_kv.append_wide in the write path: 0 automatic (long flush launches of dense rotations through oscar_append_w), 1 always, 2 never\n"
                   "  --wlate N: oscar_cuda_kv.append_wlate in the write path: 0 a prefill's sink / window launch waits for a long flush launch (oscar_append_w) at its end (dense rotations, sm_90+), 1 for every flush launch, 2 at its start\n"
                   "  --wsplit N: oscar_cuda_kv.append_wsplit (write path, --step): 0 that launch and one of fewer tiles than SMs in 16-job blocks, 1 all, 2 whole tiles\n"
                   "  --wstag N: oscar_cuda_kv.append_stagger: 0 a flush launch of two waves or more through oscar_append_w starts its first wave by rank on the SM, 1 every such launch, 2 none\n"
                   "  --small N: oscar_cuda_kv.append_small in the write path and --step: 0 automatic (launches of <= 32 jobs per KV head of dense rotations through oscar_append_s), 1 always, 2 never\n"
                   "  --wcarve N: the write path's kernels (oscar_append, oscar_append_w) prefer N%% of the SM's unified memory as shared memory (-1: no preference)\n"
                   "  --wchunks A,B: the write path's chunked prefills, appends of A tokens (also with the runs uploaded), then B, ... (default 2048)\n"
                   "  --wtokens N: the write path's prefill, N tokens of one sequence (default 131072; e.g. 384 with --wide 1: one tile per KV head and K|V, each block alone on its SM)\n"
                   "  --quality: the write path's caches center rows by means and use the gain encoder (center 1, k_gain, v_gain); --center, --gain: one of the two\n"
                   "  --arch N: compile the kernels as PTX for compute_N (e.g. 80: what an A100 runs, here finished by the driver for this device)\n");
            return 0;
        }
        if (!strcmp(a, "--step")) {
            oscar__bg_step = 1;
            continue;
        }
        if (!strcmp(a, "--diag")) {
            oscar__bg_diag = 1;
            continue;
        }
        if (!strcmp(a, "--quality") || !strcmp(a, "--center") || !strcmp(a, "--gain")) {
            oscar__bg_quality |= a[2] == 'q' ? 3 : a[2] == 'c' ? 1 : 2;
            continue;
        }
        if (!v) {
            fprintf(stderr, "bench --gpu: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--batch")) nb = oscar__bg_list(v, batches, 16);
        else if (!strcmp(a, "--ctx")) nc = oscar__bg_list(v, ctxs, 16);
        else if (!strcmp(a, "--hq")) Hq = atoi(v);
        else if (!strcmp(a, "--hkv")) Hkv = atoi(v);
        else if (!strcmp(a, "--dim")) d = atoi(v);
        else if (!strcmp(a, "--group")) g = atoi(v);
        else if (!strcmp(a, "--iters")) iters = atoi(v);
        else if (!strcmp(a, "--device")) cc.device = atoi(v);
        else if (!strcmp(a, "--arch")) { /* e.g. 80: the kernels an sm_80 card runs, as PTX the driver finishes */
            char *e;
            cc.arch = (int)strtol(v, &e, 10), cc.ptx = 1;
            if (*e || cc.arch < 50 || cc.arch > 200) {
                fprintf(stderr, "bench --gpu: --arch wants a compute capability such as 80 or 90, not '%s'\n", v);
                return 2;
            }
        }
        else if (!strcmp(a, "--csv")) csv_path = v;
        else if (!strcmp(a, "--splits")) oscar__bg_splits = atoi(v);
        else if (!strcmp(a, "--hsplit")) oscar__bg_hsplit = atoi(v);
        else if (!strcmp(a, "--dpdl")) oscar__bg_dpdl = atoi(v);
        else if (!strcmp(a, "--poll")) oscar__bg_poll = atoi(v);
        else if (!strcmp(a, "--mthreads")) oscar__bg_mthreads = atoi(v);
        else if (!strcmp(a, "--wig")) oscar__bg_wig = atoi(v);
        else if (!strcmp(a, "--cmerge")) oscar__bg_cmerge = atoi(v);
        else if (!strcmp(a, "--l2pf")) oscar__bg_l2pf = atoi(v);
        else if (!strcmp(a, "--cpolicy")) oscar__bg_cpolicy = atoi(v);
        else if (!strcmp(a, "--ccap")) oscar__bg_ccap = atoi(v);
        else if (!strcmp(a, "--wide") || !strcmp(a, "--small") || !strcmp(a, "--apdl") || !strcmp(a, "--wstag")) {
            if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
                fprintf(stderr, "bench --gpu: %s wants 0 (automatic), 1 (always) or 2 (never), not '%s'\n", a, v);
                return 2;
            }
            if (!strcmp(a, "--wide")) oscar__bg_wide = atoi(v);
            else if (!strcmp(a, "--small")) oscar__bg_small = atoi(v);
            else if (!strcmp(a, "--wstag")) oscar__bg_wstag = atoi(v);
            else oscar__bg_apdl = atoi(v);
        }
        else if (!strcmp(a, "--wlate") || !strcmp(a, "--wsplit")) { /* 0, 1 or 2 */
            if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
                fprintf(stderr, "bench --gpu: %s wants 0, 1 or 2, not '%s'\n", a, v);
                return 2;
            }
            *(!strcmp(a, "--wlate") ? &oscar__bg_wlate : &oscar__bg_wsplit) = atoi(v);
        }
        else if (!strcmp(a, "--wcarve")) oscar__bg_wcarve = atoi(v);
        else if (!strcmp(a, "--wtokens")) {
            char *end = NULL;
            const long t = strtol(v, &end, 10);
            if (!end || *end || t < 384 || t > 1048576) {
                fprintf(stderr, "bench --gpu: --wtokens wants a token count in [384, 1048576] (the sink, the window and a page at least), not '%s'\n", v);
                return 2;
            }
            oscar__bg_wtokens = (int)t;
        }
        else if (!strcmp(a, "--wchunks")) {
            int k;
            oscar__bg_nwchunks = oscar__bg_list(v, oscar__bg_wchunks, 16);
            for (k = 0; k < oscar__bg_nwchunks && oscar__bg_wchunks[k] > 0; k++) {}
            if (oscar__bg_nwchunks == 0 || k < oscar__bg_nwchunks) {
                fprintf(stderr, "bench --gpu: --wchunks wants token counts above 0 such as 2048,8192, not '%s'\n", v);
                return 2;
            }
        }
        else if (!strcmp(a, "--rot")) oscar__bg_rot = !strcmp(v, "none") ? 0 : !strcmp(v, "absorb") ? 2 : !strcmp(v, "dense") ? 3 : 1;
        else if (!strcmp(a, "--mode")) oscar__bg_modes = !strcmp(v, "bf16") ? 1 : !strcmp(v, "int2") ? 2 : !strcmp(v, "both") ? 3 : !strcmp(v, "write") ? 4 : 0;
        else {
            fprintf(stderr, "usage: oscar bench --gpu [--batch 1,4] [--ctx 8192,32768,131072] [--hq 32] [--hkv 8] [--dim 128] [--group 128] [--iters 50] [--device 0] [--csv FILE]\n");
            return 2;
        }
        i++;
    }
    if (nb < 1 || nc < 1 || Hq < 1 || Hkv < 1 || Hq % Hkv || iters < 1 || iters > 100000 || !oscar__bg_modes) {
        fprintf(stderr, "bench --gpu: bad arguments\n");
        return 2;
    }
    if (oscar__bg_mthreads < 0 || oscar__bg_mthreads > 512 || (oscar__bg_mthreads && d > 0 && oscar__bg_mthreads % d)) {
        fprintf(stderr, "bench --gpu: --mthreads wants 0 (automatic) or a multiple of the head dimension %d up to 512, not %d\n", d, oscar__bg_mthreads);
        return 2;
    }
    if (oscar__bg_modes == 4) oscar__bg_diag = 1;
    rc = oscar_cuda_init(&cu, &cc);
    if (rc) {
        printf("SKIP: GPU benchmark: %s: %s\n", oscar_result_string(rc), cu.msg);
        oscar_cuda_free(&cu);
        return 0;
    }
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("device: %s (sm_%d, %d SMs, %.1f GiB, L2 %d MiB), driver %d, NVRTC %d.%d, kernels as %s for sm_%d, %s\n", cu.name, cu.cc, cu.sm_count, (double)cu.total_mem / (1 << 30),
           cu.l2_bytes >> 20, cu.driver_version, cu.nvrtc_major, cu.nvrtc_minor, cu.ptx ? "PTX" : "CUBIN", cu.arch, date);
    bw = oscar__bg_copy(&cu, &copy_ms);
    printf("copy bandwidth: 1 GiB device-to-device in %.3f ms = %.0f GB/s (bytes read + written)\n", copy_ms, bw);
    printf("decode attention, Hq=%d Hkv=%d d=%d group=%d, sink 64 / window 256 / page 64, median of %d calls%s%s\n", Hq, Hkv, d, g, iters,
           cu.extra_options[0] ? ", NVRTC options: " : "", cu.extra_options);
    if (csv_path && !(csv = fopen(csv_path, "w"))) fprintf(stderr, "bench --gpu: cannot write %s\n", csv_path);
    if (csv) fprintf(csv, "mode,batch,context,hq,hkv,dim,group,time_us,min_us,b2b_us,kv_mb,gbs,copy_gbs,pct_copy,graph_us,host_us\n");
    printf("time_us: median of events around each call; b2b_us: %d calls back to back / %d; graph_us: the %d calls in one CUDA graph\n"
           "(best of 5 replays) / %d, without the host's launch submission, as an engine runs decode; GB/s: KV bytes read / time_us\n", iters, iters, iters, iters);
    printf("%-5s %5s %8s %6s %9s %9s %9s %9s %9s %7s %6s %8s\n", "mode", "batch", "context", "layers", "time_us", "min_us", "b2b_us", "graph_us", "KV_MB", "GB/s", "%copy", "vs_bf16");
    for (bi = 0; bi < nb; bi++)
        for (ci = 0; ci < nc; ci++) {
            oscar__bg_result r16, r2;
            int ok16, ok2;
            memset(&r16, 0, sizeof r16);
            memset(&r2, 0, sizeof r2);
            ok16 = (oscar__bg_modes & 1) && oscar__bg_run(&cu, 0, batches[bi], ctxs[ci], Hq, Hkv, d, g, iters, &r16) == OSCAR_OK;
            ok2 = (oscar__bg_modes & 2) && oscar__bg_run(&cu, 1, batches[bi], ctxs[ci], Hq, Hkv, d, g, iters, &r2) == OSCAR_OK;
            if (ok16)
                printf("%-5s %5d %8d %6d %9.1f %9.1f %9.1f %9.1f %9.2f %7.0f %5.0f%% %8s\n", "bf16", batches[bi], ctxs[ci], r16.layers, r16.us, r16.min_us, r16.pipe_us, r16.graph_us, r16.kv_mb,
                       r16.gbs, bw > 0 ? 100.0 * r16.gbs / bw : 0.0, "1.00x");
            if (ok2) {
                char sp[32] = "-";
                if (ok16) snprintf(sp, sizeof sp, "%.2fx", r16.us / r2.us);
                printf("%-5s %5d %8d %6d %9.1f %9.1f %9.1f %9.1f %9.2f %7.0f %5.0f%% %8s\n", "int2", batches[bi], ctxs[ci], r2.layers, r2.us, r2.min_us, r2.pipe_us, r2.graph_us, r2.kv_mb,
                       r2.gbs, bw > 0 ? 100.0 * r2.gbs / bw : 0.0, sp);
            }
            if (csv && ok16)
                fprintf(csv, "bf16,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.3f,%.1f,%.1f,%.2f,%.2f,%.2f\n", batches[bi], ctxs[ci], Hq, Hkv, d, g, r16.us, r16.min_us, r16.pipe_us, r16.kv_mb, r16.gbs, bw,
                        bw > 0 ? 100.0 * r16.gbs / bw : 0.0, r16.graph_us, r16.host_us);
            if (csv && ok2)
                fprintf(csv, "int2,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.3f,%.1f,%.1f,%.2f,%.2f,%.2f\n", batches[bi], ctxs[ci], Hq, Hkv, d, g, r2.us, r2.min_us, r2.pipe_us, r2.kv_mb, r2.gbs, bw,
                        bw > 0 ? 100.0 * r2.gbs / bw : 0.0, r2.graph_us, r2.host_us);
            if (csv) fflush(csv);
            free(r16.out);
            free(r2.out);
            r16.out = r2.out = NULL;
        }
    if (csv) fclose(csv);
    if (oscar__bg_diag) {
        oscar__bg_write(&cu, Hkv, d, g, oscar__bg_wtokens, bw, 0);
        oscar__bg_write(&cu, Hkv, d, g, oscar__bg_wtokens, bw, 1);
    }
    oscar_cuda_free(&cu);
    return 0;
}

#ifdef OSCAR_BENCH_GPU_MAIN
int main(int argc, char **argv) { return oscar_cli_bench_gpu(argc - 1, argv + 1); }
#endif
