#define _XOPEN_SOURCE 700
/* Unit tests of oscar.h, the CPU reference. Fresh random inputs from a fixed seed; every check
   states its tolerance. Run: make test (or make asan for the sanitizer build). */
#define OSCAR_IMPLEMENTATION
#include "../oscar.h"
#include "../cli/synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_checks, n_failed;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        n_checks++;                                                       \
        if (!(cond)) {                                                    \
            n_failed++;                                                   \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);        \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
        }                                                                 \
    } while (0)

static synth_rng rng = {0x5eed1234u, 0, 0.0};

static void fill_normal(float *x, size_t n, double scale) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = (float)(synth_normal(&rng) * scale);
}

static char tmpdir[256];
static const char *tmp_path(const char *name) {
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* ---- numbers ---- */
static void test_numbers(void) {
    unsigned h;
    int bad = 0;
    for (h = 0; h < 65536; h++) { /* every finite fp16 survives f16 -> f32 -> f16 */
        uint16_t x = (uint16_t)h;
        if ((x & 0x7c00) == 0x7c00) continue;
        if (oscar_f32_to_f16(oscar_f16_to_f32(x)) != x) bad++;
    }
    CHECK(bad == 0, "%d fp16 values did not round-trip", bad);
    CHECK(oscar_f32_to_f16(1.0f) == 0x3c00, "1.0");
    CHECK(oscar_f32_to_f16(65504.0f) == 0x7bff, "max");
    CHECK(oscar_f32_to_f16(65520.0f) == 0x7c00, "65520 rounds to inf");
    CHECK(oscar_f32_to_f16(1.0f + 1.0f / 2048.0f) == 0x3c00, "tie to even (down)");
    CHECK(oscar_f32_to_f16(1.0f + 3.0f / 2048.0f) == 0x3c02, "tie to even (up)");
    CHECK(oscar_f32_to_f16(5.9604645e-8f) == 0x0001, "smallest subnormal");
    CHECK(oscar_f32_to_f16(2.98023224e-8f) == 0x0000, "half the smallest subnormal ties to zero");
    CHECK(oscar_f32_to_f16(-4.0f / 3.0f) == 0xbd55, "-4/3");
    CHECK(oscar_f32_to_bf16(1.0f) == 0x3f80, "bf16 1.0");
    CHECK(oscar_f32_to_bf16(1.00390625f) == 0x3f80, "bf16 tie to even");
    CHECK(oscar_f32_to_bf16(1.01171875f) == 0x3f82, "bf16 tie up to even");
    CHECK(oscar_bf16_to_f32(0xc000) == -2.0f, "bf16 -2");
}

/* ---- Walsh-Hadamard ---- */
static void test_wht(void) {
    int d;
    for (d = 1; d <= 256; d *= 2) {
        float *H = (float *)malloc(sizeof(float) * d * d), *x = (float *)malloc(sizeof(float) * d), *y = (float *)malloc(sizeof(float) * d);
        double err = 0.0, inv = 0.0;
        int i, j;
        CHECK(oscar_hadamard_matrix(H, d) == OSCAR_OK, "d=%d", d);
        fill_normal(x, (size_t)d, 1.0);
        memcpy(y, x, sizeof(float) * d);
        oscar_wht(y, d);
        for (j = 0; j < d; j++) {
            double s = 0.0;
            for (i = 0; i < d; i++) s += (double)x[i] * H[i * d + j];
            if (fabs(s - y[j]) > err) err = fabs(s - y[j]);
        }
        CHECK(err <= 1e-5, "d=%d: fast WHT differs from x.H by %g", d, err);
        oscar_wht(y, d);
        for (i = 0; i < d; i++)
            if (fabs(y[i] - x[i]) > inv) inv = fabs(y[i] - x[i]);
        CHECK(inv <= 1e-5, "d=%d: WHT is not an involution (%g)", d, inv);
        CHECK(oscar_rotation_orth_error(H, d) <= 1e-6, "d=%d: H not orthogonal", d);
        free(H);
        free(x);
        free(y);
    }
    CHECK(oscar_hadamard_matrix(NULL, 8) == OSCAR_ERR_NULL, "null");
    CHECK(oscar_hadamard_matrix((float *)&d, 12) == OSCAR_ERR_DIM, "d=12");
}

static void test_bitrev(void) {
    static const int br8[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    int i, d, ok = 1;
    for (i = 0; i < 8; i++) CHECK(oscar_bitrev(i, 8) == br8[i], "br(%d)", i);
    CHECK(oscar_bitrev(1, 128) == 64 && oscar_bitrev(3, 256) == 192, "bitrev 128/256");
    CHECK(oscar_bitrev(1, 12) == -1 && oscar_bitrev(8, 8) == -1, "bitrev bad input");
    oscar_wht(NULL, 8); /* bad input: no effect, no crash */
    oscar_rotate_rows(NULL, NULL, NULL, 1, 8, 0);
    oscar_int2_dequantize_row(NULL, NULL, NULL, 8, 8);
    for (d = 2; d <= 256; d *= 2) {
        int *seen = (int *)calloc((size_t)d, sizeof(int));
        for (i = 0; i < d; i++) {
            int b = oscar_bitrev(i, d);
            if (b < 0 || b >= d || seen[b] || oscar_bitrev(b, d) != i) ok = 0;
            else seen[b] = 1;
        }
        free(seen);
    }
    CHECK(ok, "bit reversal is a permutation and an involution");
}

/* ---- Jacobi ---- */
static void jacobi_case(const char *what, const double *S, int d) {
    double *U = (double *)malloc(sizeof(double) * d * d), *ev = (double *)malloc(sizeof(double) * d);
    double res = 0.0, nrm = 0.0, orth = 0.0;
    int i, j, k, rc, sorted = 1;
    rc = oscar_jacobi_eig(U, ev, S, d, NULL);
    CHECK(rc == OSCAR_OK, "%s d=%d: rc %d", what, d, rc);
    for (i = 0; i < d; i++)
        for (j = 0; j < d; j++) {
            double su = 0.0, uu = 0.0;
            for (k = 0; k < d; k++) {
                su += S[i * d + k] * U[k * d + j];
                uu += U[k * d + i] * U[k * d + j];
            }
            su -= U[i * d + j] * ev[j];
            res += su * su;
            nrm += S[i * d + j] * S[i * d + j];
            if (fabs(uu - (i == j)) > orth) orth = fabs(uu - (i == j));
        }
    for (i = 1; i < d; i++)
        if (ev[i] > ev[i - 1]) sorted = 0;
    CHECK(sqrt(res) <= 1e-10 * sqrt(nrm), "%s d=%d: ||SU-UL|| = %g, ||S|| = %g", what, d, sqrt(res), sqrt(nrm));
    CHECK(orth <= 1e-12, "%s d=%d: ||U^T U - I||_max = %g", what, d, orth);
    CHECK(sorted, "%s d=%d: eigenvalues not descending", what, d);
    free(U);
    free(ev);
}

static void test_jacobi(void) {
    int d;
    for (d = 64; d <= 256; d *= 2) {
        double *S = (double *)calloc((size_t)d * d, sizeof(double)), *Q = (double *)malloc(sizeof(double) * d * d);
        float *Qf = (float *)malloc(sizeof(float) * d * d);
        int i, j, k;
        for (i = 0; i < d; i++) /* random symmetric */
            for (j = i; j < d; j++) S[i * d + j] = S[j * d + i] = synth_normal(&rng);
        jacobi_case("random", S, d);
        synth_orthogonal(Qf, d, &rng); /* repeated eigenvalues: Q diag(3,3,3,...,1,1,...,0,0) Q^T */
        for (i = 0; i < d * d; i++) Q[i] = Qf[i];
        for (i = 0; i < d; i++)
            for (j = 0; j < d; j++) {
                double s = 0.0;
                for (k = 0; k < d; k++) s += Q[i * d + k] * (k < d / 4 ? 3.0 : (k < d / 2 ? 1.0 : 0.0)) * Q[j * d + k];
                S[i * d + j] = s;
            }
        jacobi_case("repeated", S, d);
        memset(S, 0, sizeof(double) * d * d); /* diagonal */
        for (i = 0; i < d; i++) S[i * d + i] = synth_normal(&rng);
        jacobi_case("diagonal", S, d);
        memset(S, 0, sizeof(double) * d * d);
        jacobi_case("zero", S, d);
        free(S);
        free(Q);
        free(Qf);
    }
    {
        double S[4] = {1, 0, 0, NAN}, U[4], e[2];
        CHECK(oscar_jacobi_eig(U, e, S, 2, NULL) == OSCAR_ERR_NONFINITE, "NaN rejected");
        CHECK(oscar_jacobi_eig(NULL, e, S, 2, NULL) == OSCAR_ERR_NULL, "null rejected");
    }
}

/* ---- calibration statistics against a naive double loop ---- */
static void test_calib(void) {
    int d = 16, Hq = 6, Hkv = 2, n = 75, G = Hq / Hkv, j, a, b, t, h, per_head;
    float *q = (float *)malloc(sizeof(float) * n * Hq * d), *k = (float *)malloc(sizeof(float) * n * Hkv * d), *v = (float *)malloc(sizeof(float) * n * Hkv * d);
    double *Sq = (double *)calloc((size_t)Hkv * d * d, sizeof(double)), *Sv = (double *)calloc((size_t)Hkv * d * d, sizeof(double));
    double *sk = (double *)malloc(sizeof(double) * d * d), *sv = (double *)malloc(sizeof(double) * d * d);
    oscar_calib c;
    fill_normal(q, (size_t)n * Hq * d, 1.0);
    fill_normal(k, (size_t)n * Hkv * d, 1.0);
    fill_normal(v, (size_t)n * Hkv * d, 1.0);
    for (j = 0; j < Hkv; j++) {
        double W = 0.0, *w = (double *)malloc(sizeof(double) * n);
        for (a = 0; a < d; a++)
            for (b = 0; b < d; b++) {
                double s = 0.0;
                for (t = 0; t < n; t++)
                    for (h = j * G; h < (j + 1) * G; h++) s += (double)q[(t * Hq + h) * d + a] * q[(t * Hq + h) * d + b];
                Sq[(j * d + a) * d + b] = s / (n * G);
            }
        for (t = 0; t < n; t++) {
            double s = 0.0;
            for (a = 0; a < d; a++)
                for (b = 0; b < d; b++) s += k[(t * Hkv + j) * d + a] * Sq[(j * d + a) * d + b] * k[(t * Hkv + j) * d + b];
            w[t] = s;
            W += s;
        }
        for (t = 0; t < n; t++) w[t] *= n / W;
        for (a = 0; a < d; a++)
            for (b = 0; b < d; b++) {
                double s = 0.0;
                for (t = 0; t < n; t++) s += w[t] * v[(t * Hkv + j) * d + a] * v[(t * Hkv + j) * d + b];
                Sv[(j * d + a) * d + b] = s / n;
            }
        free(w);
    }
    CHECK(oscar_calib_init(&c, d, Hq, Hkv) == OSCAR_OK, "%s", c.msg);
    CHECK(oscar_calib_add_kv(&c, k, v, n) == OSCAR_ERR_STATE, "keys before queries must be refused");
    /* stream in uneven chunks */
    CHECK(oscar_calib_add_q(&c, q, 10) == OSCAR_OK && oscar_calib_add_q(&c, q + 10 * Hq * d, n - 10) == OSCAR_OK, "%s", c.msg);
    CHECK(oscar_calib_add_kv(&c, k, v, 33) == OSCAR_OK && oscar_calib_add_kv(&c, k + 33 * Hkv * d, v + 33 * Hkv * d, n - 33) == OSCAR_OK, "%s", c.msg);
    CHECK(oscar_calib_add_q(&c, q, 1) == OSCAR_ERR_STATE, "queries after keys must be refused");
    for (per_head = -1; per_head < Hkv; per_head++) {
        double ek = 0.0, ev = 0.0, nk = 0.0, nv = 0.0;
        CHECK(oscar_calib_targets(&c, per_head, sk, sv) == OSCAR_OK, "%s", c.msg);
        for (a = 0; a < d * d; a++) {
            double rk = 0.0, rv = 0.0;
            for (j = (per_head < 0 ? 0 : per_head); j < (per_head < 0 ? Hkv : per_head + 1); j++) {
                rk += Sq[j * d * d + a] / (per_head < 0 ? Hkv : 1);
                rv += Sv[j * d * d + a] / (per_head < 0 ? Hkv : 1);
            }
            ek = fmax(ek, fabs(sk[a] - rk));
            ev = fmax(ev, fabs(sv[a] - rv));
            nk = fmax(nk, fabs(rk));
            nv = fmax(nv, fabs(rv));
        }
        CHECK(ek <= 1e-12 * nk && ev <= 1e-12 * nv, "head %d: Sk err %g (of %g), Sv err %g (of %g)", per_head, ek, nk, ev, nv);
    }
    q[5] = NAN;
    oscar_calib_free(&c);
    oscar_calib_init(&c, d, Hq, Hkv);
    CHECK(oscar_calib_add_q(&c, q, n) == OSCAR_ERR_NONFINITE && c.msg[0], "NaN query rejected");
    oscar_calib_free(&c);
    CHECK(oscar_calib_init(&c, 12, Hq, Hkv) == OSCAR_ERR_DIM, "d=12");
    CHECK(oscar_calib_init(&c, 16, 5, 2) == OSCAR_ERR_SHAPE, "GQA 5/2");
    oscar_calib_free(&c);
    free(q); free(k); free(v); free(Sq); free(Sv); free(sk); free(sv);
}

/* ---- fitting: every composition orthogonal; r_h_pbr built as U.H.P by explicit matrices ---- */
static void test_fit(void) {
    int d, comp;
    for (d = 16; d <= 256; d *= 4) {
        double *S = (double *)malloc(sizeof(double) * d * d), *U = (double *)malloc(sizeof(double) * d * d), *ev = (double *)malloc(sizeof(double) * d);
        float *R = (float *)malloc(sizeof(float) * d * d), *H = (float *)malloc(sizeof(float) * d * d), *evf = (float *)malloc(sizeof(float) * d);
        float *A = (float *)malloc(sizeof(float) * d * d);
        int i, j, k;
        double err = 0.0;
        fill_normal(A, (size_t)d * d, 1.0);
        for (i = 0; i < d; i++) /* S = A^T A: a covariance */
            for (j = 0; j < d; j++) {
                double s = 0.0;
                for (k = 0; k < d; k++) s += (double)A[k * d + i] * A[k * d + j];
                S[i * d + j] = s;
            }
        for (comp = 0; comp < 4; comp++) {
            CHECK(oscar_rotation_fit(R, evf, S, d, comp) == OSCAR_OK, "comp %d", comp);
            CHECK(oscar_rotation_orth_error(R, d) <= 1e-6, "d=%d %s: orthogonality %g", d, oscar_composition_name(comp), oscar_rotation_orth_error(R, d));
        }
        oscar_rotation_fit(R, evf, S, d, OSCAR_COMP_R_H_PBR);
        oscar_jacobi_eig(U, ev, S, d, NULL);
        oscar_hadamard_matrix(H, d);
        for (i = 0; i < d; i++)
            for (j = 0; j < d; j++) { /* (U H P)[i][j] = (U H)[i][perm[j]], perm[br(r)] = r */
                int col = oscar_bitrev(j, d);
                double s = 0.0;
                for (k = 0; k < d; k++) s += U[i * d + k] * H[k * d + col];
                err = fmax(err, fabs(s - R[i * d + j]));
            }
        CHECK(err <= 1e-6, "d=%d: r_h_pbr differs from explicit U.H.P by %g", d, err);
        for (i = 0; i < d; i++) err = fmax(err, fabs(evf[i] - ev[i]) / (fabs(ev[0]) + 1e-30));
        CHECK(err <= 1e-6, "eigenvalues in U's column order");
        free(S); free(U); free(ev); free(R); free(H); free(evf); free(A);
    }
    CHECK(oscar_composition_parse("r_h_pbr") == 0 && oscar_composition_parse("plain") == 3 && oscar_composition_parse("x") == -1, "names");
}

/* ---- the K balance (oscar_rotation_eigvecs, oscar_balance_fit, oscar_balance_matrices) ---- */
/* S <- Q diag(lam) Q^T (Q [d][d] orthogonal, columns the directions) */
static void spd_from(double *S, const float *Q, const double *lam, int d) {
    int i, j, k;
    for (i = 0; i < d; i++)
        for (j = 0; j < d; j++) {
            double t = 0.0;
            for (k = 0; k < d; k++) t += (double)Q[i * d + k] * lam[k] * Q[j * d + k];
            S[i * d + j] = t;
        }
}

static void test_balance_math(void) {
    int d;
    for (d = 16; d <= 128; d *= 2) {
        double *Sq = (double *)malloc(sizeof(double) * d * d), *Ck = (double *)malloc(sizeof(double) * d * d);
        double *U = (double *)malloc(sizeof(double) * d * d), *Uj = (double *)malloc(sizeof(double) * d * d), *ev = (double *)malloc(sizeof(double) * d);
        double lam[128], kap[128], err = 0.0, smax = 0.0;
        float *Q = (float *)malloc(sizeof(float) * d * d), *R = (float *)malloc(sizeof(float) * d * d), *evf = (float *)malloc(sizeof(float) * d);
        float *A = (float *)malloc(sizeof(float) * d * d), *B = (float *)malloc(sizeof(float) * d * d), s[128], want[128];
        int i, j, k, comp;
        synth_orthogonal(Q, d, &rng);
        for (i = 0; i < d; i++) lam[i] = exp(3.0 * synth_normal(&rng)); /* eigenvalues over orders of magnitude */
        lam[d - 1] = 0.0;                                                  /* and one direction queries never take */
        spd_from(Sq, Q, lam, d);
        synth_orthogonal(Q, d, &rng); /* keys spread along other directions */
        for (i = 0; i < d; i++) kap[i] = exp(synth_normal(&rng));
        spd_from(Ck, Q, kap, d);
        CHECK(oscar_jacobi_eig(Uj, ev, Sq, d, NULL) == OSCAR_OK, "jacobi");
        for (comp = 0; comp < 4; comp += 3) { /* r_h_pbr and plain give U back from R */
            CHECK(oscar_rotation_fit(R, evf, Sq, d, comp) == OSCAR_OK, "fit");
            CHECK(oscar_rotation_eigvecs(U, R, evf, d, comp) == OSCAR_OK, "eigvecs");
            for (err = 0.0, i = 0; i < d * d; i++) err = fmax(err, fabs(U[i] - Uj[i]));
            CHECK(err <= 1e-6, "d=%d %s: U from R differs from Jacobi's by %g", d, oscar_composition_name(comp), err);
        }
        CHECK(oscar_rotation_eigvecs(U, R, evf, d, OSCAR_COMP_HADAMARD) == OSCAR_ERR_INVALID_ARG, "hadamard has no U");
        CHECK(oscar_rotation_fit(R, evf, Sq, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "fit");
        /* the balance against the formula in double: s_i ~ (lambda_i / kappa_i)^(1/4), floors, max 1 */
        CHECK(oscar_balance_fit(s, R, evf, Ck, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "balance_fit");
        for (i = 0; i < d; i++) {
            double kp = 0.0, l = fmax(ev[i], 1e-9 * ev[0]), kmax = 0.0;
            for (j = 0; j < d; j++)
                for (k = 0; k < d; k++) kp += Uj[j * d + i] * Ck[j * d + k] * Uj[k * d + i];
            for (j = 0; j < d; j++) kmax = fmax(kmax, kap[j]);
            want[i] = (float)pow(l / fmax(kp, 1e-9 * kmax), 0.25);
            smax = fmax(smax, want[i]);
        }
        for (err = 0.0, i = 0; i < d; i++) {
            const double w = fmax(want[i] / smax, 1.0 / 256);
            err = fmax(err, fabs(s[i] - w) / w);
        }
        CHECK(err <= 1e-5, "d=%d: balance differs from the formula by a relative %g", d, err);
        for (smax = 0.0, i = 0; i < d; i++) smax = fmax(smax, s[i]);
        CHECK(smax == 1.0 && s[d - 1] >= 1.0f / 256 && s[d - 1] < 0.1f, "d=%d: scaled to max 1 (%g); lambda = 0 floored, small but >= 1/256 (%g)", d, smax, s[d - 1]);
        /* A B^T = I: every score survives; A = U diag(s) U^T R */
        CHECK(oscar_balance_matrices(A, B, R, evf, s, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "matrices");
        for (err = 0.0, i = 0; i < d; i++)
            for (j = 0; j < d; j++) {
                double t = 0.0;
                for (k = 0; k < d; k++) t += (double)A[i * d + k] * B[j * d + k];
                err = fmax(err, fabs(t - (i == j)));
            }
        CHECK(err <= 2e-3 * 256 / d, "d=%d: A B^T differs from I by %g (fp32 entries, 1/s up to 256)", d, err);
        for (err = 0.0, i = 0; i < d; i++)
            for (j = 0; j < d; j++) {
                double t = 0.0;
                int m;
                for (k = 0; k < d; k++)
                    for (m = 0; m < d; m++) t += Uj[i * d + k] * s[k] * Uj[m * d + k] * R[m * d + j];
                err = fmax(err, fabs(t - A[i * d + j]));
            }
        CHECK(err <= 1e-5, "d=%d: A differs from U diag(s) U^T R by %g", d, err);
        s[3] = 0.0f;
        CHECK(oscar_balance_matrices(A, B, R, evf, s, d, OSCAR_COMP_R_H_PBR) == OSCAR_ERR_RANGE, "s = 0 refused");
        s[3] = 1.5f;
        CHECK(oscar_balance_matrices(A, B, R, evf, s, d, OSCAR_COMP_R_H_PBR) == OSCAR_ERR_RANGE, "s > 1 refused");
        for (i = 0; i < d * d; i++) Ck[i] = 0.0;
        CHECK(oscar_balance_fit(s, R, evf, Ck, d, OSCAR_COMP_R_H_PBR) == OSCAR_ERR_RANGE, "keys without energy refused");
        Ck[0] = NAN;
        CHECK(oscar_balance_fit(s, R, evf, Ck, d, OSCAR_COMP_R_H_PBR) == OSCAR_ERR_NONFINITE, "NaN refused");
        free(Sq); free(Ck); free(U); free(Uj); free(ev); free(Q); free(R); free(evf); free(A); free(B);
    }
}

/* ---- INT2 codec ---- */
static void test_codec_golden(void) {
    /* row 1: d=8, g=8, no clip. mn=-1, scale=4/3 -> fp16 0x3d55 (1.3330078), codes 1,2,2,3,1,2,3,0 */
    static const float r1[8] = {0.0f, 1.0f, 2.0f, 3.0f, 0.4f, 1.6f, 2.5f, -1.0f};
    /* row 2: d=8, g=4, clip 0.75: idx 6 of sorted |x| = 2 -> x clamped to [-2, 2];
       group 0 {2,-.5,.25,1}: scale 0x3aab, mn 0xb800, codes 3,0,1,2;
       group 1 {-2,.75,0,.5}: scale 0x3b55, mn 0xc000, codes 0,3,2,3 */
    static const float r2[8] = {10.0f, -0.5f, 0.25f, 1.0f, -2.0f, 0.75f, 0.0f, 0.5f};
    static const float r3[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    uint8_t c[2];
    uint16_t sm[4];
    float x[8];
    CHECK(oscar_int2_quantize_row(c, sm, r1, 8, 8, 0.0f) == OSCAR_OK, "row 1");
    CHECK(c[0] == 0xd9 && c[1] == 0x2e, "row 1 codes %02x %02x", c[0], c[1]);
    CHECK(sm[0] == 0x3d55 && sm[1] == 0xbc00, "row 1 scale/min %04x %04x", sm[0], sm[1]);
    oscar_int2_dequantize_row(x, c, sm, 8, 8);
    CHECK(x[7] == -1.0f && fabsf(x[3] - (-1.0f + 3 * 1.3330078125f)) < 1e-7f, "row 1 dequant");
    CHECK(oscar_int2_quantize_row(c, sm, r2, 8, 4, 0.75f) == OSCAR_OK, "row 2");
    CHECK(c[0] == 0x87 && c[1] == 0xf8, "row 2 codes %02x %02x", c[0], c[1]);
    CHECK(sm[0] == 0x3aab && sm[1] == 0xb800 && sm[2] == 0x3b55 && sm[3] == 0xc000, "row 2 scale/min %04x %04x %04x %04x", sm[0], sm[1], sm[2], sm[3]);
    CHECK(oscar_int2_quantize_row(c, sm, r3, 8, 8, 0.96f) == OSCAR_OK, "row 3");
    CHECK(c[0] == 0 && c[1] == 0 && sm[0] == 0 && sm[1] == 0x3800, "constant row: scale 0, codes 0");
    CHECK(oscar_int2_clip_threshold(r2, 8, 0.75f) == 2.0f, "clip threshold");
    CHECK(oscar_int2_clip_threshold(r2, 8, 1.0f) == 10.0f && isinf(oscar_int2_clip_threshold(r2, 8, -1.0f)), "clip 1 / off");
}

static void test_codec_random(void) {
    int d, g, trial, bad = 0, checked = 0;
    for (d = 4; d <= 256; d *= 2)
        for (g = 1; g <= d; g *= 2)
            for (trial = 0; trial < 20; trial++) {
                float x[256], y[256], thr;
                uint8_t c[64];
                uint16_t sm[512];
                float clip = trial % 3 == 0 ? -1.0f : (trial % 3 == 1 ? 0.96f : 0.92f);
                int i;
                fill_normal(x, (size_t)d, trial % 2 ? 5.0 : 0.1);
                x[trial % d] *= 20.0f; /* an outlier channel */
                CHECK(oscar_int2_quantize_row(c, sm, x, d, g, clip) == OSCAR_OK, "d=%d g=%d", d, g);
                oscar_int2_dequantize_row(y, c, sm, d, g);
                thr = oscar_int2_clip_threshold(x, d, clip);
                for (i = 0; i < d; i++) {
                    float sc = oscar_f16_to_f32(sm[2 * (i / g)]);
                    float mn = oscar_f16_to_f32(sm[2 * (i / g) + 1]);
                    float xc = x[i] > thr ? thr : (x[i] < -thr ? -thr : x[i]);
                    /* the group's true min, to bound the fp16 rounding of mn */
                    float tmn = xc;
                    int k;
                    for (k = (i / g) * g; k < (i / g + 1) * g; k++) {
                        float v = x[k] > thr ? thr : (x[k] < -thr ? -thr : x[k]);
                        if (v < tmn) tmn = v;
                    }
                    checked++;
                    if (!(fabsf(xc - y[i]) <= sc * 0.5f + fabsf(tmn - mn) + 3.0f * sc * 1e-3f + 1e-6f)) bad++;
                }
            }
    CHECK(bad == 0, "%d of %d values beyond scale/2 + fp16 rounding", bad, checked);
    {
        float x[8] = {1, 2, 3, 4, 5, 6, 7, NAN}, big[8] = {1e6f, -1e6f, 0, 0, 0, 0, 0, 0};
        uint8_t c[2] = {0xaa, 0xbb};
        uint16_t sm[2] = {0x1234, 0x5678};
        CHECK(oscar_int2_quantize_row(c, sm, x, 8, 8, 0.96f) == OSCAR_ERR_NONFINITE, "NaN");
        CHECK(oscar_int2_quantize_row(c, sm, big, 8, 8, -1.0f) == OSCAR_ERR_RANGE, "fp16 overflow");
        CHECK(c[0] == 0xaa && c[1] == 0xbb && sm[0] == 0x1234 && sm[1] == 0x5678, "failed rows leave outputs untouched");
        CHECK(oscar_int2_quantize_row(c, sm, x, 12, 4, 0.96f) == OSCAR_ERR_DIM, "d=12");
        CHECK(oscar_int2_quantize_row(c, sm, x, 8, 3, 0.96f) == OSCAR_ERR_DIM, "g=3");
        CHECK(oscar_int2_quantize_row(NULL, sm, x, 8, 8, 0.96f) == OSCAR_ERR_NULL, "null");
    }
}

/* OSCAR_INT2_GAIN: same codes, (scale, min) times gamma = sum x^2 / sum x . x^ per group, so that the
   dequantised group keeps the row's projection onto itself */
static void test_codec_gain(void) {
    int d, g, trial, bad_codes = 0, bad_proj = 0, groups = 0, shrunk = 0;
    for (d = 4; d <= 256; d *= 2)
        for (g = 2; g <= d; g *= 2)
            for (trial = 0; trial < 12; trial++) {
                float x[256], y0[256], y1[256];
                uint8_t c0[64], c1[64];
                uint16_t s0[256], s1[256];
                float clip = trial % 3 == 0 ? -1.0f : (trial % 3 == 1 ? 0.96f : 0.75f);
                int k, i;
                fill_normal(x, (size_t)d, trial % 2 ? 3.0 : 0.05);
                x[(trial * 7) % d] *= 12.0f; /* an outlier the clip cuts */
                CHECK(oscar_int2_quantize_row_ex(c0, s0, x, d, g, clip, 0) == OSCAR_OK, "d=%d g=%d", d, g);
                CHECK(oscar_int2_quantize_row_ex(c1, s1, x, d, g, clip, OSCAR_INT2_GAIN) == OSCAR_OK, "gain d=%d g=%d", d, g);
                if (memcmp(c0, c1, (size_t)d / 4)) bad_codes++;
                oscar_int2_dequantize_row(y0, c0, s0, d, g);
                oscar_int2_dequantize_row(y1, c1, s1, d, g);
                for (k = 0; k < d / g; k++) {
                    double xx = 0, x0 = 0, x1 = 0, gam;
                    for (i = k * g; i < (k + 1) * g; i++) {
                        xx += (double)x[i] * x[i];
                        x0 += (double)x[i] * y0[i];
                        x1 += (double)x[i] * y1[i];
                    }
                    groups++;
                    gam = x0 > 0 ? xx / x0 : 1.0;
                    if (gam > 1.001) shrunk++;
                    if (x0 <= 0 || gam < 0.5 || gam > 2.0) { /* gamma 1 or clamped: the pair is f16(gamma * pair) */
                        double gc = x0 <= 0 ? 1.0 : (gam < 0.5 ? 0.5 : 2.0);
                        if (s1[2 * k] != oscar_f32_to_f16((float)(oscar_f16_to_f32(s0[2 * k]) * gc))) bad_proj++;
                        continue;
                    }
                    /* x . x^ = |x|^2 up to the fp16 rounding of scale and min (2^-11 each, relative) */
                    if (!(fabs(x1 - xx) <= 2.5e-3 * xx + 1e-12)) bad_proj++;
                }
            }
    CHECK(bad_codes == 0, "%d rows: the gain changed codes", bad_codes);
    CHECK(bad_proj == 0, "%d of %d groups: x . x^ != |x|^2 after the gain", bad_proj, groups);
    CHECK(shrunk > groups / 4, "only %d of %d groups were shrunk by the codec (the test needs shrunk rows)", shrunk, groups);
    {
        /* a constant group: exact already, gamma 1; a zero group: left alone */
        static const float r3[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, z[8] = {0};
        /* clip 0.75 cuts 2e5 to 6e4; gamma * 6e4 leaves fp16, so the pair stays the plain codec's */
        static const float big[8] = {-60000.f, -60000.f, -60000.f, -60000.f, 60000.f, 60000.f, 60000.f, 200000.f};
        float x[8] = {1, 2, 3, 4, 5, 6, 7, NAN};
        uint8_t c[2], c2[2];
        uint16_t sm[2], sm2[2] = {0x1234, 0x5678};
        CHECK(oscar_int2_quantize_row_ex(c, sm, r3, 8, 8, 0.96f, OSCAR_INT2_GAIN) == OSCAR_OK && sm[0] == 0 && sm[1] == 0x3800, "constant row");
        CHECK(oscar_int2_quantize_row_ex(c, sm, z, 8, 8, 0.96f, OSCAR_INT2_GAIN) == OSCAR_OK && sm[0] == 0 && sm[1] == 0, "zero row");
        CHECK(oscar_int2_quantize_row_ex(c, sm, big, 8, 8, 0.75f, 0) == OSCAR_OK, "big row");
        CHECK(oscar_int2_quantize_row_ex(c2, sm2, big, 8, 8, 0.75f, OSCAR_INT2_GAIN) == OSCAR_OK && !memcmp(sm, sm2, sizeof sm) && !memcmp(c, c2, 2),
              "a gain that would overflow fp16 is dropped: %04x %04x vs %04x %04x", sm2[0], sm2[1], sm[0], sm[1]);
        sm2[0] = 0x1234;
        CHECK(oscar_int2_quantize_row_ex(c2, sm2, x, 8, 8, 0.96f, OSCAR_INT2_GAIN) == OSCAR_ERR_NONFINITE && sm2[0] == 0x1234, "NaN");
    }
}

/* ---- the cache ---- */
/* x . R as the cache rotates a row (fixed point, oscar_rotate_row_q14) */
static void cache_rotate(float *y, const float *x, const float *R, int d) {
    static int16_t Rq[256 * 256];
    CHECK(d <= 256 && oscar_rotation_q14(Rq, R, d) == OSCAR_OK, "rotation converts to fixed point");
    oscar_rotate_row_q14(y, x, Rq, d);
}

/* expected stored row (rotated basis) for the raw row x at position pos with history H */
static void expected_row(const oscar_kv *kv, const float *R, const float *x, int in_hist, int is_v, float *out) {
    float clip = is_v ? kv->v_clip : kv->k_clip;
    int g = is_v ? kv->gv : kv->g;
    float rot[256], b[256];
    uint8_t c[64];
    uint16_t sm[512];
    int i, d = kv->d;
    if (R) cache_rotate(rot, x, R, d);
    else memcpy(rot, x, sizeof(float) * d);
    for (i = 0; i < d; i++) b[i] = oscar_bf16_to_f32(oscar_f32_to_bf16(rot[i]));
    if (!in_hist || !kv->int2) {
        memcpy(out, b, sizeof(float) * d);
        return;
    }
    oscar_int2_quantize_row_ex(c, sm, b, d, g, clip, is_v ? kv->v_flags : kv->k_flags);
    oscar_int2_dequantize_row(out, c, sm, d, g);
}

/* KIVI2 keys: the stored K row at pos, quantised per channel over its page (raw rows K, stride Hkv) */
static void expected_kivi_k(const oscar_kv *kv, const float *K, int Hkv, int h, int pos, float *out) {
    float rows[64 * 16];
    uint8_t c[64 * 4];
    uint16_t sm[2 * 16];
    int P = kv->P, d = kv->d, first = kv->S0 + ((pos - kv->S0) / P) * P, t, i;
    for (t = 0; t < P; t++)
        for (i = 0; i < d; i++) rows[t * d + i] = oscar_bf16_to_f32(oscar_f32_to_bf16(K[((size_t)(first + t) * Hkv + h) * d + i]));
    oscar_int2_quantize_channels(c, sm, rows, P, d);
    oscar_int2_dequantize_channels(out, c + (size_t)(pos - first) * (d / 4), sm, d);
}

static int expected_hist(int n, int S0, int W, int P) { return n >= S0 + W ? P * ((n - S0 - W) / P) : 0; }

static void test_cache_bookkeeping(void) {
    oscar_kv kv;
    oscar_kv_config cfg;
    oscar_rotations rot;
    int S0 = 4, W = 8, P = 4, L = 2, Hkv = 2, d = 16, N = 64, n, l, h, pos, seq = 0, seq2 = 0, mode, i;
    float *K = (float *)malloc(sizeof(float) * N * Hkv * d), *V = (float *)malloc(sizeof(float) * N * Hkv * d);
    float kr[16], vr[16], ke[16], ve[16];
    fill_normal(K, (size_t)N * Hkv * d, 1.0);
    fill_normal(V, (size_t)N * Hkv * d, 1.0);
    oscar_rotations_alloc(&rot, L, d, Hkv, 1);
    for (i = 0; i < L * Hkv; i++) { /* distinct random rotations per layer and head */
        synth_orthogonal(rot.k_rot + (size_t)i * d * d, d, &rng);
        synth_orthogonal(rot.v_rot + (size_t)i * d * d, d, &rng);
    }
    for (mode = 0; mode < 5; mode++) { /* bf16, int2 (rotated, clipped), kivi2, int2 with K group 4 / V group 16, int2 with the gain encoder */
        memset(&cfg, 0, sizeof cfg);
        cfg.n_layers = L; cfg.n_kv_heads = Hkv; cfg.head_dim = d; cfg.group_size = 8;
        cfg.sink = S0; cfg.window = W; cfg.page_size = P; cfg.max_pages = 64; cfg.max_seqs = 4;
        cfg.mode = mode == 2 ? OSCAR_KV_KIVI2 : (mode ? OSCAR_KV_INT2 : OSCAR_KV_BF16);
        cfg.rot = &rot;
        if (mode == 3) cfg.group_size = 4, cfg.v_group_size = 16;
        if (mode == 4) cfg.mode = OSCAR_KV_INT2, cfg.k_gain = cfg.v_gain = 1;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
        CHECK(kv.k_flags == (mode == 4 ? (unsigned)OSCAR_INT2_GAIN : 0u) && kv.v_flags == kv.k_flags, "mode %d: encoder flags %u / %u", mode, kv.k_flags, kv.v_flags);
        CHECK(kv.g == cfg.group_size && kv.gv == (mode == 3 ? 16 : cfg.group_size), "mode %d: groups %d / %d", mode, kv.g, kv.gv);
        CHECK(oscar_kv_seq_create(&kv, &seq) == OSCAR_OK, "%s", kv.msg);
        for (n = 1; n <= N; n++) {
            int ns, nh, nr, bad = 0;
            for (l = 0; l < L; l++) CHECK(oscar_kv_append(&kv, seq, l, K + (size_t)(n - 1) * Hkv * d, V + (size_t)(n - 1) * Hkv * d, 1) == OSCAR_OK, "%s", kv.msg);
            oscar_kv_segments(&kv, seq, 1, &ns, &nh, &nr);
            CHECK(ns == (n < S0 ? n : S0) && nh == expected_hist(n, S0, W, P) && nr == n - ns - nh, "n=%d: segments %d/%d/%d", n, ns, nh, nr);
            CHECK(n <= S0 || (nr >= W && nr <= W + P - 1) || n < S0 + W, "n=%d: window holds %d", n, nr);
            for (l = 0; l < L; l++)
                for (h = 0; h < Hkv; h++)
                    for (pos = 0; pos < n; pos++) {
                        int in_hist = pos >= S0 && pos < S0 + nh;
                        oscar_kv_read_row(&kv, seq, l, h, pos, kr, vr);
                        expected_row(&kv, oscar_kv_rotation(&kv, l, h, 0), K + ((size_t)pos * Hkv + h) * d, in_hist, 0, ke);
                        expected_row(&kv, oscar_kv_rotation(&kv, l, h, 1), V + ((size_t)pos * Hkv + h) * d, in_hist, 1, ve);
                        if (mode == 2 && in_hist) expected_kivi_k(&kv, K, Hkv, h, pos, ke);
                        if (memcmp(kr, ke, sizeof(float) * d) || memcmp(vr, ve, sizeof(float) * d)) bad++;
                    }
            CHECK(bad == 0, "mode %d n=%d: %d rows differ from the expected BF16/INT2 content", mode, n, bad);
        }
        /* prefill in one call gives the same cache as token-by-token appends */
        CHECK(oscar_kv_seq_create(&kv, &seq2) == OSCAR_OK, "%s", kv.msg);
        for (l = 0; l < L; l++) CHECK(oscar_kv_append(&kv, seq2, l, K, V, N) == OSCAR_OK, "%s", kv.msg);
        {
            int bad = 0;
            for (l = 0; l < L; l++)
                for (h = 0; h < Hkv; h++)
                    for (pos = 0; pos < N; pos++) {
                        oscar_kv_read_row(&kv, seq, l, h, pos, kr, vr);
                        oscar_kv_read_row(&kv, seq2, l, h, pos, ke, ve);
                        if (memcmp(kr, ke, sizeof kr) || memcmp(vr, ve, sizeof vr)) bad++;
                    }
            CHECK(bad == 0, "prefill differs from single appends in %d rows", bad);
        }
        {   /* memory accounting */
            oscar_kv_memory m;
            int nh = expected_hist(N, S0, W, P);
            size_t row = (size_t)L * Hkv * 2;
            CHECK(oscar_kv_memory_usage(&kv, seq, &m) == OSCAR_OK, "memory");
            CHECK(m.n_tokens == N && m.n_sink == S0 && m.n_history == nh && m.n_window == N - S0 - nh, "token counts");
            CHECK(m.sink_bytes == (size_t)S0 * row * d * 2 && m.window_bytes == (size_t)(N - S0 - nh) * row * d * 2, "bf16 bytes");
            if (mode == 1) CHECK(m.code_bytes == (size_t)nh * row * d / 4 && m.scale_bytes == (size_t)nh * row * (d / 8) * 4, "int2 bytes");
            if (mode == 3) { /* K: d / 4 groups, V: one group per row */
                CHECK(m.code_bytes == (size_t)nh * row * d / 4 && m.scale_bytes == (size_t)nh * L * Hkv * (d / 4 + d / 16) * 4, "int2 bytes, K group 4 / V group 16");
                CHECK(fabs(m.history_bits_per_element - (2.0 + 32.0 / 4 + 2.0 + 32.0 / 16) / 2.0) < 1e-12, "history bits %g", m.history_bits_per_element);
            }
            if (mode == 2) CHECK(m.code_bytes == (size_t)nh * row * d / 4 && m.scale_bytes == (size_t)(nh / P) * L * Hkv * (d * 4 + P * (d / 8) * 4), "kivi2 bytes");
            if (mode == 0) CHECK(m.history_bf16_bytes == (size_t)nh * row * d * 2, "bf16 history bytes");
            CHECK(fabs(m.bits_per_element - m.total_bytes * 8.0 / ((double)N * row * d)) < 1e-9, "bits");
            CHECK(m.bf16_equiv_bytes == (size_t)N * row * d * 2, "bf16 equivalent");
        }
        oscar_kv_free(&kv);
    }
    oscar_rotations_free(&rot);
    free(K);
    free(V);
}

static void test_cache_fork_and_pool(void) {
    oscar_kv kv;
    oscar_kv_config cfg;
    int S0 = 4, W = 8, P = 4, d = 8, Hkv = 1, N = 40, a = 0, b = 0, c = 0, i, pos, np_a, np_b, free0;
    float *K = (float *)malloc(sizeof(float) * 2 * N * d), *V = (float *)malloc(sizeof(float) * 2 * N * d), ka[8], kb[8];
    const int *bt_a, *bt_b;
    fill_normal(K, (size_t)2 * N * d, 1.0);
    fill_normal(V, (size_t)2 * N * d, 1.0);
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1; cfg.n_kv_heads = Hkv; cfg.head_dim = d; cfg.mode = OSCAR_KV_INT2;
    cfg.sink = S0; cfg.window = W; cfg.page_size = P; cfg.max_pages = 12; cfg.max_seqs = 3;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
    oscar_kv_seq_create(&kv, &a);
    CHECK(oscar_kv_append(&kv, a, 0, K, V, 24) == OSCAR_OK, "%s", kv.msg); /* history 12 = 3 pages */
    bt_a = oscar_kv_block_table(&kv, a, &np_a);
    CHECK(np_a == 3, "3 pages, got %d", np_a);
    free0 = kv.n_free;
    CHECK(oscar_kv_seq_fork(&kv, a, &b) == OSCAR_OK, "%s", kv.msg);
    bt_b = oscar_kv_block_table(&kv, b, &np_b);
    CHECK(np_b == 3 && kv.n_free == free0, "fork copies no pages");
    for (i = 0; i < 3; i++) CHECK(bt_a[i] == bt_b[i] && kv.refcount[bt_a[i]] == 2, "page %d shared", i);
    /* both grow with different data; the shared prefix stays identical */
    CHECK(oscar_kv_append(&kv, a, 0, K + 24 * d, V + 24 * d, 16) == OSCAR_OK, "%s", kv.msg);
    CHECK(oscar_kv_append(&kv, b, 0, K + N * d, V + N * d, 16) == OSCAR_OK, "%s", kv.msg);
    bt_a = oscar_kv_block_table(&kv, a, &np_a);
    bt_b = oscar_kv_block_table(&kv, b, &np_b);
    CHECK(np_a == 7 && np_b == 7 && bt_a[3] != bt_b[3], "new pages are private (%d, %d)", np_a, np_b);
    for (pos = 0; pos < 40; pos++) {
        oscar_kv_read_row(&kv, a, 0, 0, pos, ka, NULL);
        oscar_kv_read_row(&kv, b, 0, 0, pos, kb, NULL);
        if (pos < 24) CHECK(!memcmp(ka, kb, sizeof ka), "pos %d shared prefix differs", pos);
    }
    /* pool: 12 pages, 3 shared + 4 + 4 private = 11 used */
    CHECK(kv.n_free == 1, "free pages %d", kv.n_free);
    oscar_kv_seq_create(&kv, &c);
    CHECK(oscar_kv_append(&kv, c, 0, K, V, 16) == OSCAR_OK, "one page fits"); /* history 4 */
    i = oscar_kv_append(&kv, c, 0, K, V, 8);                                    /* needs 2 more */
    CHECK(i == OSCAR_ERR_POOL_FULL && strstr(kv.msg, "pages"), "pool full reported: %d %s", i, kv.msg);
    CHECK(oscar_kv_seq_length(&kv, c, 0) == 16 && kv.n_free == 0, "nothing appended on a full pool");
    CHECK(oscar_kv_seq_release(&kv, a) == OSCAR_OK, "release");
    CHECK(kv.n_free == 4, "a's private pages freed, shared ones kept (%d free)", kv.n_free);
    for (pos = 0; pos < 24; pos++) { /* b still reads the shared prefix */
        float e[8];
        oscar_kv_read_row(&kv, b, 0, 0, pos, kb, NULL);
        if (pos < S0) {
            for (i = 0; i < d; i++) e[i] = oscar_bf16_to_f32(oscar_f32_to_bf16(K[pos * d + i]));
            CHECK(!memcmp(e, kb, sizeof e), "sink row %d", pos);
        }
    }
    CHECK(oscar_kv_append(&kv, c, 0, K, V, 8) == OSCAR_OK, "after a release the cache works: %s", kv.msg);
    CHECK(oscar_kv_seq_release(&kv, a) == OSCAR_ERR_NO_SEQ, "double release");
    oscar_kv_seq_release(&kv, b);
    oscar_kv_seq_release(&kv, c);
    CHECK(kv.n_free == 12, "all pages back (%d)", kv.n_free);
    {   /* sequence slots */
        int s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        oscar_kv_seq_create(&kv, &s1);
        oscar_kv_seq_create(&kv, &s2);
        oscar_kv_seq_create(&kv, &s3);
        CHECK(oscar_kv_seq_create(&kv, &s4) == OSCAR_ERR_SEQ_LIMIT, "slot limit");
        CHECK(oscar_kv_seq_fork(&kv, s1, &s4) == OSCAR_ERR_SEQ_LIMIT, "fork slot limit");
    }
    oscar_kv_free(&kv);
    free(K);
    free(V);
}


/* randomized create/fork/append/release against a simple model of the cache: every stored row,
   the page reference counts and the free list must match after every operation */
typedef struct model_seq {
    int live, n;
    float *k, *v; /* [cap][L][d] raw rows */
} model_seq;

static void test_cache_random_ops(void) {
    enum { L = 2, D = 8, MAXS = 5, CAP = 400 };
    oscar_kv kv;
    oscar_kv_config cfg;
    oscar_rotations rot;
    model_seq m[MAXS];
    int op, s, i, l, bad_rows = 0, bad_refs = 0, pool_full = 0, n_ops = 3000;
    memset(m, 0, sizeof m);
    oscar_rotations_alloc(&rot, L, D, 1, 0);
    for (l = 0; l < L; l++) {
        synth_orthogonal(rot.k_rot + l * D * D, D, &rng);
        synth_orthogonal(rot.v_rot + l * D * D, D, &rng);
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = L; cfg.n_kv_heads = 1; cfg.head_dim = D; cfg.mode = OSCAR_KV_INT2; cfg.rot = &rot;
    cfg.sink = 2; cfg.window = 4; cfg.page_size = 2; cfg.max_pages = 40; cfg.max_seqs = MAXS;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
    for (s = 0; s < MAXS; s++) {
        m[s].k = (float *)malloc(sizeof(float) * CAP * L * D);
        m[s].v = (float *)malloc(sizeof(float) * CAP * L * D);
    }
    for (op = 0; op < n_ops; op++) {
        int kind = (int)(synth_u64(&rng) % 10), id = -1, rc;
        s = (int)(synth_u64(&rng) % MAXS);
        if (kind == 0) { /* create */
            rc = oscar_kv_seq_create(&kv, &id);
            if (rc == OSCAR_OK) { m[id].live = 1; m[id].n = 0; }
            else CHECK(rc == OSCAR_ERR_SEQ_LIMIT, "create: %d", rc);
        } else if (kind == 1 && m[s].live) { /* fork */
            rc = oscar_kv_seq_fork(&kv, s, &id);
            if (rc == OSCAR_OK) {
                m[id].live = 1;
                m[id].n = m[s].n;
                memcpy(m[id].k, m[s].k, sizeof(float) * m[s].n * L * D);
                memcpy(m[id].v, m[s].v, sizeof(float) * m[s].n * L * D);
            } else CHECK(rc == OSCAR_ERR_SEQ_LIMIT, "fork: %d", rc);
        } else if (kind == 2 && m[s].live) { /* release */
            CHECK(oscar_kv_seq_release(&kv, s) == OSCAR_OK, "release");
            m[s].live = 0;
        } else if (m[s].live) { /* append 1..6 tokens to every layer */
            int cnt = 1 + (int)(synth_u64(&rng) % 6), t;
            float kk[6][D], vv[6][D];
            if (m[s].n + cnt > CAP) continue;
            for (l = 0; l < L; l++) {
                fill_normal(&kk[0][0], 6 * D, 1.0);
                fill_normal(&vv[0][0], 6 * D, 1.0);
                rc = oscar_kv_append(&kv, s, l, &kk[0][0], &vv[0][0], cnt);
                if (rc == OSCAR_ERR_POOL_FULL) { /* only layer 0 can run out: the others reuse its pages */
                    CHECK(l == 0, "pool full on layer %d", l);
                    pool_full++;
                    break;
                }
                CHECK(rc == OSCAR_OK, "append: %s", kv.msg);
                for (t = 0; t < cnt; t++) {
                    memcpy(m[s].k + ((size_t)(m[s].n + t) * L + l) * D, kk[t], sizeof kk[t]);
                    memcpy(m[s].v + ((size_t)(m[s].n + t) * L + l) * D, vv[t], sizeof vv[t]);
                }
            }
            if (l == L) m[s].n += cnt;
        }
        { /* invariants: refcounts equal block-table references; free list = unreferenced pages */
            int refs[40], k2, used = 0;
            memset(refs, 0, sizeof refs);
            for (i = 0; i < MAXS; i++) {
                int np = 0;
                const int *bt = oscar_kv_block_table(&kv, i, &np);
                CHECK(!m[i].live == !kv.seqs[i].used, "slot %d liveness", i);
                for (k2 = 0; k2 < np; k2++) refs[bt[k2]]++;
            }
            for (i = 0; i < 40; i++) {
                if (refs[i] != kv.refcount[i]) bad_refs++;
                used += refs[i] > 0;
            }
            if (used + kv.n_free != 40) bad_refs++;
        }
        if (op % 50 == 0 || op == n_ops - 1)
            for (i = 0; i < MAXS; i++) {
                int pos, nh;
                if (!m[i].live) continue;
                CHECK(oscar_kv_seq_length(&kv, i, 0) == m[i].n && oscar_kv_seq_length(&kv, i, 1) == m[i].n, "length");
                for (l = 0; l < L; l++) {
                    oscar_kv_segments(&kv, i, l, NULL, &nh, NULL);
                    for (pos = 0; pos < m[i].n; pos++) {
                        float kr[D], vr[D], ke[D], ve[D];
                        int in_hist = pos >= 2 && pos < 2 + nh;
                        oscar_kv_read_row(&kv, i, l, 0, pos, kr, vr);
                        expected_row(&kv, oscar_kv_rotation(&kv, l, 0, 0), m[i].k + ((size_t)pos * L + l) * D, in_hist, 0, ke);
                        expected_row(&kv, oscar_kv_rotation(&kv, l, 0, 1), m[i].v + ((size_t)pos * L + l) * D, in_hist, 1, ve);
                        if (memcmp(kr, ke, sizeof kr) || memcmp(vr, ve, sizeof vr)) bad_rows++;
                    }
                }
            }
    }
    CHECK(bad_rows == 0, "%d stored rows differ from the model", bad_rows);
    CHECK(bad_refs == 0, "%d reference-count/free-list mismatches", bad_refs);
    CHECK(pool_full > 0, "the run should reach a full pool at least once");
    printf("  %d random operations, %d full-pool refusals\n", n_ops, pool_full);
    for (s = 0; s < MAXS; s++) { free(m[s].k); free(m[s].v); }
    oscar_kv_free(&kv);
    oscar_rotations_free(&rot);
}

/* naive double-precision attention over given (rotated) rows */
static void naive_attention(double *out, const float *q, const float *k, const float *v, int n, int d, double scale) {
    double *s = (double *)malloc(sizeof(double) * n), mx = -INFINITY, sum = 0.0;
    int t, i;
    for (t = 0; t < n; t++) {
        double x = 0.0;
        for (i = 0; i < d; i++) x += (double)q[i] * k[(size_t)t * d + i];
        s[t] = x * scale;
        if (s[t] > mx) mx = s[t];
    }
    for (i = 0; i < d; i++) out[i] = 0.0;
    for (t = 0; t < n; t++) {
        double p = exp(s[t] - mx);
        sum += p;
        for (i = 0; i < d; i++) out[i] += p * v[(size_t)t * d + i];
    }
    for (i = 0; i < d; i++) out[i] /= sum;
    free(s);
}

static void test_attention(void) {
    int mode;
    for (mode = 0; mode < 2; mode++) {
        int d = 64, Hkv = 2, G = 4, Hq = 8, N = 1000, j, g, t, i, lens[3] = {1, 70, 1000}, li;
        oscar_kv kv;
        oscar_kv_config cfg;
        oscar_rotations rot;
        float *K = (float *)malloc(sizeof(float) * N * Hkv * d), *V = (float *)malloc(sizeof(float) * N * Hkv * d);
        float *q = (float *)malloc(sizeof(float) * Hq * d), *out = (float *)malloc(sizeof(float) * Hq * d);
        float *kr = (float *)malloc(sizeof(float) * N * d), *vr = (float *)malloc(sizeof(float) * N * d), qr[64];
        double ref[64];
        int seq = 0, done = 0;
        fill_normal(K, (size_t)N * Hkv * d, 1.0);
        fill_normal(V, (size_t)N * Hkv * d, 1.0);
        fill_normal(q, (size_t)Hq * d, 0.3);
        oscar_rotations_alloc(&rot, 1, d, Hkv, 0);
        synth_orthogonal(rot.k_rot, d, &rng);
        synth_orthogonal(rot.v_rot, d, &rng);
        memset(&cfg, 0, sizeof cfg);
        cfg.n_layers = 1; cfg.n_kv_heads = Hkv; cfg.head_dim = d;
        cfg.mode = mode ? OSCAR_KV_INT2 : OSCAR_KV_BF16;
        cfg.rot = &rot;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
        oscar_kv_seq_create(&kv, &seq);
        for (li = 0; li < 3; li++) {
            double worst = 0.0;
            CHECK(oscar_kv_append(&kv, seq, 0, K + (size_t)done * Hkv * d, V + (size_t)done * Hkv * d, lens[li] - done) == OSCAR_OK, "%s", kv.msg);
            done = lens[li];
            CHECK(oscar_kv_attend(&kv, seq, 0, out, q, Hq, 0.0f) == OSCAR_OK, "%s", kv.msg);
            for (j = 0; j < Hkv; j++) {
                const float *Rk = oscar_kv_rotation(&kv, 0, j, 0), *Rv = oscar_kv_rotation(&kv, 0, j, 1);
                for (t = 0; t < done; t++) oscar_kv_read_row(&kv, seq, 0, j, t, kr + (size_t)t * d, vr + (size_t)t * d);
                for (g = 0; g < G; g++) {
                    double num = 0.0, den = 0.0;
                    if (Rk) oscar_rotate_rows(qr, q + (j * G + g) * d, Rk, 1, d, 0);
                    else memcpy(qr, q + (j * G + g) * d, sizeof qr);
                    naive_attention(ref, qr, kr, vr, done, d, 1.0 / sqrt((double)d));
                    if (Rv) { /* un-rotate in double */
                        for (i = 0; i < d; i++) {
                            double s = 0.0;
                            int k2;
                            for (k2 = 0; k2 < d; k2++) s += ref[k2] * Rv[i * d + k2];
                            num += (s - out[(j * G + g) * d + i]) * (s - out[(j * G + g) * d + i]);
                            den += s * s;
                        }
                    } else {
                        for (i = 0; i < d; i++) {
                            num += (ref[i] - out[(j * G + g) * d + i]) * (ref[i] - out[(j * G + g) * d + i]);
                            den += ref[i] * ref[i];
                        }
                    }
                    worst = fmax(worst, sqrt(num / den));
                }
            }
            CHECK(worst <= 1e-5, "%s n=%d: rel error vs naive double attention %g", mode ? "int2" : "bf16", done, worst);
        }
        if (mode) { /* absorbed V rotation: the output stays in the rotated basis, o = o_rot */
            oscar_kv kv2;
            float *o2 = (float *)malloc(sizeof(float) * Hq * d), back[64];
            double worst = 0.0;
            cfg.absorb_v = 1;
            CHECK(oscar_kv_init(&kv2, &cfg) == OSCAR_OK, "%s", kv2.msg);
            oscar_kv_seq_create(&kv2, &t);
            oscar_kv_append(&kv2, t, 0, K, V, N);
            oscar_kv_attend(&kv2, t, 0, o2, q, Hq, 0.0f);
            for (g = 0; g < Hq; g++) {
                oscar_rotate_rows(back, o2 + g * d, oscar_kv_rotation(&kv2, 0, g / G, 1), 1, d, 1);
                for (i = 0; i < d; i++) worst = fmax(worst, fabs(back[i] - out[g * d + i]));
            }
            CHECK(worst <= 1e-5, "absorb_v output . R_v^T differs from the un-rotated output by %g", worst);
            oscar_kv_free(&kv2);
            free(o2);
        }
        /* bad input leaves the cache usable */
        q[3] = NAN;
        CHECK(oscar_kv_attend(&kv, seq, 0, out, q, Hq, 0.0f) == OSCAR_ERR_NONFINITE, "NaN query");
        q[3] = 0.1f;
        CHECK(oscar_kv_attend(&kv, seq, 0, out, q, 7, 0.0f) == OSCAR_ERR_SHAPE && strstr(kv.msg, "GQA"), "GQA mismatch: %s", kv.msg);
        CHECK(oscar_kv_attend(&kv, seq, 0, out, q, Hq, 0.0f) == OSCAR_OK, "usable after errors");
        oscar_kv_free(&kv);
        oscar_rotations_free(&rot);
        free(K); free(V); free(q); free(out); free(kr); free(vr);
    }
}

/* cfg.center: rows stored less the rotation file's means; attention unchanged up to rounding, and
   INT2 history errors shrink when the rows share a large per-channel offset */
/* relative error of a cache's GQA attention output out [Hkv*G][d] for queries q against attention over
   the keys K [N][Hkv][d] and the values V (or, V NULL, the cache's own values: its rows read back,
   un-rotated and v_mean added, so that what is left is the keys' error); kh, vh: [N][d] scratch */
static double gqa_attention_error(const float *out, const float *q, const float *K, const float *V, const oscar_kv *kv, int seq,
                                  const float *v_mean, int N, int Hkv, int G, int d, float *kh, float *vh) {
    double ref[64], num = 0.0, den = 0.0;
    int j, t, g, i;
    for (j = 0; j < Hkv; j++) {
        for (t = 0; t < N; t++) {
            memcpy(kh + (size_t)t * d, K + ((size_t)t * Hkv + j) * d, sizeof(float) * d);
            if (V) memcpy(vh + (size_t)t * d, V + ((size_t)t * Hkv + j) * d, sizeof(float) * d);
            else {
                float vr[64];
                oscar_kv_read_row(kv, seq, 0, j, t, NULL, vr);
                oscar_rotate_rows(vh + (size_t)t * d, vr, oscar_kv_rotation(kv, 0, j, 1), 1, d, 1);
                for (i = 0; i < d; i++) vh[(size_t)t * d + i] += v_mean[j * d + i];
            }
        }
        for (g = 0; g < G; g++) {
            naive_attention(ref, q + (size_t)(j * G + g) * d, kh, vh, N, d, 1.0 / sqrt((double)d));
            for (i = 0; i < d; i++) {
                const double e = ref[i] - out[(j * G + g) * d + i];
                num += e * e, den += ref[i] * ref[i];
            }
        }
    }
    return sqrt(num / den);
}

/* a rotation file keeps the means (and the pre-RoPE K mean with its base) bit for bit, and a NaN put
   at *poison (an entry of one of them) makes the reader refuse the file */
static void check_file_means(oscar_rotations *rot, const char *name, float *poison, const char *what) {
    oscar_rotations back;
    const size_t n = sizeof(float) * (size_t)rot->n_layers * rot->n_kv_heads * rot->head_dim;
    rot->composition = OSCAR_COMP_R_H_PBR;
    CHECK(oscar_rotations_save(rot, tmp_path(name)) == OSCAR_OK, "%s", rot->msg);
    CHECK(oscar_rotations_load(&back, tmp_path(name)) == OSCAR_OK, "%s", back.msg);
    CHECK(back.k_mean && back.v_mean && !memcmp(back.k_mean, rot->k_mean, n) && !memcmp(back.v_mean, rot->v_mean, n) &&
              (!rot->k_rope_mean || (back.k_rope_mean && back.rope_base == rot->rope_base && !memcmp(back.k_rope_mean, rot->k_rope_mean, n))),
          "%s: means round-trip (RoPE base %g)", what, back.rope_base);
    oscar_rotations_free(&back);
    *poison = NAN;
    oscar_rotations_save(rot, tmp_path(name));
    CHECK(oscar_rotations_load(&back, tmp_path(name)) == OSCAR_ERR_NONFINITE && back.k_rot == NULL, "%s: NaN mean: %s", what, back.msg);
}

/* random K, V rows [N][Hkv][d] and queries [Hq][d] plus per-head offsets mu[0] (K; turned by RoPE(t)
   at row t when rope_base > 0) and mu[1] (V), for the centering tests; d <= 64 */
static void fill_offset_rows(float *K, float *V, float *q, float mu[2][2][64], int N, int Hkv, int Hq, int d, double rope_base) {
    float y[64];
    int i, j, t;
    for (j = 0; j < Hkv; j++)
        for (i = 0; i < d; i++) mu[0][j][i] = (float)(4.0 * synth_normal(&rng)), mu[1][j][i] = (float)(3.0 * synth_normal(&rng));
    fill_normal(K, (size_t)N * Hkv * d, 1.0);
    fill_normal(V, (size_t)N * Hkv * d, 1.0);
    fill_normal(q, (size_t)Hq * d, 0.4);
    for (t = 0; t < N; t++)
        for (j = 0; j < Hkv; j++) {
            if (rope_base > 0.0) oscar_rope_row(y, mu[0][j], d, rope_base, t, 0);
            else memcpy(y, mu[0][j], sizeof(float) * (size_t)d);
            for (i = 0; i < d; i++) K[((size_t)t * Hkv + j) * d + i] += y[i], V[((size_t)t * Hkv + j) * d + i] += mu[1][j][i];
        }
}

/* OSCAR_CENTER_ROPE: keys whose offset lives before RoPE (so it turns with the position) */
static void test_cache_center_rope(void) {
    int d = 64, Hkv = 2, G = 2, Hq = 4, N = 800, i, j, t, pass;
    const double base = 10000.0;
    float *K = (float *)malloc(sizeof(float) * N * Hkv * d), *V = (float *)malloc(sizeof(float) * N * Hkv * d);
    float *q = (float *)malloc(sizeof(float) * Hq * d), *out = (float *)malloc(sizeof(float) * Hq * d);
    float *kh = (float *)malloc(sizeof(float) * N * d), *vh = (float *)malloc(sizeof(float) * N * d), mu[2][2][64], c[64], y[64];
    double err[3] = {0, 0, 0}, worst = 0.0;
    oscar_rotations rot;
    oscar_kv kv;
    oscar_kv_config cfg;
    /* the helper: half-split pairs (i, i + d/2), its inverse, and the runner's formula */
    for (i = 0; i < d; i++) c[i] = (float)synth_normal(&rng);
    oscar_rope_row(y, c, d, base, 777, 0);
    for (i = 0; i < d / 2; i++) {
        const double th = 777.0 * pow(base, -2.0 * i / d);
        worst = fmax(worst, fabs(y[i] - (c[i] * cos(th) - c[i + d / 2] * sin(th))));
        worst = fmax(worst, fabs(y[i + d / 2] - (c[i] * sin(th) + c[i + d / 2] * cos(th))));
    }
    oscar_rope_row(y, y, d, base, 777, 1);
    for (i = 0; i < d; i++) worst = fmax(worst, fabs(y[i] - c[i]));
    CHECK(worst <= 1e-5, "oscar_rope_row: off by %g from cos/sin pairs or its inverse", worst);
    fill_offset_rows(K, V, q, mu, N, Hkv, Hq, d, base);
    CHECK(oscar_rotations_alloc(&rot, 1, d, Hkv, 0) == OSCAR_OK, "%s", rot.msg);
    synth_orthogonal(rot.k_rot, d, &rng);
    synth_orthogonal(rot.v_rot, d, &rng);
    CHECK(oscar_rotations_alloc_means(&rot) == OSCAR_OK, "%s", rot.msg);
    for (j = 0; j < Hkv; j++) /* the fixed (post-RoPE) means of the rows themselves, as calibration would give */
        for (i = 0; i < d; i++) {
            double sk = 0.0;
            for (t = 0; t < N; t++) sk += K[((size_t)t * Hkv + j) * d + i];
            rot.k_mean[j * d + i] = (float)(sk / N);
            rot.v_mean[j * d + i] = mu[1][j][i] + (float)(0.05 * synth_normal(&rng));
        }
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1; cfg.n_kv_heads = Hkv; cfg.head_dim = d;
    cfg.mode = OSCAR_KV_INT2;
    cfg.rot = &rot;
    cfg.center = OSCAR_CENTER_ROPE;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "pre-RoPE"), "center 2 without a pre-RoPE mean: %s", kv.msg);
    cfg.center = 3;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG, "center 3: %s", kv.msg);
    CHECK(oscar_rotations_alloc_rope_mean(&rot, 0.5) == OSCAR_ERR_RANGE && !rot.k_rope_mean, "RoPE base 0.5 accepted");
    { /* a pre-RoPE mean without the K/V means is refused by the writer, not dropped */
        oscar_rotations bare;
        CHECK(oscar_rotations_alloc(&bare, 1, d, Hkv, 0) == OSCAR_OK && oscar_rotations_alloc_rope_mean(&bare, base) == OSCAR_OK, "%s", bare.msg);
        CHECK(oscar_rotations_save(&bare, tmp_path("rot-bare.safetensors")) == OSCAR_ERR_STATE && strstr(bare.msg, "pre-RoPE"), "save: %s", bare.msg);
        oscar_rotations_free(&bare);
    }
    CHECK(oscar_rotations_alloc_rope_mean(&rot, base) == OSCAR_OK, "%s", rot.msg);
    for (j = 0; j < Hkv; j++) /* a calibration estimate: the offset plus noise */
        for (i = 0; i < d; i++) rot.k_rope_mean[j * d + i] = mu[0][j][i] + (float)(0.05 * synth_normal(&rng));
    /* pass 0: everything BF16 (sink N), centered before RoPE: attention over the original rows;
       passes 1-3: INT2 history centered before RoPE, by the fixed mean, not at all, each against
       attention over the exact keys and the cache's own (dequantised) values, so that the error
       measured is the keys' */
    for (pass = 0; pass < 4; pass++) {
        int seq = 0;
        double e;
        cfg.sink = pass == 0 ? N : 0;
        cfg.center = pass <= 1 ? OSCAR_CENTER_ROPE : (pass == 2 ? OSCAR_CENTER_MEAN : OSCAR_CENTER_NONE);
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
        oscar_kv_seq_create(&kv, &seq);
        CHECK(oscar_kv_append(&kv, seq, 0, K, V, N / 2) == OSCAR_OK, "%s", kv.msg); /* two appends: positions carry on */
        CHECK(oscar_kv_append(&kv, seq, 0, K + (size_t)(N / 2) * Hkv * d, V + (size_t)(N / 2) * Hkv * d, N - N / 2) == OSCAR_OK, "%s", kv.msg);
        CHECK(oscar_kv_attend(&kv, seq, 0, out, q, Hq, 0.0f) == OSCAR_OK, "%s", kv.msg);
        e = gqa_attention_error(out, q, K, NULL, &kv, seq, rot.v_mean, N, Hkv, G, d, kh, vh);
        if (pass == 0) CHECK(e <= 2e-3, "BF16 rows, centered before RoPE: rel error %g against attention over the original rows", e);
        else err[pass - 1] = e;
        if (pass == 1) { /* a stored window row is (k - RoPE(t) mu) . R */
            float row[64], want[64];
            worst = 0.0;
            t = N - 3;
            oscar_kv_read_row(&kv, seq, 0, 1, t, row, NULL);
            oscar_rope_row(y, rot.k_rope_mean + d, d, base, t, 0);
            for (i = 0; i < d; i++) c[i] = K[((size_t)t * Hkv + 1) * d + i] - y[i];
            oscar_rotate_rows(want, c, oscar_kv_rotation(&kv, 0, 1, 0), 1, d, 0);
            for (i = 0; i < d; i++) worst = fmax(worst, fabs(want[i] - row[i]) / (fabs(want[i]) + 0.05));
            CHECK(worst <= 1e-2, "stored window row differs from (k - RoPE(t) mu) . R by a relative %g (BF16 rounding: 0.4%%)", worst);
        }
        oscar_kv_free(&kv);
    }
    printf("  keys with a turning (pre-RoPE) offset, INT2 history: attention error from K %.4f centered before RoPE, %.4f by the fixed mean, %.4f not\n",
           err[0], err[1], err[2]);
    CHECK(err[0] < 0.7 * err[1] && err[1] < err[2], "centering before RoPE should cut the fixed mean's error by 30%% here: %g vs %g (none %g)", err[0], err[1], err[2]);
    check_file_means(&rot, "rot-rope.safetensors", &rot.k_rope_mean[5], "pre-RoPE K mean");
    { /* the fp16-range check is on the stored (centered) row: a key of norm ~48,000 that sits on its
         turning mean is taken, its mirror image (centered norm ~96,000) refused, nothing appended */
        float kr[2 * 64], vr[2 * 64];
        int seq = 0, pos, n0;
        for (i = 0; i < Hkv * d; i++) {
            rot.k_rope_mean[i] = (float)(6000.0 * (i % 2 ? 1 : -1));
            vr[i] = (float)synth_normal(&rng);
        }
        cfg.sink = 4;
        cfg.center = OSCAR_CENTER_ROPE;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK && oscar_kv_seq_create(&kv, &seq) == OSCAR_OK, "%s", kv.msg);
        for (pos = 0; pos < 3; pos++) {
            for (j = 0; j < Hkv; j++) {
                oscar_rope_row(kr + j * d, rot.k_rope_mean + j * d, d, base, pos, 0);
                for (i = 0; i < d; i++) kr[j * d + i] += (float)synth_normal(&rng);
            }
            CHECK(oscar_kv_append(&kv, seq, 0, kr, vr, 1) == OSCAR_OK, "a large key on its mean, position %d: %s", pos, kv.msg);
        }
        for (i = 0; i < Hkv * d; i++) kr[i] = -kr[i];
        n0 = kv.seqs[seq].n_tok[0];
        CHECK(oscar_kv_append(&kv, seq, 0, kr, vr, 1) == OSCAR_ERR_RANGE && strstr(kv.msg, "32768") && kv.seqs[seq].n_tok[0] == n0,
              "its mirror image: %s", kv.msg);
        oscar_kv_free(&kv);
    }
    oscar_rotations_free(&rot);
    free(K); free(V); free(q); free(out); free(kh); free(vh);
}

static void test_cache_center(void) {
    int d = 64, Hkv = 2, G = 2, Hq = 4, N = 800, i, j, t, pass;
    float *K = (float *)malloc(sizeof(float) * N * Hkv * d), *V = (float *)malloc(sizeof(float) * N * Hkv * d);
    float *q = (float *)malloc(sizeof(float) * Hq * d), *out = (float *)malloc(sizeof(float) * Hq * d);
    float *kh = (float *)malloc(sizeof(float) * N * d), *vh = (float *)malloc(sizeof(float) * N * d), mu[2][2][64];
    double err[2] = {0, 0};
    oscar_rotations rot;
    oscar_kv kv;
    oscar_kv_config cfg;
    fill_offset_rows(K, V, q, mu, N, Hkv, Hq, d, 0.0);
    CHECK(oscar_rotations_alloc(&rot, 1, d, Hkv, 0) == OSCAR_OK, "%s", rot.msg);
    synth_orthogonal(rot.k_rot, d, &rng);
    synth_orthogonal(rot.v_rot, d, &rng);
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1; cfg.n_kv_heads = Hkv; cfg.head_dim = d;
    cfg.mode = OSCAR_KV_INT2;
    cfg.rot = &rot;
    cfg.center = 1;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "means"), "center without means: %s", kv.msg);
    CHECK(oscar_rotations_alloc_means(&rot) == OSCAR_OK, "%s", rot.msg);
    for (j = 0; j < Hkv; j++) /* a calibration estimate: the offset plus noise */
        for (i = 0; i < d; i++) {
            rot.k_mean[j * d + i] = mu[0][j][i] + (float)(0.05 * synth_normal(&rng));
            rot.v_mean[j * d + i] = mu[1][j][i] + (float)(0.05 * synth_normal(&rng));
        }
    cfg.mode = OSCAR_KV_BF16;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG, "center in BF16 mode: %s", kv.msg);
    cfg.mode = OSCAR_KV_INT2;
    /* pass 0: everything BF16 (sink N): the output equals attention over the original rows; pass 1, 2:
       INT2 history (default sink / window), centered and not */
    for (pass = 0; pass < 3; pass++) {
        int seq = 0;
        double e;
        cfg.sink = pass == 0 ? N : 0;
        cfg.center = pass != 2;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
        oscar_kv_seq_create(&kv, &seq);
        CHECK(oscar_kv_append(&kv, seq, 0, K, V, N) == OSCAR_OK, "%s", kv.msg);
        CHECK(oscar_kv_attend(&kv, seq, 0, out, q, Hq, 0.0f) == OSCAR_OK, "%s", kv.msg);
        e = gqa_attention_error(out, q, K, V, &kv, seq, NULL, N, Hkv, G, d, kh, vh);
        if (pass == 0) CHECK(e <= 2e-3, "BF16 rows, centered: rel error %g against attention over the original rows", e);
        else err[pass - 1] = e;
        if (pass == 1) { /* stored rows are the rotated, centered rows */
            float row[64], want[64], c[64];
            double worst = 0.0;
            t = N - 1; /* in the BF16 window */
            oscar_kv_read_row(&kv, seq, 0, 1, t, row, NULL);
            for (i = 0; i < d; i++) c[i] = K[((size_t)t * Hkv + 1) * d + i] - rot.k_mean[d + i];
            oscar_rotate_rows(want, c, oscar_kv_rotation(&kv, 0, 1, 0), 1, d, 0);
            for (i = 0; i < d; i++) worst = fmax(worst, fabs(want[i] - row[i]) / (fabs(want[i]) + 0.05));
            CHECK(worst <= 1e-2, "stored window row differs from (k - mean) . R by a relative %g (BF16 rounding: 0.4%%)", worst);
        }
        oscar_kv_free(&kv);
    }
    printf("  rows with a per-channel offset, INT2 history: attention error %.4f centered, %.4f not\n", err[0], err[1]);
    CHECK(err[0] < 0.5 * err[1], "centering should at least halve the error here: %g vs %g", err[0], err[1]);
    check_file_means(&rot, "rot-mean.safetensors", &rot.v_mean[7], "K/V means"); /* the means in a rotation file */
    oscar_rotations_free(&rot);
    free(K); free(V); free(q); free(out); free(kh); free(vh);
}

/* queries that look along a few directions in which keys barely move, keys that spread along the others:
   the K balance should cut the INT2 score error by several times, and leave BF16 rows' attention exact */
static void test_cache_balance(void) {
    int d = 64, Hkv = 2, G = 2, Hq = 4, N = 900, nq = 24, i, j, t, pass;
    float *K = (float *)malloc(sizeof(float) * N * Hkv * d), *V = (float *)malloc(sizeof(float) * N * Hkv * d);
    float *q = (float *)malloc(sizeof(float) * nq * Hq * d), *out = (float *)malloc(sizeof(float) * Hq * d);
    float *kh = (float *)malloc(sizeof(float) * N * d), *vh = (float *)malloc(sizeof(float) * N * d);
    float *Qd = (float *)malloc(sizeof(float) * d * d);
    double *Sq = (double *)malloc(sizeof(double) * d * d), *Ck = (double *)malloc(sizeof(double) * d * d), lam[64], kap[64];
    double score_err[2] = {0, 0}, attn_err[2] = {0, 0};
    oscar_rotations rot, back;
    oscar_kv kv;
    oscar_kv_config cfg;
    synth_orthogonal(Qd, d, &rng);
    for (i = 0; i < d; i++) lam[i] = i < 8 ? 10.0 : 0.1, kap[i] = i < 8 ? 0.1 : 4.0;
    spd_from(Sq, Qd, lam, d);
    spd_from(Ck, Qd, kap, d);
    for (t = 0; t < N * Hkv + nq * Hq; t++) { /* k = sum_j sqrt(kappa_j) z_j Q_j, q the same with lambda */
        const int is_q = t >= N * Hkv;
        float *x = is_q ? q + (size_t)(t - N * Hkv) * d : K + (size_t)t * d;
        double z[64];
        for (j = 0; j < d; j++) z[j] = sqrt(is_q ? lam[j] : kap[j]) * synth_normal(&rng);
        for (i = 0; i < d; i++) {
            double a = 0.0;
            for (j = 0; j < d; j++) a += Qd[i * d + j] * z[j];
            x[i] = (float)a;
        }
    }
    fill_normal(V, (size_t)N * Hkv * d, 1.0);
    CHECK(oscar_rotations_alloc(&rot, 1, d, Hkv, 0) == OSCAR_OK, "%s", rot.msg);
    CHECK(oscar_rotation_fit(rot.k_rot, rot.k_eval, Sq, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "fit K");
    CHECK(oscar_rotation_fit(rot.v_rot, rot.v_eval, Sq, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "fit V");
    rot.composition = OSCAR_COMP_R_H_PBR;
    memset(&cfg, 0, sizeof cfg);
    cfg.n_layers = 1; cfg.n_kv_heads = Hkv; cfg.head_dim = d;
    cfg.mode = OSCAR_KV_INT2;
    cfg.rot = &rot;
    cfg.k_balance = 1;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "k_balance"), "k_balance without a balance: %s", kv.msg);
    CHECK(oscar_rotations_alloc_balance(&rot) == OSCAR_OK, "%s", rot.msg);
    CHECK(oscar_balance_fit(rot.k_balance, rot.k_rot, rot.k_eval, Ck, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "balance");
    cfg.mode = OSCAR_KV_BF16;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "k_balance"), "k_balance in BF16 mode: %s", kv.msg);
    cfg.mode = OSCAR_KV_INT2;
    cfg.k_balance = 2;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG, "k_balance 2: %s", kv.msg);
    rot.composition = OSCAR_COMP_HADAMARD;
    cfg.k_balance = 1;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "fitted"), "k_balance with a data-free composition: %s", kv.msg);
    rot.composition = OSCAR_COMP_R_H_PBR;
    {   /* a balance the reader accepts (> 0) but whose inverse overflows fp32: refused by the cache, by matrix */
        const float keep = rot.k_balance[5];
        rot.k_balance[5] = 1e-45f;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_NONFINITE && strstr(kv.msg, "matrix 0"), "a subnormal balance: %s", kv.msg);
        rot.k_balance[5] = keep;
    }
    /* pass 0: all BF16 (sink N), balanced: attention over the original rows; 1, 2: INT2 history balanced / not */
    for (pass = 0; pass < 3; pass++) {
        int seq = 0, qi, ns, nh;
        double num = 0.0, den = 0.0;
        cfg.sink = pass == 0 ? N : 0;
        cfg.k_balance = pass != 2;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
        oscar_kv_seq_create(&kv, &seq);
        CHECK(oscar_kv_append(&kv, seq, 0, K, V, N) == OSCAR_OK, "%s", kv.msg);
        oscar_kv_segments(&kv, seq, 0, &ns, &nh, NULL);
        for (qi = 0; qi < nq; qi++) {
            const float *qq = q + (size_t)qi * Hq * d;
            CHECK(oscar_kv_attend(&kv, seq, 0, out, qq, Hq, 0.0f) == OSCAR_OK, "%s", kv.msg);
            if (pass == 0) {
                const double e = gqa_attention_error(out, qq, K, V, &kv, seq, NULL, N, Hkv, G, d, kh, vh);
                CHECK(e <= 4e-3, "BF16 rows, balanced: rel error %g against attention over the original rows (BF16 rounding of rows whose scores reach ~10)", e);
                continue;
            }
            attn_err[pass - 1] += gqa_attention_error(out, qq, K, V, &kv, seq, NULL, N, Hkv, G, d, kh, vh) / nq;
            for (j = 0; j < Hkv; j++) { /* scores of the history rows as the cache computes them: (q B) . k^ */
                float qb[64], row[64];
                const float *B = oscar_kv_query_rotation(&kv, 0, j);
                int g;
                for (g = 0; g < G; g++) {
                    const float *qh = qq + (size_t)(j * G + g) * d;
                    oscar_rotate_rows(qb, qh, B, 1, d, 0);
                    for (t = ns; t < ns + nh; t++) {
                        double sh = 0.0, sx = 0.0;
                        oscar_kv_read_row(&kv, seq, 0, j, t, row, NULL);
                        for (i = 0; i < d; i++) sh += (double)qb[i] * row[i], sx += (double)qh[i] * K[((size_t)t * Hkv + j) * d + i];
                        num += (sh - sx) * (sh - sx), den += sx * sx;
                    }
                }
            }
        }
        if (pass) score_err[pass - 1] = sqrt(num / den);
        if (pass == 1) CHECK(oscar_kv_query_rotation(&kv, 0, 1) != oscar_kv_rotation(&kv, 0, 1, 0), "balanced: queries turn by their own matrix");
        if (pass == 2) CHECK(oscar_kv_query_rotation(&kv, 0, 1) == oscar_kv_rotation(&kv, 0, 1, 0), "plain: queries turn by R_k");
        oscar_kv_free(&kv);
    }
    printf("  keys still where queries look, INT2 history: score error %.4f balanced, %.4f not; attention error %.4f, %.4f\n",
           score_err[0], score_err[1], attn_err[0], attn_err[1]);
    CHECK(score_err[0] < 0.5 * score_err[1], "the balance should at least halve the score error here: %g vs %g", score_err[0], score_err[1]);
    CHECK(attn_err[0] < attn_err[1], "and lower the attention error: %g vs %g", attn_err[0], attn_err[1]);
    /* a rotation file keeps the balance bit for bit (shared and per head) and refuses bad values */
    for (pass = 0; pass < 2; pass++) {
        oscar_rotations r;
        const int L = 2, nh = pass ? Hkv : 1;
        size_t nb = (size_t)L * nh * d;
        CHECK(oscar_rotations_alloc(&r, L, d, Hkv, pass) == OSCAR_OK, "%s", r.msg);
        for (i = 0; i < L * nh; i++) {
            memcpy(r.k_rot + (size_t)i * d * d, rot.k_rot, sizeof(float) * d * d);
            memcpy(r.k_eval + (size_t)i * d, rot.k_eval, sizeof(float) * d);
        }
        r.composition = OSCAR_COMP_R_H_PBR;
        CHECK(oscar_rotations_alloc_balance(&r) == OSCAR_OK, "%s", r.msg);
        for (i = 0; i < (int)nb; i++) r.k_balance[i] = (float)(0.05 + 0.95 * synth_uniform(&rng));
        if (pass) CHECK(oscar_rotations_alloc_means(&r) == OSCAR_OK && oscar_rotations_alloc_rope_mean(&r, 10000.0) == OSCAR_OK, "%s", r.msg);
        CHECK(oscar_rotations_save(&r, tmp_path("bal.safetensors")) == OSCAR_OK, "%s", r.msg);
        CHECK(oscar_rotations_load(&back, tmp_path("bal.safetensors")) == OSCAR_OK, "%s", back.msg);
        CHECK(back.k_balance && !memcmp(back.k_balance, r.k_balance, nb * sizeof(float)), "balance round trip (per head %d)", pass);
        CHECK(!pass || (back.k_rope_mean && back.k_mean), "with the means too");
        oscar_rotations_free(&back);
        for (j = 0; j < 3; j++) {
            const float keep = r.k_balance[nb - 2];
            r.k_balance[nb - 2] = j == 0 ? 0.0f : j == 1 ? 1.25f : NAN;
            CHECK(oscar_rotations_save(&r, tmp_path("bal.safetensors")) == OSCAR_OK, "%s", r.msg);
            CHECK(oscar_rotations_load(&back, tmp_path("bal.safetensors")) != OSCAR_OK && strstr(back.msg, "k.balance") && !back.k_rot,
                  "a balance of %g is refused by name: %s", (double)r.k_balance[nb - 2], back.msg);
            r.k_balance[nb - 2] = keep;
        }
        r.composition = OSCAR_COMP_HADAMARD;
        CHECK(oscar_rotations_save(&r, tmp_path("bal.safetensors")) == OSCAR_OK, "%s", r.msg);
        CHECK(oscar_rotations_load(&back, tmp_path("bal.safetensors")) == OSCAR_ERR_FORMAT && strstr(back.msg, "fitted"), "balance on hadamard: %s", back.msg);
        oscar_rotations_free(&r);
    }
    oscar_rotations_free(&rot);
    free(K); free(V); free(q); free(out); free(kh); free(vh); free(Qd); free(Sq); free(Ck);
}

/* attention-output error of the four modes on synthetic attention-like data */
static void test_mode_ordering(void) {
    int d = 128, Hq = 8, Hkv = 2, ncal = 1024, nctx = 1536, nq = 8, mode;
    synth_model m;
    synth_rng r = {99, 0, 0.0};
    float *q = (float *)malloc(sizeof(float) * ncal * Hq * d), *k = (float *)malloc(sizeof(float) * ncal * Hkv * d), *v = (float *)malloc(sizeof(float) * ncal * Hkv * d);
    float *ref = (float *)malloc(sizeof(float) * nq * Hq * d), *out = (float *)malloc(sizeof(float) * nq * Hq * d);
    double *sk = (double *)malloc(sizeof(double) * d * d), *sv = (double *)malloc(sizeof(double) * d * d), err[4] = {0, 0, 0, 0};
    oscar_calib c;
    oscar_rotations fit, had;
    synth_init(&m, d, Hq, Hkv, 2024);
    synth_tokens(&m, &r, ncal, q, k, v);
    oscar_calib_init(&c, d, Hq, Hkv);
    oscar_calib_add_q(&c, q, ncal);
    oscar_calib_add_kv(&c, k, v, ncal);
    oscar_calib_targets(&c, -1, sk, sv);
    oscar_rotations_alloc(&fit, 1, d, Hkv, 0);
    oscar_rotations_alloc(&had, 1, d, Hkv, 0);
    oscar_rotation_fit(fit.k_rot, fit.k_eval, sk, d, OSCAR_COMP_R_H_PBR);
    oscar_rotation_fit(fit.v_rot, fit.v_eval, sv, d, OSCAR_COMP_R_H_PBR);
    oscar_rotations_set_fixed(&had, OSCAR_COMP_HADAMARD);
    free(q); free(k); free(v);
    k = (float *)malloc(sizeof(float) * nctx * Hkv * d);
    v = (float *)malloc(sizeof(float) * nctx * Hkv * d);
    q = (float *)malloc(sizeof(float) * nq * Hq * d);
    synth_tokens(&m, &r, nctx, NULL, k, v); /* evaluation data: fresh draws */
    synth_tokens(&m, &r, nq, q, NULL, NULL);
    for (mode = 0; mode < 4; mode++) {
        oscar_kv kv;
        oscar_kv_config cfg;
        int seq = 0, i;
        double num = 0.0, den = 0.0;
        memset(&cfg, 0, sizeof cfg);
        cfg.n_layers = 1; cfg.n_kv_heads = Hkv; cfg.head_dim = d;
        cfg.mode = mode ? OSCAR_KV_INT2 : OSCAR_KV_BF16;
        if (mode == 1) cfg.k_clip = cfg.v_clip = -1.0f;
        cfg.rot = mode == 2 ? &had : (mode == 3 ? &fit : NULL);
        oscar_kv_init(&kv, &cfg);
        oscar_kv_seq_create(&kv, &seq);
        CHECK(oscar_kv_append(&kv, seq, 0, k, v, nctx) == OSCAR_OK, "%s", kv.msg);
        for (i = 0; i < nq; i++) oscar_kv_attend(&kv, seq, 0, (mode ? out : ref) + (size_t)i * Hq * d, q + (size_t)i * Hq * d, Hq, 0.0f);
        for (i = 0; mode && i < nq * Hq * d; i++) {
            num += (out[i] - ref[i]) * (out[i] - ref[i]);
            den += ref[i] * ref[i];
        }
        err[mode] = mode ? sqrt(num / den) : 0.0;
        oscar_kv_free(&kv);
    }
    printf("  synthetic attention-output error: int2-naive %.4f, int2-hadamard %.4f, oscar %.4f\n", err[1], err[2], err[3]);
    CHECK(err[3] < err[2] && err[2] < err[1], "ordering oscar < hadamard < naive: %g %g %g", err[3], err[2], err[1]);
    oscar_rotations_free(&fit);
    oscar_rotations_free(&had);
    oscar_calib_free(&c);
    synth_free(&m);
    free(q); free(k); free(v); free(ref); free(out); free(sk); free(sv);
}

static void test_cache_bad_input(void) {
    oscar_kv kv;
    oscar_kv_config cfg;
    oscar_rotations rot;
    float k[2 * 16], v[2 * 16], out[4 * 16], q[4 * 16];
    int seq = 0, rc;
    memset(&cfg, 0, sizeof cfg);
    CHECK(oscar_kv_init(NULL, &cfg) == OSCAR_ERR_NULL, "null kv");
    CHECK(oscar_kv_init(&kv, NULL) == OSCAR_ERR_NULL, "null cfg");
    cfg.n_layers = 1; cfg.n_kv_heads = 2; cfg.head_dim = 24;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_DIM && strstr(kv.msg, "power of two"), "d=24: %s", kv.msg);
    cfg.head_dim = 16; cfg.group_size = 32;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_DIM && strstr(kv.msg, "group"), "group 32 > d");
    cfg.group_size = 6;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_DIM, "group 6");
    cfg.group_size = 8; cfg.v_group_size = 32;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_DIM && strstr(kv.msg, "V group size 32"), "V group 32 > d: %s", kv.msg);
    cfg.v_group_size = 12;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_DIM && strstr(kv.msg, "V group"), "V group 12: %s", kv.msg);
    cfg.v_group_size = 0;
    cfg.group_size = 0; cfg.page_size = 48;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "divide"), "page 48 vs window 256");
    cfg.page_size = 0; cfg.k_clip = 1.5f;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_RANGE, "clip 1.5");
    cfg.k_clip = 0.0f;
    cfg.k_gain = 1; /* the mode is still BF16 here */
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "k_gain"), "gain on a BF16 cache: %s", kv.msg);
    cfg.k_gain = 0; cfg.v_gain = 2;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_INVALID_ARG && strstr(kv.msg, "v_gain (2)"), "v_gain 2: %s", kv.msg);
    cfg.v_gain = 0;
    oscar_rotations_alloc(&rot, 2, 16, 2, 0);
    cfg.mode = OSCAR_KV_INT2; cfg.rot = &rot;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_SHAPE && strstr(kv.msg, "layers"), "rotations for 2 layers: %s", kv.msg);
    oscar_rotations_free(&rot);
    oscar_rotations_alloc(&rot, 1, 32, 2, 0);
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_SHAPE && strstr(kv.msg, "head dim 32"), "rotations for head dim 32: %s", kv.msg);
    oscar_rotations_free(&rot);
    oscar_rotations_alloc(&rot, 1, 16, 4, 1);
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_SHAPE, "per-head rotations for 4 KV heads: %s", kv.msg);
    oscar_rotations_free(&rot);
    cfg.rot = NULL; cfg.sink = 2; cfg.window = 4; cfg.page_size = 2; cfg.max_pages = 2;
    CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
    oscar_kv_seq_create(&kv, &seq);
    fill_normal(k, 32, 1.0);
    fill_normal(v, 32, 1.0);
    fill_normal(q, 64, 1.0);
    CHECK(oscar_kv_attend(&kv, seq, 0, out, q, 4, 0.0f) == OSCAR_ERR_STATE, "attend on empty");
    CHECK(oscar_kv_append(&kv, seq, 0, k, v, 1) == OSCAR_OK, "%s", kv.msg);
    {   /* a second sequence is unaffected by a bad row sent to the first */
        int other = 0;
        float before[16], after[16];
        oscar_kv_seq_create(&kv, &other);
        oscar_kv_append(&kv, other, 0, v, k, 1);
        oscar_kv_read_row(&kv, other, 0, 1, 0, before, NULL);
        k[5] = NAN;
        CHECK(oscar_kv_append(&kv, seq, 0, k, v, 1) == OSCAR_ERR_NONFINITE, "NaN row");
        k[5] = 0.25f;
        oscar_kv_read_row(&kv, other, 0, 1, 0, after, NULL);
        CHECK(!memcmp(before, after, sizeof before) && oscar_kv_seq_length(&kv, other, 0) == 1, "other sequence intact");
        oscar_kv_seq_release(&kv, other);
    }
    k[20] = INFINITY;
    rc = oscar_kv_append(&kv, seq, 0, k, v, 1);
    CHECK(rc == OSCAR_ERR_NONFINITE && strstr(kv.msg, "KV head 1"), "Inf row named: %s", kv.msg);
    k[20] = 1e5f;
    CHECK(oscar_kv_append(&kv, seq, 0, k, v, 1) == OSCAR_ERR_RANGE, "huge row refused in INT2 mode");
    k[20] = 0.5f;
    CHECK(oscar_kv_seq_length(&kv, seq, 0) == 1, "nothing appended by failed calls");
    CHECK(oscar_kv_append(&kv, seq, 1, k, v, 1) == OSCAR_ERR_INVALID_ARG, "layer out of range");
    CHECK(oscar_kv_append(&kv, 7, 0, k, v, 1) == OSCAR_ERR_NO_SEQ, "bad seq");
    CHECK(oscar_kv_append(&kv, seq, 0, NULL, v, 1) == OSCAR_ERR_NULL, "null k");
    CHECK(oscar_kv_append(&kv, seq, 0, k, v, -1) == OSCAR_ERR_INVALID_ARG, "negative n");
    CHECK(oscar_kv_attend(&kv, seq, 0, out, q, 3, 0.0f) == OSCAR_ERR_SHAPE, "GQA");
    CHECK(oscar_kv_attend(&kv, seq, 0, NULL, q, 4, 0.0f) == OSCAR_ERR_NULL, "null out");
    CHECK(oscar_kv_attend(&kv, seq, 0, out, q, 4, 0.0f) == OSCAR_OK, "works after errors: %s", kv.msg);
    oscar_kv_free(&kv);
    oscar_kv_free(&kv); /* idempotent */
    oscar_kv_free(NULL);
}

/* ---- safetensors ---- */
/* builds a file from a header string and a data size (bytes 0x3f) */
static size_t make_st(uint8_t *buf, const char *hdr, size_t data) {
    size_t h = strlen(hdr), i;
    for (i = 0; i < 8; i++) buf[i] = (uint8_t)((uint64_t)h >> (8 * i));
    memcpy(buf + 8, hdr, h);
    memset(buf + 8 + h, 0x3f, data);
    return 8 + h + data;
}

static void test_safetensors(void) {
    float a[6] = {1, -2, 3.5f, 4, 5, 6};
    uint16_t hb[3] = {0x3c00, 0xc000, 0x3800}, bb[2] = {0x3f80, 0xc040};
    oscar_st_entry e[3];
    const char *meta[4] = {"format", "oscar-test", "note", "quote \" backslash \\ tab \t unicode \xc3\xa9"};
    oscar_st st;
    float out[6];
    const oscar_st_tensor *t;
    int i;
    memset(e, 0, sizeof e);
    e[0].name = "a"; e[0].dtype = OSCAR_F32; e[0].ndim = 2; e[0].shape[0] = 2; e[0].shape[1] = 3; e[0].data = a;
    e[1].name = "half"; e[1].dtype = OSCAR_F16; e[1].ndim = 1; e[1].shape[0] = 3; e[1].data = hb;
    e[2].name = "brain"; e[2].dtype = OSCAR_BF16; e[2].ndim = 1; e[2].shape[0] = 2; e[2].data = bb;
    CHECK(oscar_st_write(tmp_path("rt.safetensors"), e, 3, meta, 2, NULL) == OSCAR_OK, "write");
    CHECK(oscar_st_open(&st, tmp_path("rt.safetensors")) == OSCAR_OK, "%s", st.msg);
    CHECK(st.n_tensors == 3 && st.n_meta == 2, "counts");
    CHECK(!strcmp(oscar_st_meta(&st, "note"), meta[3]), "escaped metadata round trip");
    t = oscar_st_find(&st, "a");
    CHECK(t && t->ndim == 2 && t->shape[1] == 3 && oscar_st_read_f32(&st, t, out, 1) == OSCAR_OK && !memcmp(out, a, sizeof a), "F32 tensor");
    t = oscar_st_find(&st, "half");
    CHECK(t && oscar_st_read_f32(&st, t, out, 1) == OSCAR_OK && out[0] == 1.0f && out[1] == -2.0f && out[2] == 0.5f, "F16 tensor");
    t = oscar_st_find(&st, "brain");
    CHECK(t && oscar_st_read_f32(&st, t, out, 1) == OSCAR_OK && out[0] == 1.0f && out[1] == -3.0f, "BF16 tensor");
    CHECK(((st.data - st.bytes) % 8) == 0, "header padded to 8 bytes");
    oscar_st_close(&st);
    oscar_st_close(&st);

    {   /* malformed files: each rejected with OSCAR_ERR_FORMAT (or DTYPE) and a message */
        static const struct { const char *hdr; size_t data; const char *expect; } bad[] = {
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8, "expected"},        /* unterminated */
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,12]}}", 8, "out of"},       /* past the end */
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 12, "overlap"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "hole"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "bytes for"},    /* size mismatch */
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 16, "duplicate"},
            {"{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, "dtype"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, "integer"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8, "unexpected"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, "lacks"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[99999999999999],\"data_offsets\":[0,8]}}", 8, "absurd"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[999999999999,999999999999],\"data_offsets\":[0,8]}}", 8, "overflows"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}} x", 8, "trailing"},
            {"{\"__metadata__\":{\"k\":1}}", 0, "strings"},
            {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 12, "cover"},
            {"[]", 0, "expected '{'"},
        };
        uint8_t buf[512];
        size_t k;
        for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            size_t n = make_st(buf, bad[k].hdr, bad[k].data);
            int rc = oscar_st_parse(&st, buf, n, "bad.safetensors");
            CHECK(rc != OSCAR_OK && strstr(st.msg, "bad.safetensors") && strstr(st.msg, bad[k].expect), "case %d: rc %d msg '%s'", (int)k, rc, st.msg);
            CHECK(st.n_tensors == 0 && st.bytes == NULL, "case %d: nothing kept", (int)k);
        }
        /* truncations of a good file: every prefix is rejected without a crash */
        {
            FILE *f = fopen(tmp_path("rt.safetensors"), "rb");
            uint8_t whole[1024];
            size_t n = fread(whole, 1, sizeof whole, f), cut;
            int ok = 1;
            fclose(f);
            for (cut = 0; cut < n; cut++) {
                if (oscar_st_parse(&st, whole, cut, "cut") == OSCAR_OK) ok = 0;
                oscar_st_close(&st);
            }
            CHECK(ok, "every truncation rejected");
            whole[0] = 0xff; whole[1] = 0xff; whole[2] = 0xff; whole[3] = 0xff;
            CHECK(oscar_st_parse(&st, whole, n, "huge") == OSCAR_ERR_FORMAT && strstr(st.msg, "100 MB"), "huge header: %s", st.msg);
        }
        CHECK(oscar_st_open(&st, tmp_path("does-not-exist")) == OSCAR_ERR_IO && strstr(st.msg, "does-not-exist"), "missing file");
    }
    for (i = 0; i < 1; i++) (void)i;
}

static void test_rotation_files(void) {
    oscar_rotations r, back;
    int L = 3, d = 16, Hkv = 2, ph;
    for (ph = 0; ph < 2; ph++) {
        int nh = ph ? Hkv : 1, i;
        CHECK(oscar_rotations_alloc(&r, L, d, Hkv, ph) == OSCAR_OK, "%s", r.msg);
        for (i = 0; i < L * nh; i++) {
            synth_orthogonal(r.k_rot + (size_t)i * d * d, d, &rng);
            synth_orthogonal(r.v_rot + (size_t)i * d * d, d, &rng);
        }
        fill_normal(r.k_eval, (size_t)L * nh * d, 1.0);
        fill_normal(r.v_eval, (size_t)L * nh * d, 1.0);
        r.composition = OSCAR_COMP_R_H_PBR;
        r.k_clip = 0.95f;
        r.k_gain = ph; /* written only when set */
        r.group_size = 8;
        snprintf(r.model, sizeof r.model, "test-model");
        snprintf(r.calibration, sizeof r.calibration, "random, 0 tokens");
        CHECK(oscar_rotations_save(&r, tmp_path("rot.safetensors")) == OSCAR_OK, "%s", r.msg);
        CHECK(oscar_rotations_load(&back, tmp_path("rot.safetensors")) == OSCAR_OK, "%s", back.msg);
        CHECK(back.n_layers == L && back.head_dim == d && back.n_kv_heads == Hkv && back.per_head == ph && back.group_size == 8, "shape metadata");
        CHECK(back.k_clip == 0.95f && back.v_clip == 0.92f && back.composition == OSCAR_COMP_R_H_PBR, "clip metadata");
        CHECK(back.k_gain == ph && back.v_gain == 0, "gain metadata: %d %d", back.k_gain, back.v_gain);
        CHECK(!strcmp(back.model, "test-model") && !strcmp(back.calibration, "random, 0 tokens"), "free-form metadata");
        CHECK(!memcmp(back.k_rot, r.k_rot, sizeof(float) * L * nh * d * d) && !memcmp(back.v_eval, r.v_eval, sizeof(float) * L * nh * d), "data");
        oscar_rotations_free(&back);
        /* a non-orthogonal rotation, a NaN: rejected naming the tensor */
        r.v_rot[5] += 0.01f;
        oscar_rotations_save(&r, tmp_path("rot-bad.safetensors"));
        CHECK(oscar_rotations_load(&back, tmp_path("rot-bad.safetensors")) == OSCAR_ERR_NOT_ORTHOGONAL && strstr(back.msg, "layers.0.v.rotation"), "%s", back.msg);
        r.v_rot[5] -= 0.01f;
        r.k_eval[3] = NAN;
        oscar_rotations_save(&r, tmp_path("rot-bad.safetensors"));
        CHECK(oscar_rotations_load(&back, tmp_path("rot-bad.safetensors")) == OSCAR_ERR_NONFINITE && strstr(back.msg, "NaN"), "%s", back.msg);
        oscar_rotations_free(&r);
    }
    {   /* wrong metadata / missing tensor / wrong dtype */
        float R[4] = {1, 0, 0, 1}, ev[2] = {1, 1};
        uint16_t Rh[4] = {0x3c00, 0, 0, 0x3c00};
        oscar_st_entry e[4];
        const char *meta[] = {"format", "oscar-rotations", "format_version", "1", "head_dim", "2", "num_layers", "1", "num_kv_heads", "1",
                              "per_head", "false", "composition", "r_h_pbr", "k_clip", "0.96", "v_clip", "0.92", "group_size", "2"};
        int i;
        memset(e, 0, sizeof e);
        for (i = 0; i < 4; i++) {
            e[i].dtype = OSCAR_F32;
            e[i].ndim = (i & 1) ? 1 : 2;
            e[i].shape[0] = 2;
            e[i].shape[1] = 2;
            e[i].data = (i & 1) ? (const void *)ev : (const void *)R;
        }
        e[0].name = "layers.0.k.rotation"; e[1].name = "layers.0.k.eigenvalues"; e[2].name = "layers.0.v.rotation"; e[3].name = "layers.0.v.eigenvalues";
        oscar_st_write(tmp_path("r.safetensors"), e, 4, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_OK, "minimal file: %s", back.msg);
        oscar_rotations_free(&back);
        meta[5] = "3";
        oscar_st_write(tmp_path("r.safetensors"), e, 4, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_DIM, "head_dim 3: %s", back.msg);
        meta[5] = "4";
        oscar_st_write(tmp_path("r.safetensors"), e, 4, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_SHAPE && strstr(back.msg, "dim"), "head_dim mismatch: %s", back.msg);
        meta[5] = "2";
        meta[1] = "something-else";
        oscar_st_write(tmp_path("r.safetensors"), e, 4, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_FORMAT && strstr(back.msg, "not an oscar rotation file"), "%s", back.msg);
        meta[1] = "oscar-rotations";
        e[2].dtype = OSCAR_F16;
        e[2].data = Rh;
        oscar_st_write(tmp_path("r.safetensors"), e, 4, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_DTYPE && strstr(back.msg, "F32"), "%s", back.msg);
        oscar_st_write(tmp_path("r.safetensors"), e, 3, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_FORMAT && strstr(back.msg, "tensors"), "%s", back.msg);
        {   /* the optional gain metadata: both keys, 0 or 1 */
            const char *mg[24];
            memcpy(mg, meta, sizeof(meta));
            e[2].dtype = OSCAR_F32;
            e[2].data = R;
            mg[20] = "k_gain"; mg[21] = "1"; mg[22] = "v_gain"; mg[23] = "0";
            oscar_st_write(tmp_path("r.safetensors"), e, 4, mg, 12, NULL);
            CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_OK && back.k_gain == 1 && back.v_gain == 0, "gain metadata: %s", back.msg);
            oscar_rotations_free(&back);
            mg[23] = "2";
            oscar_st_write(tmp_path("r.safetensors"), e, 4, mg, 12, NULL);
            CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_FORMAT && strstr(back.msg, "v_gain"), "v_gain 2: %s", back.msg);
            oscar_st_write(tmp_path("r.safetensors"), e, 4, mg, 11, NULL);
            CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_FORMAT && strstr(back.msg, "v_gain"), "k_gain without v_gain: %s", back.msg);
            e[2].dtype = OSCAR_F16;
            e[2].data = Rh;
        }
        meta[7] = "two";
        oscar_st_write(tmp_path("r.safetensors"), e, 4, meta, 10, NULL);
        CHECK(oscar_rotations_load(&back, tmp_path("r.safetensors")) == OSCAR_ERR_FORMAT && strstr(back.msg, "num_layers"), "%s", back.msg);
        CHECK(back.k_rot == NULL, "nothing kept on failure");
    }
}

/* the cache's fixed-point rotation: its definition (checked against an independent computation:
   frexpf / ldexpf for the scale, the exact sum in double), its error against x . R in double, its
   edge rows, and bad matrices */
static void test_rotate_q14(void) {
    int d, i, j, r, exact = 1, worst_d = 0;
    double worst = 0.0, se = 0.0;
    long n_se = 0;
    for (d = 64; d <= 256; d *= 2) {
        float *R = (float *)malloc(sizeof(float) * d * d), x[256], y[256];
        int16_t *Rq = (int16_t *)malloc(sizeof(int16_t) * d * d);
        double *S = (double *)calloc((size_t)d * d, sizeof(double));
        for (i = 0; i < d; i++) S[(size_t)i * d + i] = 1.0 + i; /* a fitted-like dense R from a random symmetric S */
        for (i = 0; i < d; i++)
            for (j = 0; j < i; j++) S[(size_t)i * d + j] = S[(size_t)j * d + i] = 0.3 * synth_normal(&rng);
        CHECK(oscar_rotation_fit(R, NULL, S, d, OSCAR_COMP_R_H_PBR) == OSCAR_OK, "fit d %d", d);
        CHECK(oscar_rotation_q14(Rq, R, d) == OSCAR_OK, "q14 of a fitted rotation");
        for (r = 0; r < 14; r++) {
            double nx = 0.0;
            int e, ef;
            float m = 0.0f;
            if (r < 6) fill_normal(x, (size_t)d, r < 3 ? 1.0 : 200.0);
            else if (r == 6) for (i = 0; i < d; i++) x[i] = 0.0f;
            else if (r == 7) { for (i = 0; i < d; i++) x[i] = (i & 1) ? -0.0f : 0.0f; x[3] = 1e-42f; } /* subnormals */
            else if (r == 8) { fill_normal(x, (size_t)d, 1e-33); }
            else if (r == 9) { fill_normal(x, (size_t)d, 1.0); x[5] = 3000.0f; } /* an outlier */
            else if (r == 10) { for (i = 0; i < d; i++) x[i] = 0.0f; x[d - 1] = -32767.0f; }
            else if (r == 11) { fill_normal(x, (size_t)d, 1000.0); }
            else if (r == 12) { for (i = 0; i < d; i++) x[i] = (float)(i % 7) - 3.0f; }
            else fill_normal(x, (size_t)d, 1e-20);
            oscar_rotate_row_q14(y, x, Rq, d);
            for (i = 0; i < d; i++) m = fabsf(x[i]) > m ? fabsf(x[i]) : m;
            if (m > 0.0f) frexpf(m, &ef);
            else ef = -98;
            e = ef < -98 ? -98 : ef;
            for (j = 0; j < d; j++) {
                double P = 0.0, ref = 0.0;
                float want;
                for (i = 0; i < d; i++) {
                    P += (double)lrintf(ldexpf(x[i], 14 - e)) * (double)lrintf(ldexpf(R[(size_t)i * d + j], 14)); /* exact below 2^53 */
                    ref += (double)x[i] * R[(size_t)i * d + j];
                }
                want = ldexpf((float)P, e - 28);
                if (memcmp(&want, &y[j], 4)) exact = 0;
                if (r < 6 || r == 9 || r == 11) {
                    double err = fabs((double)y[j] - ref);
                    if (j == 0) { nx = 0.0; for (i = 0; i < d; i++) nx += (double)x[i] * x[i]; nx = sqrt(nx); }
                    if (err / nx > worst) worst = err / nx, worst_d = d;
                    se += (err / nx) * (err / nx), n_se++;
                }
            }
        }
        R[d + 3] = NAN;
        CHECK(oscar_rotation_q14(Rq, R, d) == OSCAR_ERR_RANGE, "NaN entry rejected");
        R[d + 3] = 1.6f;
        CHECK(oscar_rotation_q14(Rq, R, d) == OSCAR_ERR_RANGE, "entry 1.6 rejected");
        free(R);
        free(Rq);
        free(S);
    }
    CHECK(exact, "oscar_rotate_row_q14 equals its definition bit for bit (frexpf / ldexpf / exact double sum)");
    CHECK(worst <= 1.0 / 8192.0, "fixed-point rotation error %.3g ||x|| (d %d) within 2^-13 ||x||", worst, worst_d);
    printf("  rotate_q14: |y - x.R| / ||x||: rms 2^%.1f, worst 2^%.1f\n", 0.5 * log2(se / n_se), log2(worst));
    { /* a cache refuses a rotation that is not orthogonal */
        oscar_rotations bad;
        oscar_kv kv;
        oscar_kv_config cfg;
        oscar_rotations_alloc(&bad, 1, 64, 1, 0);
        bad.k_rot[70] = 3.0f;
        memset(&cfg, 0, sizeof cfg);
        cfg.n_layers = 1; cfg.n_kv_heads = 1; cfg.head_dim = 64;
        cfg.mode = OSCAR_KV_INT2;
        cfg.rot = &bad;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_ERR_RANGE && strstr(kv.msg, "orthogonal"), "init with |R| = 3: %s", kv.msg);
        oscar_rotations_free(&bad);
    }
}

/* a cache whose rotations are all H rotates rows by the fast transform (oscar_wht); any other
   matrix, even H with one element one ulp off, by the dense product */
static void test_cache_wht(void) {
    int d = 128, Hkv = 2, L = 2, n = 5, t, h, half, i, pass;
    oscar_rotations had, hph, fit;
    float *k = (float *)malloc(sizeof(float) * n * Hkv * d), *v = (float *)malloc(sizeof(float) * n * Hkv * d), row[128];
    fill_normal(k, (size_t)n * Hkv * d, 3.0);
    fill_normal(v, (size_t)n * Hkv * d, 0.5);
    k[7] = 4000.0f; /* an outlier channel */
    oscar_rotations_alloc(&had, L, d, Hkv, 0);
    oscar_rotations_alloc(&hph, L, d, Hkv, 1);
    oscar_rotations_alloc(&fit, L, d, Hkv, 0);
    oscar_rotations_set_fixed(&had, OSCAR_COMP_HADAMARD);
    oscar_rotations_set_fixed(&hph, OSCAR_COMP_HADAMARD);
    CHECK(oscar_rotations_is_hadamard(&had) && oscar_rotations_is_hadamard(&hph), "H rotations (shared, per head) are recognised");
    CHECK(!oscar_rotations_is_hadamard(&fit), "identity rotations are not H");
    CHECK(!oscar_rotations_is_hadamard(NULL), "NULL is not H");
    for (pass = 0; pass < 2; pass++) {
        oscar_kv kv;
        oscar_kv_config cfg;
        int seq = 0, same = 1;
        if (pass) { /* one element of layer 1's V rotation one ulp off: not H any more */
            uint32_t u;
            memcpy(&u, &had.v_rot[(size_t)d * d + 5], 4);
            u += 1;
            memcpy(&had.v_rot[(size_t)d * d + 5], &u, 4);
            CHECK(!oscar_rotations_is_hadamard(&had), "H with one element changed is not H");
        }
        memset(&cfg, 0, sizeof cfg);
        cfg.n_layers = L; cfg.n_kv_heads = Hkv; cfg.head_dim = d;
        cfg.mode = OSCAR_KV_INT2;
        cfg.rot = &had;
        CHECK(oscar_kv_init(&kv, &cfg) == OSCAR_OK, "%s", kv.msg);
        CHECK(kv.wht == !pass, "cache flag %d on pass %d", kv.wht, pass);
        oscar_kv_seq_create(&kv, &seq);
        CHECK(oscar_kv_append(&kv, seq, 1, k, v, n) == OSCAR_OK, "%s", kv.msg);
        for (t = 0; t < n; t++)
            for (h = 0; h < Hkv; h++)
                for (half = 0; half < 2; half++) {
                    const float *x = (half ? v : k) + ((size_t)t * Hkv + h) * d;
                    const uint16_t *got = oscar_kv_sink_ptr(&kv, seq, 1, h) + ((size_t)half * kv.S0 + t) * d;
                    if (pass) /* layer 1's rotation (shared over heads), in fixed point */
                        cache_rotate(row, x, (half ? had.v_rot : had.k_rot) + (size_t)d * d, d);
                    else {
                        memcpy(row, x, sizeof row);
                        oscar_wht(row, d);
                    }
                    for (i = 0; i < d; i++) same = same && got[i] == oscar_f32_to_bf16(row[i]);
                }
        CHECK(same, "pass %d: stored rows equal %s", pass, pass ? "the dense product" : "oscar_wht");
        oscar_kv_free(&kv);
    }
    /* the two rotations of x differ (so the check above can tell them apart) */
    memcpy(row, k, sizeof row);
    oscar_wht(row, d);
    {
        float dense[128];
        int differ = 0;
        oscar_hadamard_matrix(fit.k_rot, d);
        cache_rotate(dense, k, fit.k_rot, d);
        for (i = 0; i < d; i++) differ += dense[i] != row[i];
        CHECK(differ > 0, "the fast transform and the dense product of H round differently on this row (%d of %d elements)", differ, d);
    }
    oscar_rotations_free(&had);
    oscar_rotations_free(&hph);
    oscar_rotations_free(&fit);
    free(k);
    free(v);
}

int main(void) {
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/oscar-test-XXXXXX", t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        printf("cannot create a temporary directory\n");
        return 1;
    }
    printf("oscar %s tests\n", oscar_version());
#define RUN(f) do { int before = n_failed; f(); printf("  %-28s %s\n", #f, n_failed == before ? "ok" : "FAILED"); } while (0)
    RUN(test_numbers);
    RUN(test_wht);
    RUN(test_bitrev);
    RUN(test_jacobi);
    RUN(test_calib);
    RUN(test_fit);
    RUN(test_balance_math);
    RUN(test_codec_golden);
    RUN(test_codec_random);
    RUN(test_codec_gain);
    RUN(test_cache_bookkeeping);
    RUN(test_cache_fork_and_pool);
    RUN(test_cache_random_ops);
    RUN(test_attention);
    RUN(test_cache_center);
    RUN(test_cache_center_rope);
    RUN(test_cache_balance);
    RUN(test_mode_ordering);
    RUN(test_rotate_q14);
    RUN(test_cache_wht);
    RUN(test_cache_bad_input);
    RUN(test_safetensors);
    RUN(test_rotation_files);
    {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) printf("warning: could not remove %s\n", tmpdir);
    }
    printf("%d checks, %d failed\n", n_checks, n_failed);
    return n_failed ? 1 : 0;
}
