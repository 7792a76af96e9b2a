/* Thread safety as documented: distinct objects on distinct threads at once. Each thread fits a
   rotation, fills its own cache and attends; results must equal a single-threaded run bit for bit.
   Built plain in `make test` and with -fsanitize=thread in `make tsan`. */
#define _XOPEN_SOURCE 700
#define OSCAR_IMPLEMENTATION
#include "../oscar.h"
#include "../cli/synth.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NT = 4, D = 32, HQ = 4, HKV = 2, NCAL = 256, NCTX = 700 };

typedef struct job {
    int id;
    float out[HQ * D];
    int rc;
} job;

static void *work(void *arg) {
    job *j = (job *)arg;
    synth_model m;
    synth_rng r = {0, 0, 0.0};
    oscar_calib c;
    oscar_rotations rot;
    oscar_kv kv;
    oscar_kv_config cfg;
    double sk[D * D], sv[D * D];
    float *q = (float *)malloc(sizeof(float) * NCAL * HQ * D), *k = (float *)malloc(sizeof(float) * NCTX * HKV * D), *v = (float *)malloc(sizeof(float) * NCTX * HKV * D);
    int seq = 0, fork = 0;
    r.s = 1000u + (uint64_t)j->id;
    synth_init(&m, D, HQ, HKV, 77u + (uint64_t)j->id);
    synth_tokens(&m, &r, NCAL, q, k, v);
    j->rc = oscar_calib_init(&c, D, HQ, HKV);
    if (!j->rc) j->rc = oscar_calib_add_q(&c, q, NCAL);
    if (!j->rc) j->rc = oscar_calib_add_kv(&c, k, v, NCAL);
    if (!j->rc) j->rc = oscar_calib_targets(&c, -1, sk, sv);
    if (!j->rc) j->rc = oscar_rotations_alloc(&rot, 1, D, HKV, 0);
    if (!j->rc) j->rc = oscar_rotation_fit(rot.k_rot, rot.k_eval, sk, D, OSCAR_COMP_R_H_PBR);
    if (!j->rc) j->rc = oscar_rotation_fit(rot.v_rot, rot.v_eval, sv, D, OSCAR_COMP_R_H_PBR);
    synth_tokens(&m, &r, NCTX, NULL, k, v);
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1; cfg.n_kv_heads = HKV; cfg.head_dim = D; cfg.mode = OSCAR_KV_INT2; cfg.rot = &rot;
    if (!j->rc) j->rc = oscar_kv_init(&kv, &cfg);
    if (!j->rc) j->rc = oscar_kv_seq_create(&kv, &seq);
    if (!j->rc) j->rc = oscar_kv_append(&kv, seq, 0, k, v, NCTX / 2);
    if (!j->rc) j->rc = oscar_kv_seq_fork(&kv, seq, &fork);
    if (!j->rc) j->rc = oscar_kv_append(&kv, fork, 0, k + (size_t)(NCTX / 2) * HKV * D, v + (size_t)(NCTX / 2) * HKV * D, NCTX - NCTX / 2);
    if (!j->rc) j->rc = oscar_kv_attend(&kv, fork, 0, j->out, q, HQ, 0.0f);
    oscar_kv_free(&kv);
    oscar_rotations_free(&rot);
    oscar_calib_free(&c);
    synth_free(&m);
    free(q); free(k); free(v);
    return NULL;
}

int main(void) {
    job serial[NT], par[NT];
    pthread_t th[NT];
    int i, bad = 0;
    for (i = 0; i < NT; i++) {
        serial[i].id = par[i].id = i;
        work(&serial[i]);
    }
    for (i = 0; i < NT; i++) pthread_create(&th[i], NULL, work, &par[i]);
    for (i = 0; i < NT; i++) pthread_join(th[i], NULL);
    for (i = 0; i < NT; i++)
        if (serial[i].rc || par[i].rc || memcmp(serial[i].out, par[i].out, sizeof par[i].out)) bad++;
    printf("threads: %d threads on separate caches, %d differ from the serial run\n", NT, bad);
    return bad ? 1 : 0;
}
