/* synth.h - attention-like synthetic activations for oscar's tests, demo and benchmarks.

   Real post-RoPE keys have a few outlier channels with large, mostly constant magnitude and a
   shared dominant direction; queries are strongly anisotropic and look along the same directions
   the keys are large in. This generator reproduces that shape per KV head:
     k = mu_k + z . diag(s_k) . Qk       mu_k: big values on a few outlier channels plus a dense part
     q = z . diag(s_q) . Qq              s_q decays fast; Qq's first rows include mu_k's direction
     v = mu_v + z . diag(s_v) . Qv       values with their own outlier channels
   z is standard normal; Q* are random orthogonal matrices (Householder products).
   Everything is deterministic from the seed. Include after oscar.h; all functions are static. */
#ifndef OSCAR_SYNTH_H
#define OSCAR_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct synth_rng {
    uint64_t s;
    int have;
    double spare;
} synth_rng;

static uint64_t synth_u64(synth_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double synth_uniform(synth_rng *r) { return ((double)(synth_u64(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static double synth_normal(synth_rng *r) {
    double u, v;
    if (r->have) {
        r->have = 0;
        return r->spare;
    }
    u = synth_uniform(r);
    v = synth_uniform(r);
    r->spare = sqrt(-2.0 * log(u)) * sin(6.283185307179586 * v);
    r->have = 1;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Q: [d][d] random orthogonal (product of d Householder reflections of random normal vectors) */
static void synth_orthogonal(float *Q, int d, synth_rng *r) {
    double *M = (double *)malloc(sizeof(double) * (size_t)d * d), *u = (double *)malloc(sizeof(double) * (size_t)d);
    int i, j, k;
    for (i = 0; i < d * d; i++) M[i] = (i / d == i % d) ? 1.0 : 0.0;
    for (k = 0; k < d; k++) {
        double nrm = 0.0;
        for (i = 0; i < d; i++) {
            u[i] = synth_normal(r);
            nrm += u[i] * u[i];
        }
        nrm = sqrt(nrm);
        for (i = 0; i < d; i++) u[i] /= nrm;
        for (i = 0; i < d; i++) { /* M <- M (I - 2 u u^T) */
            double dot = 0.0;
            for (j = 0; j < d; j++) dot += M[i * d + j] * u[j];
            for (j = 0; j < d; j++) M[i * d + j] -= 2.0 * dot * u[j];
        }
    }
    for (i = 0; i < d * d; i++) Q[i] = (float)M[i];
    free(M);
    free(u);
}

typedef struct synth_head {
    float *Qk, *Qq, *Qv;       /* [d][d] */
    float *mu_k, *mu_v;        /* [d] */
    float *s_k, *s_q, *s_v;    /* [d] */
} synth_head;

typedef struct synth_model {
    int d, Hq, Hkv;
    synth_head *heads;         /* [Hkv] */
    float *qbias;              /* [Hq][d] per-query-head variation */
} synth_model;

static void synth_free(synth_model *m) {
    int j;
    if (!m->heads) return;
    for (j = 0; j < m->Hkv; j++) {
        synth_head *h = &m->heads[j];
        free(h->Qk); free(h->Qq); free(h->Qv); free(h->mu_k); free(h->mu_v); free(h->s_k); free(h->s_q); free(h->s_v);
    }
    free(m->heads);
    free(m->qbias);
    memset(m, 0, sizeof(*m));
}

static void synth_init(synth_model *m, int d, int Hq, int Hkv, uint64_t seed) {
    synth_rng r = {0, 0, 0.0};
    int j, i;
    r.s = seed;
    m->d = d;
    m->Hq = Hq;
    m->Hkv = Hkv;
    m->heads = (synth_head *)calloc((size_t)Hkv, sizeof(synth_head));
    m->qbias = (float *)calloc((size_t)Hq * d, sizeof(float));
    for (j = 0; j < Hkv; j++) {
        synth_head *h = &m->heads[j];
        double nrm = 0.0;
        h->Qk = (float *)malloc(sizeof(float) * (size_t)d * d);
        h->Qq = (float *)malloc(sizeof(float) * (size_t)d * d);
        h->Qv = (float *)malloc(sizeof(float) * (size_t)d * d);
        h->mu_k = (float *)calloc((size_t)d, sizeof(float));
        h->mu_v = (float *)calloc((size_t)d, sizeof(float));
        h->s_k = (float *)malloc(sizeof(float) * (size_t)d);
        h->s_q = (float *)malloc(sizeof(float) * (size_t)d);
        h->s_v = (float *)malloc(sizeof(float) * (size_t)d);
        synth_orthogonal(h->Qk, d, &r);
        synth_orthogonal(h->Qq, d, &r);
        synth_orthogonal(h->Qv, d, &r);
        /* key mean: four outlier channels of magnitude 6..12 plus a dense component */
        for (i = 0; i < 4; i++) h->mu_k[(int)(synth_u64(&r) % (uint64_t)d)] += (float)((6.0 + 6.0 * synth_uniform(&r)) * (i & 1 ? -1 : 1));
        for (i = 0; i < d; i++) h->mu_k[i] += (float)(0.4 * synth_normal(&r));
        for (i = 0; i < 2; i++) h->mu_v[(int)(synth_u64(&r) % (uint64_t)d)] += (float)(4.0 + 2.0 * synth_uniform(&r));
        for (i = 0; i < d; i++) {
            h->s_k[i] = (float)(0.3 + 1.2 * exp(-i / 8.0));
            h->s_q[i] = (float)(0.15 + 3.0 * exp(-i / 3.0));
            h->s_v[i] = (float)(0.4 + 1.0 * exp(-i / 16.0));
        }
        /* the queries' leading direction is the keys' mean direction */
        for (i = 0; i < d; i++) nrm += (double)h->mu_k[i] * h->mu_k[i];
        nrm = sqrt(nrm);
        for (i = 0; i < d; i++) h->Qq[i] = (float)(h->mu_k[i] / nrm);
        {   /* re-orthonormalise rows 1.. of Qq against row 0 (Gram-Schmidt in double) */
            int a, b;
            double *row = (double *)malloc(sizeof(double) * (size_t)d);
            for (a = 1; a < d; a++) {
                for (i = 0; i < d; i++) row[i] = h->Qq[a * d + i];
                for (b = 0; b < a; b++) {
                    double dot = 0.0;
                    for (i = 0; i < d; i++) dot += row[i] * h->Qq[b * d + i];
                    for (i = 0; i < d; i++) row[i] -= dot * h->Qq[b * d + i];
                }
                nrm = 0.0;
                for (i = 0; i < d; i++) nrm += row[i] * row[i];
                nrm = sqrt(nrm);
                for (i = 0; i < d; i++) h->Qq[a * d + i] = (float)(row[i] / nrm);
            }
            free(row);
        }
    }
    for (i = 0; i < Hq * d; i++) m->qbias[i] = (float)(0.2 * synth_normal(&r));
}

/* z . diag(s) . Q + mu for one row */
static void synth_row(float *out, const synth_head *h, const float *Q, const float *s, const float *mu, int d, synth_rng *r, double *z) {
    int i, j;
    for (i = 0; i < d; i++) z[i] = synth_normal(r) * s[i];
    for (j = 0; j < d; j++) out[j] = mu ? mu[j] : 0.0f;
    for (i = 0; i < d; i++) {
        const float *Qi = Q + (size_t)i * d;
        for (j = 0; j < d; j++) out[j] += (float)(z[i] * Qi[j]);
    }
    (void)h;
}

/* q: [n][Hq][d], k, v: [n][Hkv][d] (any may be NULL) */
static void synth_tokens(const synth_model *m, synth_rng *r, int n, float *q, float *k, float *v) {
    int t, j, g, i, d = m->d, G = m->Hq / m->Hkv;
    double *z = (double *)malloc(sizeof(double) * (size_t)d);
    for (t = 0; t < n; t++)
        for (j = 0; j < m->Hkv; j++) {
            const synth_head *h = &m->heads[j];
            if (k) synth_row(k + ((size_t)t * m->Hkv + j) * d, h, h->Qk, h->s_k, h->mu_k, d, r, z);
            if (v) synth_row(v + ((size_t)t * m->Hkv + j) * d, h, h->Qv, h->s_v, h->mu_v, d, r, z);
            if (q)
                for (g = 0; g < G; g++) {
                    float *qr = q + ((size_t)t * m->Hq + j * G + g) * d;
                    synth_row(qr, h, h->Qq, h->s_q, NULL, d, r, z);
                    for (i = 0; i < d; i++) qr[i] += m->qbias[(j * G + g) * d + i];
                }
        }
    free(z);
}

#endif
