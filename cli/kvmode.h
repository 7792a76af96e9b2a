/* kvmode.h - the cache modes of SPEC section 8 by name, for the model commands (ppl, niah, the
   model demo; `oscar run` can use it too) - part of the oscar CLI - MIT

     bf16           every token BF16 (the reference)
     int2-naive     INT2 history, no rotation, no clip (the collapse baseline)
     int2-hadamard  INT2 history, Walsh-Hadamard rotation, clips 0.96 / 0.92 (QuaRot-style)
     oscar          INT2 history, fitted rotations (a rotation file), its clips, group size, gain
                    encoder and K balance when it has them
     oscar-c        oscar, and every K / V row stored less the file's calibration mean (the cache's
                    `center` option; needs a file with means, as `oscar calibrate` writes them)
     oscar-cr       oscar-c with the K mean taken before RoPE and turned to each row's position
                    (OSCAR_CENTER_ROPE; needs a file with the pre-RoPE K mean, as `oscar calibrate`
                    and `oscar fit` on an `oscar dump` write it)
     kivi2          KIVI-2: K per channel over each 128-token page (2 + 32/128 = 2.25 bits),
                    V per token (2 + 32/g bits), no rotation, no clip
     plain-bf16, plain-f32   no cache: the runner's plain softmax attention (for checks)
   All INT2 modes share the sink (64) and window (256) unless the caller changes them. */
#ifndef OSCAR_CLI_KVMODE_H
#define OSCAR_CLI_KVMODE_H

#include <stdio.h>
#include <string.h>
#include "llama.h"

enum { KVM_BF16, KVM_NAIVE, KVM_HADAMARD, KVM_OSCAR, KVM_KIVI2, KVM_PLAIN_BF16, KVM_PLAIN_F32, KVM_OSCAR_C, KVM_OSCAR_CR, KVM_COUNT };

static const char *const kvm_names[KVM_COUNT] = {"bf16", "int2-naive", "int2-hadamard", "oscar", "kivi2", "plain-bf16", "plain-f32", "oscar-c", "oscar-cr"};

/* the mode's index, or -1 */
static int kvm_parse(const char *name) {
    int i;
    for (i = 0; i < KVM_COUNT; i++)
        if (!strcmp(name, kvm_names[i])) return i;
    return -1;
}

/* Fills cfg->attn and cfg->kv (mode, clips, page size, group, rotations) for a mode, leaving the
   sink and window as the caller set them. had: Hadamard rotations for int2-hadamard; fitted: the
   rotation file for oscar. Returns 0, or -1 with a message in msg[OSCAR_MSG_SIZE]. */
static int kvm_config(llm_ctx_config *cfg, int mode, const oscar_rotations *had, const oscar_rotations *fitted, char *msg) {
    oscar_kv_config *kv = &cfg->kv;
    cfg->attn = mode == KVM_PLAIN_BF16 ? LLM_ATTN_PLAIN_BF16 : mode == KVM_PLAIN_F32 ? LLM_ATTN_PLAIN_F32 : LLM_ATTN_OSCAR;
    kv->mode = mode == KVM_KIVI2 ? OSCAR_KV_KIVI2 : (mode == KVM_NAIVE || mode == KVM_HADAMARD || mode == KVM_OSCAR || mode == KVM_OSCAR_C || mode == KVM_OSCAR_CR) ? OSCAR_KV_INT2 : OSCAR_KV_BF16;
    kv->rot = NULL;
    kv->center = 0;
    kv->k_clip = kv->v_clip = 0.0f;
    kv->k_gain = kv->v_gain = 0;
    kv->k_balance = 0;
    if (mode == KVM_NAIVE || mode == KVM_KIVI2) kv->k_clip = kv->v_clip = -1.0f;
    if (mode == KVM_KIVI2) kv->page_size = 128;
    if (mode == KVM_HADAMARD) {
        if (!had) return snprintf(msg, OSCAR_MSG_SIZE, "int2-hadamard needs Hadamard rotations"), -1;
        kv->rot = had;
    }
    if (mode == KVM_OSCAR || mode == KVM_OSCAR_C || mode == KVM_OSCAR_CR) {
        if (!fitted) return snprintf(msg, OSCAR_MSG_SIZE, "--kv %s needs --rot FILE (fitted rotations, see `oscar calibrate`)", kvm_names[mode]), -1;
        if (mode == KVM_OSCAR_C && (!fitted->k_mean || !fitted->v_mean))
            return snprintf(msg, OSCAR_MSG_SIZE, "--kv oscar-c needs a rotation file with K/V means (written by `oscar calibrate` / `oscar fit` since they compute them)"), -1;
        if (mode == KVM_OSCAR_CR && (!fitted->k_rope_mean || !fitted->v_mean))
            return snprintf(msg, OSCAR_MSG_SIZE, "--kv oscar-cr needs a rotation file with the K mean before RoPE (k.rope_mean, written by `oscar calibrate` / `oscar fit` on an `oscar dump`)"), -1;
        kv->center = mode == KVM_OSCAR_C ? OSCAR_CENTER_MEAN : mode == KVM_OSCAR_CR ? OSCAR_CENTER_ROPE : OSCAR_CENTER_NONE;
        kv->rot = fitted;
        kv->k_clip = fitted->k_clip > 0 ? fitted->k_clip : -1.0f;
        kv->v_clip = fitted->v_clip > 0 ? fitted->v_clip : -1.0f;
        kv->k_gain = fitted->k_gain;
        kv->v_gain = fitted->v_gain;
        kv->k_balance = fitted->k_balance != NULL; /* the file's K balance (oscar_balance_fit) */
        if (!kv->group_size && fitted->group_size > 0) kv->group_size = fitted->group_size;
    }
    return 0;
}

/* Parses "bf16,oscar,..." into modes[] (at most KVM_COUNT, no repeats). Returns the count or -1. */
static int kvm_parse_list(const char *cmd, const char *list, int *modes) {
    char buf[256], *s, *tok;
    int n = 0, i;
    if (strlen(list) >= sizeof buf) return fprintf(stderr, "oscar %s: --kv list too long\n", cmd), -1;
    strcpy(buf, list);
    for (s = buf; (tok = strtok(s, ",")) != NULL; s = NULL) {
        int m = kvm_parse(tok);
        if (m < 0) {
            fprintf(stderr, "oscar %s: unknown --kv mode '%s' (bf16, int2-naive, int2-hadamard, oscar, oscar-c, oscar-cr, kivi2, plain-bf16, plain-f32)\n", cmd, tok);
            return -1;
        }
        for (i = 0; i < n; i++)
            if (modes[i] == m) break;
        if (i == n) modes[n++] = m;
    }
    if (!n) fprintf(stderr, "oscar %s: --kv needs at least one mode\n", cmd);
    return n ? n : -1;
}

#endif
