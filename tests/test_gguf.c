/* test_gguf.c - the GGUF reader (cli/gguf.h) on valid and malformed files.

   usage: test_gguf [MODEL.gguf]
   Builds small GGUF files in memory, breaks them in every way the reader checks, and expects
   a rejection with a message naming the problem (never a crash: run it under ASan with
   `make asan-model`). Then every truncation of a valid file, and a seeded byte-flip fuzz.
   With MODEL.gguf (optional), the real model parses and its truncations are rejected. */
#define GGUF_IMPLEMENTATION
#include "../cli/gguf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_pass, n_fail;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (cond) n_pass++;                                \
        else {                                             \
            n_fail++;                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
        }                                                  \
    } while (0)

/* a growable byte buffer */
typedef struct buf { uint8_t *p; size_t n, cap; } buf;
static void put(buf *b, const void *x, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (uint8_t *)realloc(b->p, b->cap);
        if (!b->p) exit(1);
    }
    memcpy(b->p + b->n, x, n);
    b->n += n;
}
static void u32(buf *b, uint32_t v) { uint8_t x[4]; int i; for (i = 0; i < 4; i++) x[i] = (uint8_t)(v >> (8 * i)); put(b, x, 4); }
static void u64(buf *b, uint64_t v) { uint8_t x[8]; int i; for (i = 0; i < 8; i++) x[i] = (uint8_t)(v >> (8 * i)); put(b, x, 8); }
static void str(buf *b, const char *s) { u64(b, strlen(s)); put(b, s, strlen(s)); }
static void pad(buf *b, size_t a) { uint8_t z = 0; while (b->n % a) put(b, &z, 1); }

/* what to break in the builder */
enum {
    OK = 0, BAD_MAGIC, VERSION_1, VERSION_9, BIG_ENDIAN, HUGE_TENSORS, HUGE_KV, HUGE_STRING,
    HUGE_ARRAY, KV_TYPE, ARRAY_TYPE, TENSOR_TYPE, DIMS_5, DIM_ZERO, DIM_OVERFLOW, MISALIGNED,
    OFFSET_OUT, OVERLAP, DUP_KEY, DUP_TENSOR, ALIGN_NOT_POW2, ALIGN_TYPE, BLOCK_MULTIPLE,
    BAD_BOOL, N_CASES
};
static const struct { const char *name, *expect; } cases[N_CASES] = {
    {"valid", NULL},
    {"wrong magic", "bad magic"},
    {"version 1", "version 1"},
    {"version 9", "unsupported GGUF version 9"},
    {"big-endian", "big-endian"},
    {"huge tensor count", "tensor count"},
    {"huge key/value count", "key/value count"},
    {"huge string length", "truncated"},
    {"huge array count", "array count"},
    {"unknown value type", "unknown value type"},
    {"unknown array type", "unknown array element type"},
    {"unknown tensor type", "unknown ggml type 99"},
    {"5 dimensions", "5 dimensions"},
    {"zero dimension", "zero or element count overflows"},
    {"dimension overflow", "zero or element count overflows"},
    {"misaligned offset", "not a multiple of the alignment"},
    {"offset out of file", "outside the data section"},
    {"overlapping tensors", "overlap"},
    {"duplicate key", "duplicate key"},
    {"duplicate tensor", "duplicate tensor name"},
    {"alignment not a power of two", "not a power of two"},
    {"alignment of the wrong type", "expected u32"},
    {"dimension not a multiple of the block", "not a multiple of the Q4_1 block size"},
    {"bool not 0/1", "bool value"},
};

static buf build(int bad) {
    buf b = {NULL, 0, 0};
    uint32_t align = 32;
    put(&b, bad == BAD_MAGIC ? "GGUX" : "GGUF", 4);
    u32(&b, bad == VERSION_1 ? 1 : bad == VERSION_9 ? 9 : bad == BIG_ENDIAN ? 0x03000000u : 3);
    u64(&b, bad == HUGE_TENSORS ? (uint64_t)1 << 60 : 2); /* tensors */
    u64(&b, bad == HUGE_KV ? (uint64_t)-1 : 5);            /* key/values */
    /* kv 1: string */
    str(&b, "general.architecture");
    u32(&b, GGUF_T_STRING);
    if (bad == HUGE_STRING) u64(&b, (uint64_t)1 << 62), put(&b, "llama", 5);
    else str(&b, "llama");
    /* kv 2: u32 (or the alignment) */
    str(&b, bad == DUP_KEY ? "general.architecture" : "general.alignment");
    if (bad == ALIGN_TYPE) u32(&b, GGUF_T_U64), u64(&b, 32);
    else u32(&b, GGUF_T_U32), u32(&b, bad == ALIGN_NOT_POW2 ? 48 : align);
    /* kv 3: array of strings */
    str(&b, "tokenizer.ggml.tokens");
    u32(&b, bad == KV_TYPE ? 77 : GGUF_T_ARRAY);
    u32(&b, bad == ARRAY_TYPE ? 55 : GGUF_T_STRING);
    u64(&b, bad == HUGE_ARRAY ? (uint64_t)1 << 61 : 3);
    str(&b, "a");
    str(&b, "b");
    str(&b, "ab");
    /* kv 4: array of f32 */
    str(&b, "some.floats");
    u32(&b, GGUF_T_ARRAY);
    u32(&b, GGUF_T_F32);
    u64(&b, 2);
    u32(&b, 0x3f800000u);
    u32(&b, 0x40000000u);
    /* kv 5: bool */
    str(&b, "some.flag");
    u32(&b, GGUF_T_BOOL);
    {
        uint8_t v = bad == BAD_BOOL ? 7 : 1;
        put(&b, &v, 1);
    }
    /* tensor 1: F32 [8, 2] at 0 (64 bytes) */
    str(&b, "a.weight");
    u32(&b, bad == DIMS_5 ? 5 : 2);
    u64(&b, bad == DIM_ZERO ? 0 : 8);
    u64(&b, bad == DIM_OVERFLOW ? (uint64_t)1 << 62 : 2);
    if (bad == DIMS_5) u64(&b, 1), u64(&b, 1), u64(&b, 1);
    u32(&b, bad == TENSOR_TYPE ? 99 : GGML_F32);
    u64(&b, bad == MISALIGNED ? 4 : 0);
    /* tensor 2: Q4_1 [64] (2 blocks, 40 bytes) at 64 */
    str(&b, bad == DUP_TENSOR ? "a.weight" : "b.weight");
    u32(&b, 1);
    u64(&b, bad == BLOCK_MULTIPLE ? 48 : 64);
    u32(&b, GGML_Q4_1);
    u64(&b, bad == OFFSET_OUT ? 4096 : bad == OVERLAP ? 32 : 64);
    pad(&b, align);
    {
        uint8_t data[104];
        memset(data, 0x11, sizeof data);
        put(&b, data, sizeof data);
    }
    return b;
}

static void test_cases(void) {
    int c;
    for (c = 0; c < N_CASES; c++) {
        buf b = build(c);
        gguf_file f;
        int r = gguf_parse(&f, b.p, b.n, "case.gguf");
        if (c == OK) {
            const gguf_tensor *t = gguf_find_tensor(&f, "b.weight");
            const gguf_kv *kv = NULL;
            gguf_str s = {NULL, 0};
            uint32_t u = 0;
            int flag = 0;
            CHECK(r == 0, "valid file rejected: %s", f.msg);
            CHECK(f.version == 3 && f.n_kv == 5 && f.n_tensors == 2 && f.data_offset % 32 == 0, "header fields");
            CHECK(t && t->type == GGML_Q4_1 && t->nbytes == 40 && t->data == f.bytes + f.data_offset + 64, "tensor b.weight");
            CHECK(gguf_get_str(&f, "general.architecture", &s) == 0 && s.len == 5 && !memcmp(s.p, "llama", 5), "string key");
            CHECK(gguf_get_u32(&f, "general.alignment", &u) == 0 && u == 32, "u32 key");
            CHECK(gguf_get_arr(&f, "tokenizer.ggml.tokens", GGUF_T_STRING, &kv) == 0 && kv->arr_n == 3 &&
                  kv->arr_str[2].len == 2 && !memcmp(kv->arr_str[2].p, "ab", 2), "string array");
            CHECK(gguf_get_bool(&f, "some.flag", &flag) == 0 && flag == 1, "bool key");
            CHECK(gguf_get_u32(&f, "missing.key", &u) == -1 && strstr(f.msg, "missing key 'missing.key'"), "missing key message: %s", f.msg);
            CHECK(gguf_get_u32(&f, "general.architecture", &u) == -1 && strstr(f.msg, "expected an integer"), "type mismatch message: %s", f.msg);
        } else {
            CHECK(r == -1 && strstr(f.msg, "case.gguf: ") == f.msg && strstr(f.msg, cases[c].expect),
                  "%s: rc %d, message '%s' (expected '%s')", cases[c].name, r, f.msg, cases[c].expect);
        }
        if (c == HUGE_TENSORS || c == OFFSET_OUT) printf("  e.g. %s -> %s\n", cases[c].name, f.msg);
        gguf_close(&f);
        free(b.p);
    }
}

static void test_truncations(const uint8_t *p, size_t n, size_t step, const char *what) {
    size_t len;
    int bad = 0, silent = 0;
    for (len = 0; len < n; len += step) {
        gguf_file f;
        int r = gguf_parse(&f, p, len, "cut.gguf");
        if (r != -1) bad++;
        else if (!f.msg[0]) silent++;
        gguf_close(&f);
    }
    CHECK(bad == 0 && silent == 0, "%s: %d truncations accepted, %d without a message", what, bad, silent);
}

static void test_fuzz(void) {
    buf b = build(OK);
    uint64_t s = 12345;
    int it, ok = 0, rej = 0;
    uint8_t *m = (uint8_t *)malloc(b.n);
    for (it = 0; it < 20000; it++) {
        gguf_file f;
        int k, flips = 1 + it % 4;
        memcpy(m, b.p, b.n);
        for (k = 0; k < flips; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            m[(s >> 33) % b.n] ^= (uint8_t)(1u << ((s >> 20) & 7));
        }
        if (gguf_parse(&f, m, b.n, "fuzz.gguf") == 0) {
            int64_t i;
            ok++;
            for (i = 0; i < f.n_tensors; i++) /* accepted files stay inside the buffer */
                if (f.tensors[i].data < f.bytes || f.tensors[i].data + f.tensors[i].nbytes > f.bytes + f.size) ok = -1000000;
        } else {
            rej++;
        }
        gguf_close(&f);
    }
    CHECK(ok >= 0, "fuzz: an accepted file points outside its buffer");
    printf("fuzz: 20000 mutated files, %d accepted, %d rejected\n", ok, rej);
    free(m);
    free(b.p);
}

int main(int argc, char **argv) {
    buf b = build(OK);
    gguf_file f;
    test_cases();
    test_truncations(b.p, b.n, 1, "every truncation of a small file");
    test_fuzz();
    CHECK(gguf_open(&f, "/nonexistent/x.gguf") == -1 && strstr(f.msg, "cannot open"), "missing file: %s", f.msg);
    gguf_close(&f);
    free(b.p);
    if (argc > 1) {
        if (gguf_open(&f, argv[1]) != 0) {
            if (strstr(f.msg, "cannot open")) printf("SKIP: model %s is absent (make model fetches it)\n", argv[1]);
            else CHECK(0, "model rejected: %s", f.msg);
        } else {
            size_t hdr = (size_t)f.data_offset;
            CHECK(f.n_tensors > 0 && f.n_kv > 0, "model parsed");
            printf("model: GGUF v%u, %lld keys, %lld tensors, data at %zu\n", f.version, (long long)f.n_kv,
                   (long long)f.n_tensors, hdr);
            /* cut inside the header (every 997th byte) and inside the data */
            test_truncations(f.bytes, hdr, 997, "truncations of the model header");
            test_truncations(f.bytes, f.size, f.size / 16 + 1, "truncations of the model");
        }
        gguf_close(&f);
    }
    printf("test_gguf: %d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
