/* embed.c - the README's embedding example, complete: a 2-layer cache in INT2 mode with Hadamard
   rotations, 1000 tokens appended, one decode step, memory per segment. Build:
       cc -std=c99 -O2 -I. examples/embed.c -o embed -lm */
#define OSCAR_IMPLEMENTATION
#include "oscar.h"
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    enum { L = 2, HKV = 2, HQ = 8, D = 64, N = 1000 };
    static float k[N][HKV][D], v[N][HKV][D], q[HQ][D], out[HQ][D];
    oscar_rotations rot;
    oscar_kv kv;
    oscar_kv_config cfg = {0};
    oscar_kv_memory mem;
    int seq, t, l, i;
    for (t = 0; t < N; t++) /* stand-ins for a model's post-RoPE keys and values */
        for (i = 0; i < HKV * D; i++) {
            k[t][i / D][i % D] = (float)((rand() % 2001) - 1000) / 500.0f;
            v[t][i / D][i % D] = (float)((rand() % 2001) - 1000) / 500.0f;
        }
    for (i = 0; i < HQ * D; i++) q[i / D][i % D] = (float)((rand() % 2001) - 1000) / 1000.0f;

    if (oscar_rotations_alloc(&rot, L, D, HKV, 0) != OSCAR_OK) return 1;
    oscar_rotations_set_fixed(&rot, OSCAR_COMP_HADAMARD); /* or oscar_rotations_load(&rot, "rot.safetensors") */
    cfg.n_layers = L; cfg.n_kv_heads = HKV; cfg.head_dim = D;
    cfg.mode = OSCAR_KV_INT2; cfg.rot = &rot;
    if (oscar_kv_init(&kv, &cfg) != OSCAR_OK) { fprintf(stderr, "%s\n", kv.msg); return 1; }
    oscar_kv_seq_create(&kv, &seq);
    for (l = 0; l < L; l++) /* prefill: all tokens of a layer at once */
        if (oscar_kv_append(&kv, seq, l, &k[0][0][0], &v[0][0][0], N) != OSCAR_OK) { fprintf(stderr, "%s\n", kv.msg); return 1; }
    for (l = 0; l < L; l++) /* one decode step */
        if (oscar_kv_attend(&kv, seq, l, &out[0][0], &q[0][0], HQ, 0.0f) != OSCAR_OK) { fprintf(stderr, "%s\n", kv.msg); return 1; }
    oscar_kv_memory_usage(&kv, seq, &mem);
    printf("%lld tokens: sink %lld, INT2 history %lld, BF16 window %lld; %.0f bytes/token, %.2f bits/element (BF16: %zu bytes)\n",
           (long long)mem.n_tokens, (long long)mem.n_sink, (long long)mem.n_history, (long long)mem.n_window,
           mem.bytes_per_token, mem.bits_per_element, mem.bf16_equiv_bytes);
    oscar_kv_free(&kv);
    oscar_rotations_free(&rot);
    return 0;
}
