/* tokenizer.h - byte-level BPE tokenizer read from GGUF metadata - part of the oscar CLI - MIT

   DO THIS
       #define TOK_IMPLEMENTATION       (in exactly one .c file; needs gguf.h's declarations)
       #include "tokenizer.h"

   WHAT IT DOES (the GPT-2 byte-level BPE of tokenizer.ggml.model = "gpt2")
     1. Special tokens (token type 3 "control" or 4 "user defined", e.g. <|im_start|>) found in
        the text become their own ids when parse_special is set.
     2. Pre-tokenizer of tokenizer.ggml.pre = "smollm" (HF: Digits(individual) + ByteLevel):
        every numeric code point (Unicode category N) is a piece of its own; the text between
        them is split by the GPT-2 pattern, written out by hand here:
            's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
        (\s is the Unicode White_Space property; invalid UTF-8 bytes count as symbols).
     3. Each piece's bytes are mapped to GPT-2's printable code points and merged pairwise by
        rank (tokenizer.ggml.merges) until no known merge is left.
   Other pre-tokenizer names are accepted with a warning in tok->msg (same pattern, no digit
   split for "gpt2"/"default").

   NO GLOBAL STATE; a loaded tok_vocab is read-only and may be shared between threads.
*/
#ifndef TOKENIZER_H
#define TOKENIZER_H

#include <stddef.h>
#include <stdint.h>
#include "gguf.h"

#define TOK_MSG_SIZE 384

typedef struct tok_vocab {
    int n_vocab;
    char **text;       /* [n_vocab] token strings as stored (GPT-2 byte-mapped UTF-8) */
    int *type;         /* [n_vocab] 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte */
    uint8_t *bytes;    /* decoded byte strings of all tokens, concatenated */
    size_t *off;       /* [n_vocab + 1] offsets into bytes */
    int byte_id[256];  /* id of the single-byte token of each byte (-1 if none) */
    int *special;      /* ids of the special tokens, longest text first */
    int n_special;
    int bos, eos, eot, unk, add_bos;
    int split_digits;
    /* hash tables (open addressing, power-of-two sizes) */
    int *str_tab; uint32_t str_mask;               /* token text -> id */
    uint64_t *mrg_key; int *mrg_rank, *mrg_id; uint32_t mrg_mask; /* (left, right) -> rank, merged id */
    char msg[TOK_MSG_SIZE];
} tok_vocab;

#ifdef __cplusplus
extern "C" {
#endif
/* 0 on success, -1 with tok->msg set; tok_free accepts a failed or zeroed tok_vocab */
int tok_load(tok_vocab *tok, gguf_file *f);
void tok_free(tok_vocab *tok);
/* *ids gets a malloc'ed array of *n ids (free it). 0 on success, -1 on out of memory. */
int tok_encode(const tok_vocab *tok, const char *text, size_t len, int parse_special, int **ids, int *n);
/* decoded bytes of a token (not NUL-terminated) */
const uint8_t *tok_piece(const tok_vocab *tok, int id, size_t *len);
int tok_id(const tok_vocab *tok, const char *text); /* -1 if not a token */
int tok_is_control(const tok_vocab *tok, int id);
#ifdef __cplusplus
}
#endif
#endif /* TOKENIZER_H */

#ifdef TOK_IMPLEMENTATION
#ifndef TOK_IMPLEMENTATION_DONE
#define TOK_IMPLEMENTATION_DONE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unicode_tab.h"

static int tok__in(const uint32_t (*r)[2], int n, uint32_t cp) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < r[mid][0]) hi = mid - 1;
        else if (cp > r[mid][1]) lo = mid + 1;
        else return 1;
    }
    return 0;
}
static int tok__is_l(uint32_t cp) {
    if (cp < 128) return (cp | 32) >= 'a' && (cp | 32) <= 'z';
    return tok__in(unicode_tab_L, (int)(sizeof unicode_tab_L / sizeof unicode_tab_L[0]), cp);
}
static int tok__is_n(uint32_t cp) {
    if (cp < 128) return cp >= '0' && cp <= '9';
    return tok__in(unicode_tab_N, (int)(sizeof unicode_tab_N / sizeof unicode_tab_N[0]), cp);
}
static int tok__is_s(uint32_t cp) { /* Unicode White_Space */
    return (cp >= 9 && cp <= 13) || cp == 32 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

/* decodes one UTF-8 code point; invalid bytes give 0xFFFFFFFF with length 1 */
static uint32_t tok__utf8(const uint8_t *s, size_t n, int *len) {
    uint32_t c = s[0], cp;
    int k, i;
    *len = 1;
    if (c < 0x80) return c;
    if ((c & 0xE0) == 0xC0) { k = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { k = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { k = 3; cp = c & 0x07; }
    else return 0xFFFFFFFFu;
    if ((size_t)k >= n) return 0xFFFFFFFFu;
    for (i = 1; i <= k; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0xFFFFFFFFu;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFFFFFFu;
    *len = k + 1;
    return cp;
}

static int tok__put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

/* GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to 256 + n */
static void tok__byte_map(uint32_t map[256]) {
    int b, n = 0;
    for (b = 0; b < 256; b++) {
        int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
        map[b] = printable ? (uint32_t)b : (uint32_t)(256 + n++);
    }
}

static uint32_t tok__hash(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}
static uint32_t tok__hash64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x;
}

static int tok__find(const tok_vocab *t, const char *s, size_t n) {
    uint32_t h = tok__hash(s, n) & t->str_mask;
    for (;;) {
        int id = t->str_tab[h];
        if (id < 0) return -1;
        if (strlen(t->text[id]) == n && memcmp(t->text[id], s, n) == 0) return id;
        h = (h + 1) & t->str_mask;
    }
}

int tok_id(const tok_vocab *t, const char *s) { return tok__find(t, s, strlen(s)); }
int tok_is_control(const tok_vocab *t, int id) {
    return id >= 0 && id < t->n_vocab && (t->type[id] == 3 || t->type[id] == 5);
}

static int tok__merge_find(const tok_vocab *t, int l, int r, int *merged) {
    uint64_t key = ((uint64_t)(uint32_t)l << 32) | (uint32_t)r;
    uint32_t h = tok__hash64(key) & t->mrg_mask;
    for (;;) {
        if (t->mrg_rank[h] < 0) return -1;
        if (t->mrg_key[h] == key) {
            *merged = t->mrg_id[h];
            return t->mrg_rank[h];
        }
        h = (h + 1) & t->mrg_mask;
    }
}

static int tok__fail(tok_vocab *t, const char *what) {
    snprintf(t->msg, sizeof t->msg, "tokenizer: %.300s", what);
    return -1;
}

static int tok__cmp_len_desc(const void *a, const void *b, const tok_vocab *t) {
    size_t la = strlen(t->text[*(const int *)a]), lb = strlen(t->text[*(const int *)b]);
    return la < lb ? 1 : la > lb ? -1 : 0;
}

int tok_load(tok_vocab *t, gguf_file *f) {
    const gguf_kv *toks = NULL, *types = NULL, *merges = NULL;
    gguf_str model, pre;
    uint32_t map[256], inv[512];
    uint32_t u;
    int i, n;
    size_t total = 0, cap;
    memset(t, 0, sizeof *t);
    t->bos = t->eos = t->eot = t->unk = -1;
    if (gguf_get_str(f, "tokenizer.ggml.model", &model)) return tok__fail(t, f->msg);
    if (model.len != 4 || memcmp(model.p, "gpt2", 4) != 0)
        return tok__fail(t, "only byte-level BPE (tokenizer.ggml.model = gpt2) is supported");
    t->split_digits = 1;
    if (gguf_find_key(f, "tokenizer.ggml.pre") && gguf_get_str(f, "tokenizer.ggml.pre", &pre) == 0) {
        if ((pre.len == 4 && memcmp(pre.p, "gpt2", 4) == 0) || (pre.len == 7 && memcmp(pre.p, "default", 7) == 0))
            t->split_digits = 0;
        else if (!(pre.len == 6 && memcmp(pre.p, "smollm", 6) == 0))
            snprintf(t->msg, sizeof t->msg, "warning: pre-tokenizer '%.*s' treated as smollm", (int)(pre.len > 64 ? 64 : pre.len), pre.p);
    }
    if (gguf_get_arr(f, "tokenizer.ggml.tokens", GGUF_T_STRING, &toks)) return tok__fail(t, f->msg);
    if (gguf_get_arr(f, "tokenizer.ggml.merges", GGUF_T_STRING, &merges)) return tok__fail(t, f->msg);
    if (gguf_find_key(f, "tokenizer.ggml.token_type") &&
        gguf_get_arr(f, "tokenizer.ggml.token_type", GGUF_T_I32, &types)) return tok__fail(t, f->msg);
    if (toks->arr_n < 256 || toks->arr_n > (1u << 24)) return tok__fail(t, "vocabulary size out of range");
    if (types && types->arr_n != toks->arr_n) return tok__fail(t, "token_type and tokens differ in length");
    n = t->n_vocab = (int)toks->arr_n;
    t->text = (char **)calloc((size_t)n, sizeof(char *));
    t->type = (int *)calloc((size_t)n, sizeof(int));
    t->off = (size_t *)calloc((size_t)n + 1, sizeof(size_t));
    if (!t->text || !t->type || !t->off) return tok__fail(t, "out of memory");
    for (i = 0; i < n; i++) {
        gguf_str s = toks->arr_str[i];
        if (memchr(s.p, 0, (size_t)s.len)) return tok__fail(t, "a token contains a NUL byte");
        t->text[i] = (char *)malloc((size_t)s.len + 1);
        if (!t->text[i]) return tok__fail(t, "out of memory");
        memcpy(t->text[i], s.p, (size_t)s.len);
        t->text[i][s.len] = 0;
        t->type[i] = types ? (int)(int32_t)gguf__le(types->arr + 4 * (size_t)i, 4) : 1;
        total += (size_t)s.len;
    }
    /* token text -> id */
    for (cap = 1; cap < (size_t)n * 2; cap <<= 1) {}
    t->str_mask = (uint32_t)cap - 1;
    t->str_tab = (int *)malloc(cap * sizeof(int));
    if (!t->str_tab) return tok__fail(t, "out of memory");
    for (i = 0; i < (int)cap; i++) t->str_tab[i] = -1;
    for (i = 0; i < n; i++) {
        size_t len = strlen(t->text[i]);
        uint32_t h = tok__hash(t->text[i], len) & t->str_mask;
        if (tok__find(t, t->text[i], len) >= 0) continue; /* duplicate text: first id wins */
        while (t->str_tab[h] >= 0) h = (h + 1) & t->str_mask;
        t->str_tab[h] = i;
    }
    /* decoded bytes of every token */
    tok__byte_map(map);
    for (i = 0; i < 512; i++) inv[i] = 0xFFFFFFFFu;
    for (i = 0; i < 256; i++) inv[map[i]] = (uint32_t)i;
    t->bytes = (uint8_t *)malloc(total + 1);
    if (!t->bytes) return tok__fail(t, "out of memory");
    total = 0;
    for (i = 0; i < n; i++) {
        const uint8_t *s = (const uint8_t *)t->text[i];
        size_t len = strlen(t->text[i]), p = 0;
        t->off[i] = total;
        if (t->type[i] == 3 || t->type[i] == 4) { /* special: its text as is */
            memcpy(t->bytes + total, s, len);
            total += len;
            continue;
        }
        while (p < len) {
            int l;
            uint32_t cp = tok__utf8(s + p, len - p, &l);
            if (cp < 512 && inv[cp] != 0xFFFFFFFFu) t->bytes[total++] = (uint8_t)inv[cp];
            else { memcpy(t->bytes + total, s + p, (size_t)l); total += (size_t)l; }
            p += (size_t)l;
        }
    }
    t->off[n] = total;
    for (i = 0; i < 256; i++) {
        char buf[4];
        int l = tok__put_utf8(buf, map[i]);
        t->byte_id[i] = tok__find(t, buf, (size_t)l);
    }
    /* merges */
    for (cap = 1; cap < (size_t)merges->arr_n * 2 + 2; cap <<= 1) {}
    t->mrg_mask = (uint32_t)cap - 1;
    t->mrg_key = (uint64_t *)malloc(cap * sizeof(uint64_t));
    t->mrg_rank = (int *)malloc(cap * sizeof(int));
    t->mrg_id = (int *)malloc(cap * sizeof(int));
    if (!t->mrg_key || !t->mrg_rank || !t->mrg_id) return tok__fail(t, "out of memory");
    for (i = 0; i < (int)cap; i++) t->mrg_rank[i] = -1;
    {
        char *buf = NULL;
        size_t bcap = 0;
        uint64_t m;
        for (m = 0; m < merges->arr_n; m++) {
            gguf_str s = merges->arr_str[m];
            const char *sp = (const char *)memchr(s.p, ' ', (size_t)s.len);
            int l, r, lr, dummy;
            uint64_t key;
            uint32_t h;
            if (!sp) continue;
            if (s.len + 1 > bcap) {
                char *nb = (char *)realloc(buf, (size_t)s.len + 1);
                if (!nb) { free(buf); return tok__fail(t, "out of memory"); }
                buf = nb;
                bcap = (size_t)s.len + 1;
            }
            l = tok__find(t, s.p, (size_t)(sp - s.p));
            r = tok__find(t, sp + 1, (size_t)(s.p + s.len - sp - 1));
            memcpy(buf, s.p, (size_t)(sp - s.p));
            memcpy(buf + (sp - s.p), sp + 1, (size_t)(s.p + s.len - sp - 1));
            lr = tok__find(t, buf, (size_t)s.len - 1);
            if (l < 0 || r < 0 || lr < 0) continue;
            if (tok__merge_find(t, l, r, &dummy) >= 0) continue;
            key = ((uint64_t)(uint32_t)l << 32) | (uint32_t)r;
            h = tok__hash64(key) & t->mrg_mask;
            while (t->mrg_rank[h] >= 0) h = (h + 1) & t->mrg_mask;
            t->mrg_key[h] = key;
            t->mrg_rank[h] = (int)m;
            t->mrg_id[h] = lr;
        }
        free(buf);
    }
    /* specials, longest first */
    t->special = (int *)malloc((size_t)n * sizeof(int));
    if (!t->special) return tok__fail(t, "out of memory");
    for (i = 0; i < n; i++)
        if ((t->type[i] == 3 || t->type[i] == 4) && t->text[i][0]) t->special[t->n_special++] = i;
    for (i = 1; i < t->n_special; i++) { /* insertion sort, few entries */
        int j = i, v = t->special[i];
        while (j > 0 && tok__cmp_len_desc(&t->special[j - 1], &v, t) > 0) {
            t->special[j] = t->special[j - 1];
            j--;
        }
        t->special[j] = v;
    }
    if (gguf_find_key(f, "tokenizer.ggml.bos_token_id") && gguf_get_u32(f, "tokenizer.ggml.bos_token_id", &u) == 0 && u < (uint32_t)n) t->bos = (int)u;
    if (gguf_find_key(f, "tokenizer.ggml.eos_token_id") && gguf_get_u32(f, "tokenizer.ggml.eos_token_id", &u) == 0 && u < (uint32_t)n) t->eos = (int)u;
    if (gguf_find_key(f, "tokenizer.ggml.unknown_token_id") && gguf_get_u32(f, "tokenizer.ggml.unknown_token_id", &u) == 0 && u < (uint32_t)n) t->unk = (int)u;
    if (gguf_find_key(f, "tokenizer.ggml.add_bos_token")) gguf_get_bool(f, "tokenizer.ggml.add_bos_token", &t->add_bos);
    t->eot = tok_id(t, "<|im_end|>");
    return 0;
}

void tok_free(tok_vocab *t) {
    int i;
    if (!t) return;
    if (t->text)
        for (i = 0; i < t->n_vocab; i++) free(t->text[i]);
    free(t->text);
    free(t->type);
    free(t->bytes);
    free(t->off);
    free(t->special);
    free(t->str_tab);
    free(t->mrg_key);
    free(t->mrg_rank);
    free(t->mrg_id);
    memset(t, 0, sizeof *t);
}

const uint8_t *tok_piece(const tok_vocab *t, int id, size_t *len) {
    if (id < 0 || id >= t->n_vocab) {
        *len = 0;
        return (const uint8_t *)"";
    }
    *len = t->off[id + 1] - t->off[id];
    return t->bytes + t->off[id];
}

typedef struct tok__out {
    int *ids;
    int n, cap;
} tok__out;

static int tok__push(tok__out *o, int id) {
    if (o->n == o->cap) {
        int nc = o->cap ? o->cap * 2 : 64;
        int *ni = (int *)realloc(o->ids, (size_t)nc * sizeof(int));
        if (!ni) return -1;
        o->ids = ni;
        o->cap = nc;
    }
    o->ids[o->n++] = id;
    return 0;
}

/* BPE of one piece (bytes s[0..n)); sym is scratch of n ints */
static int tok__bpe(const tok_vocab *t, const uint8_t *s, size_t n, int *sym, tok__out *o) {
    size_t m = 0, i;
    for (i = 0; i < n; i++) {
        int id = t->byte_id[s[i]];
        if (id < 0) id = t->unk >= 0 ? t->unk : 0;
        sym[m++] = id;
    }
    while (m > 1) {
        int best = -1, best_id = -1;
        size_t bi = 0;
        for (i = 0; i + 1 < m; i++) {
            int mid, r = tok__merge_find(t, sym[i], sym[i + 1], &mid);
            if (r >= 0 && (best < 0 || r < best)) {
                best = r;
                best_id = mid;
                bi = i;
            }
        }
        if (best < 0) break;
        sym[bi] = best_id;
        memmove(sym + bi + 1, sym + bi + 2, (m - bi - 2) * sizeof(int));
        m--;
    }
    for (i = 0; i < m; i++)
        if (tok__push(o, sym[i])) return -1;
    return 0;
}

/* pre-tokenizes text (no specials) and runs BPE on each piece */
static int tok__text(const tok_vocab *t, const uint8_t *s, size_t n, tok__out *o) {
    uint32_t *cp;
    size_t *bo, nc = 0, i, p = 0;
    int *sym;
    int rc = 0;
    if (n == 0) return 0;
    cp = (uint32_t *)malloc((n + 1) * sizeof(uint32_t));
    bo = (size_t *)malloc((n + 1) * sizeof(size_t));
    sym = (int *)malloc(n * sizeof(int));
    if (!cp || !bo || !sym) {
        free(cp); free(bo); free(sym);
        return -1;
    }
    while (p < n) {
        int l;
        cp[nc] = tok__utf8(s + p, n - p, &l);
        bo[nc++] = p;
        p += (size_t)l;
    }
    bo[nc] = n;
    i = 0;
    while (i < nc && rc == 0) {
        size_t end, j;
        /* the run up to the next digit (digits are pieces of their own) */
        if (t->split_digits && tok__is_n(cp[i])) {
            rc = tok__bpe(t, s + bo[i], bo[i + 1] - bo[i], sym, o);
            i++;
            continue;
        }
        end = i;
        while (end < nc && !(t->split_digits && tok__is_n(cp[end]))) end++;
        /* GPT-2 pattern over [i, end) */
        while (i < end && rc == 0) {
            uint32_t c = cp[i];
            j = i + 1;
            if (c == '\'' && i + 1 < end) {
                uint32_t a = cp[i + 1], b = i + 2 < end ? cp[i + 2] : 0;
                if (a == 's' || a == 't' || a == 'm' || a == 'd') j = i + 2;
                else if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) j = i + 3;
            }
            if (j == i + 1) {
                size_t k = (c == ' ' && i + 1 < end) ? i + 1 : i; /* optional leading space */
                uint32_t d = cp[k];
                if (tok__is_l(d)) {
                    j = k + 1;
                    while (j < end && tok__is_l(cp[j])) j++;
                } else if (tok__is_n(d)) {
                    j = k + 1;
                    while (j < end && tok__is_n(cp[j])) j++;
                } else if (!tok__is_s(d)) {
                    j = k + 1;
                    while (j < end && !tok__is_s(cp[j]) && !tok__is_l(cp[j]) && !tok__is_n(cp[j])) j++;
                } else if (tok__is_s(c)) {
                    size_t w = i + 1;
                    while (w < end && tok__is_s(cp[w])) w++;
                    /* \s+(?!\S): leave the last space to the next piece unless at the end */
                    if (w < end && w - i > 1) j = w - 1;
                    else j = w;
                }
            }
            rc = tok__bpe(t, s + bo[i], bo[j] - bo[i], sym, o);
            i = j;
        }
    }
    free(cp);
    free(bo);
    free(sym);
    return rc;
}

int tok_encode(const tok_vocab *t, const char *text, size_t n, int parse_special, int **ids, int *n_ids) {
    tok__out o = {NULL, 0, 0};
    const uint8_t *s = (const uint8_t *)text;
    size_t start = 0, p = 0;
    *ids = NULL;
    *n_ids = 0;
    if (t->add_bos && t->bos >= 0 && tok__push(&o, t->bos)) return -1;
    while (p < n) {
        int hit = -1, k;
        if (parse_special)
            for (k = 0; k < t->n_special; k++) {
                const char *sp = t->text[t->special[k]];
                size_t l;
                if ((uint8_t)sp[0] != s[p]) continue;
                l = strlen(sp);
                if (l <= n - p && memcmp(s + p, sp, l) == 0) {
                    hit = t->special[k];
                    break;
                }
            }
        if (hit >= 0) {
            if (tok__text(t, s + start, p - start, &o) || tok__push(&o, hit)) {
                free(o.ids);
                return -1;
            }
            p += strlen(t->text[hit]);
            start = p;
        } else {
            p++;
        }
    }
    if (tok__text(t, s + start, n - start, &o)) {
        free(o.ids);
        return -1;
    }
    *ids = o.ids;
    *n_ids = o.n;
    return 0;
}

#endif /* TOK_IMPLEMENTATION_DONE */
#endif /* TOK_IMPLEMENTATION */
