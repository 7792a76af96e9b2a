/* gguf.h - strict GGUF (v2, v3) reader - part of the oscar CLI - MIT

   DO THIS
       #define GGUF_IMPLEMENTATION      (in exactly one .c file, before the include)
       #include "gguf.h"

   USAGE
       gguf_file f;
       if (gguf_open(&f, "model.gguf") != 0) { fprintf(stderr, "%s\n", f.msg); return 1; }
       const gguf_tensor *t = gguf_find_tensor(&f, "token_embd.weight");
       uint32_t n_layer; gguf_get_u32(&f, "llama.block_count", &n_layer);
       gguf_close(&f);

   WHAT IS CHECKED (every violation gives a message naming the file, the byte offset and the
   problem, left in f.msg; nothing is ever read outside the file)
     * magic "GGUF", version 2 or 3 (v1 and big-endian files are rejected by name)
     * tensor and key/value counts that could not fit in the rest of the file
     * every string and array length against the bytes that remain; key lengths <= 65535;
       duplicate keys and duplicate tensor names; unknown value types; arrays nested > 8 deep
     * general.alignment: a u32 power of two (default 32)
     * tensors: 1..4 dimensions, each >= 1, element count without overflow, known ggml type,
       first dimension a multiple of the type's block size, offset a multiple of the alignment,
       data inside the file, no two tensors overlapping

   NO GLOBAL STATE: everything lives in the gguf_file; two files on two threads never interfere.
   The whole file is read into memory (one allocation); tensors point into it.
*/
#ifndef GGUF_H
#define GGUF_H

#include <stddef.h>
#include <stdint.h>

#define GGUF_MSG_SIZE 384
#define GGUF_MAX_DIMS 4

/* value types of the key/value section */
enum {
    GGUF_T_U8 = 0, GGUF_T_I8 = 1, GGUF_T_U16 = 2, GGUF_T_I16 = 3, GGUF_T_U32 = 4, GGUF_T_I32 = 5,
    GGUF_T_F32 = 6, GGUF_T_BOOL = 7, GGUF_T_STRING = 8, GGUF_T_ARRAY = 9, GGUF_T_U64 = 10,
    GGUF_T_I64 = 11, GGUF_T_F64 = 12, GGUF_T_COUNT = 13
};

/* ggml tensor types (the ones this reader can size) */
enum {
    GGML_F32 = 0, GGML_F16 = 1, GGML_Q4_0 = 2, GGML_Q4_1 = 3, GGML_Q5_0 = 6, GGML_Q5_1 = 7,
    GGML_Q8_0 = 8, GGML_Q8_1 = 9, GGML_Q2_K = 10, GGML_Q3_K = 11, GGML_Q4_K = 12, GGML_Q5_K = 13,
    GGML_Q6_K = 14, GGML_Q8_K = 15, GGML_I8 = 24, GGML_I16 = 25, GGML_I32 = 26, GGML_I64 = 27,
    GGML_F64 = 28, GGML_BF16 = 30, GGML_TYPE_COUNT = 31
};

typedef struct gguf_str {
    const char *p; /* not NUL-terminated */
    uint64_t len;
} gguf_str;

typedef struct gguf_kv {
    char *key;          /* NUL-terminated copy */
    int type;           /* GGUF_T_* */
    union { uint64_t u; int64_t i; double f; } v; /* scalars (bool in v.u) */
    gguf_str s;         /* GGUF_T_STRING */
    int arr_type;       /* GGUF_T_ARRAY: element type */
    uint64_t arr_n;     /* GGUF_T_ARRAY: element count */
    const uint8_t *arr; /* GGUF_T_ARRAY of scalars: raw little-endian elements */
    gguf_str *arr_str;  /* GGUF_T_ARRAY of strings: [arr_n] */
} gguf_kv;

typedef struct gguf_tensor {
    char *name;
    int type;                  /* GGML_* */
    int n_dims;
    int64_t ne[GGUF_MAX_DIMS]; /* ne[0] is the contiguous dimension; unused dims are 1 */
    uint64_t offset;           /* inside the data section */
    uint64_t nbytes;
    const uint8_t *data;
} gguf_tensor;

typedef struct gguf_file {
    uint8_t *bytes;
    size_t size;
    uint32_t version;
    int64_t n_kv, n_tensors;
    gguf_kv *kv;
    gguf_tensor *tensors;
    uint64_t alignment, data_offset;
    char name[160];
    char msg[GGUF_MSG_SIZE];
} gguf_file;

#ifdef __cplusplus
extern "C" {
#endif

/* 0 on success, -1 with f->msg set. gguf_close is needed in both cases (it accepts a zeroed or
   failed gguf_file). */
int gguf_open(gguf_file *f, const char *path);
/* parses a copy of bytes; name is used in messages */
int gguf_parse(gguf_file *f, const void *bytes, size_t size, const char *name);
void gguf_close(gguf_file *f);

const char *gguf_type_name(int ggml_type);   /* "Q4_1", or "?" */
int64_t gguf_type_block(int ggml_type);       /* elements per block, 0 if unknown */
int64_t gguf_type_size(int ggml_type);        /* bytes per block, 0 if unknown */

const gguf_kv *gguf_find_key(const gguf_file *f, const char *key);
const gguf_tensor *gguf_find_tensor(const gguf_file *f, const char *name);
/* typed getters: 0 on success; -1 (message in f->msg) if absent, of another type, or out of
   range. Integer getters accept any integer type whose value fits. */
int gguf_get_u32(gguf_file *f, const char *key, uint32_t *out);
int gguf_get_f32(gguf_file *f, const char *key, float *out);
int gguf_get_bool(gguf_file *f, const char *key, int *out);
int gguf_get_str(gguf_file *f, const char *key, gguf_str *out);
/* array getter: element type must be `type` */
int gguf_get_arr(gguf_file *f, const char *key, int type, const gguf_kv **out);

#ifdef __cplusplus
}
#endif
#endif /* GGUF_H */

#ifdef GGUF_IMPLEMENTATION
#ifndef GGUF_IMPLEMENTATION_DONE
#define GGUF_IMPLEMENTATION_DONE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gguf__cur {
    gguf_file *f;
    const uint8_t *p;
    size_t pos, size;
} gguf__cur;

static int gguf__fail(gguf_file *f, const char *fmt, ...) {
    size_t n = strlen(f->name);
    va_list ap;
    if (n > sizeof f->msg - 64) n = sizeof f->msg - 64;
    memcpy(f->msg, f->name, n);
    f->msg[n++] = ':';
    f->msg[n++] = ' ';
    va_start(ap, fmt);
    vsnprintf(f->msg + n, sizeof f->msg - n, fmt, ap);
    va_end(ap);
    return -1;
}

static const struct { const char *name; int64_t blck, size; } gguf__types[GGML_TYPE_COUNT] = {
    {"F32", 1, 4}, {"F16", 1, 2}, {"Q4_0", 32, 18}, {"Q4_1", 32, 20}, {0, 0, 0}, {0, 0, 0},
    {"Q5_0", 32, 22}, {"Q5_1", 32, 24}, {"Q8_0", 32, 34}, {"Q8_1", 32, 36}, {"Q2_K", 256, 84},
    {"Q3_K", 256, 110}, {"Q4_K", 256, 144}, {"Q5_K", 256, 176}, {"Q6_K", 256, 210},
    {"Q8_K", 256, 292}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0},
    {0, 0, 0}, {0, 0, 0}, {"I8", 1, 1}, {"I16", 1, 2}, {"I32", 1, 4}, {"I64", 1, 8},
    {"F64", 1, 8}, {0, 0, 0}, {"BF16", 1, 2}};

const char *gguf_type_name(int t) {
    return (t >= 0 && t < GGML_TYPE_COUNT && gguf__types[t].name) ? gguf__types[t].name : "?";
}
int64_t gguf_type_block(int t) { return (t >= 0 && t < GGML_TYPE_COUNT) ? gguf__types[t].blck : 0; }
int64_t gguf_type_size(int t) { return (t >= 0 && t < GGML_TYPE_COUNT) ? gguf__types[t].size : 0; }

static const char *gguf__vtype_name(int t) {
    static const char *n[GGUF_T_COUNT] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool",
                                          "string", "array", "u64", "i64", "f64"};
    return (t >= 0 && t < GGUF_T_COUNT) ? n[t] : "?";
}
static size_t gguf__vtype_size(int t) {
    static const size_t s[GGUF_T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return (t >= 0 && t < GGUF_T_COUNT) ? s[t] : 0;
}

static uint64_t gguf__le(const uint8_t *p, int n) {
    uint64_t v = 0;
    int i;
    for (i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static int gguf__need(gguf__cur *c, uint64_t n, const char *what) {
    if (n > c->size - c->pos)
        return gguf__fail(c->f, "truncated: %s needs %llu bytes at offset %llu, file has %llu",
                          what, (unsigned long long)n, (unsigned long long)c->pos,
                          (unsigned long long)c->size);
    return 0;
}
static int gguf__rd(gguf__cur *c, int n, uint64_t *out, const char *what) {
    if (gguf__need(c, (uint64_t)n, what)) return -1;
    *out = gguf__le(c->p + c->pos, n);
    c->pos += (size_t)n;
    return 0;
}
static int gguf__rd_str(gguf__cur *c, gguf_str *s, const char *what) {
    uint64_t n;
    if (gguf__rd(c, 8, &n, what)) return -1;
    if (gguf__need(c, n, what)) return -1;
    s->p = (const char *)(c->p + c->pos);
    s->len = n;
    c->pos += (size_t)n;
    return 0;
}

static char *gguf__strdup(const gguf_str *s) {
    char *r = (char *)malloc((size_t)s->len + 1);
    if (!r) return NULL;
    memcpy(r, s->p, (size_t)s->len);
    r[s->len] = 0;
    return r;
}

/* skips one value of type t (arrays recursively); fills kv when kv != NULL */
static int gguf__value(gguf__cur *c, int t, gguf_kv *kv, int depth, const char *key) {
    char what[160];
    size_t sz;
    snprintf(what, sizeof what, "value of key '%.100s'", key);
    if (t < 0 || t >= GGUF_T_COUNT)
        return gguf__fail(c->f, "key '%.100s': unknown value type %d at offset %llu", key, t,
                          (unsigned long long)c->pos);
    if (t == GGUF_T_STRING) {
        gguf_str s;
        if (gguf__rd_str(c, &s, what)) return -1;
        if (kv) kv->s = s;
        return 0;
    }
    if (t == GGUF_T_ARRAY) {
        uint64_t at, n, i;
        if (depth >= 8) return gguf__fail(c->f, "key '%.100s': arrays nested too deep", key);
        if (gguf__rd(c, 4, &at, what) || gguf__rd(c, 8, &n, what)) return -1;
        if (at >= GGUF_T_COUNT)
            return gguf__fail(c->f, "key '%.100s': unknown array element type %llu", key,
                              (unsigned long long)at);
        /* every element takes at least one byte (8 for strings and arrays) */
        sz = gguf__vtype_size((int)at);
        if (sz == 0) sz = 8;
        if (n > (c->size - c->pos) / sz)
            return gguf__fail(c->f, "key '%.100s': array count %llu does not fit in the file",
                              key, (unsigned long long)n);
        if (kv) {
            kv->arr_type = (int)at;
            kv->arr_n = n;
            kv->arr = c->p + c->pos;
        }
        if (at == GGUF_T_STRING) {
            if (kv) {
                kv->arr_str = (gguf_str *)malloc((size_t)(n ? n : 1) * sizeof(gguf_str));
                if (!kv->arr_str) return gguf__fail(c->f, "out of memory for key '%.100s'", key);
            }
            for (i = 0; i < n; i++) {
                gguf_str s;
                if (gguf__rd_str(c, &s, what)) return -1;
                if (kv) kv->arr_str[i] = s;
            }
        } else if (at == GGUF_T_ARRAY) {
            for (i = 0; i < n; i++)
                if (gguf__value(c, GGUF_T_ARRAY, NULL, depth + 1, key)) return -1;
        } else {
            if (gguf__need(c, n * sz, what)) return -1;
            c->pos += (size_t)(n * sz);
        }
        return 0;
    }
    sz = gguf__vtype_size(t);
    {
        uint64_t u;
        if (gguf__rd(c, (int)sz, &u, what)) return -1;
        if (kv) {
            if (t == GGUF_T_F32) {
                uint32_t b = (uint32_t)u;
                float fl;
                memcpy(&fl, &b, 4);
                kv->v.f = fl;
            } else if (t == GGUF_T_F64) {
                memcpy(&kv->v.f, &u, 8);
            } else if (t == GGUF_T_I8) {
                kv->v.i = (int8_t)u;
            } else if (t == GGUF_T_I16) {
                kv->v.i = (int16_t)u;
            } else if (t == GGUF_T_I32) {
                kv->v.i = (int32_t)u;
            } else if (t == GGUF_T_I64) {
                kv->v.i = (int64_t)u;
            } else {
                kv->v.u = u;
                if (t == GGUF_T_BOOL && u > 1)
                    return gguf__fail(c->f, "key '%.100s': bool value %llu is not 0 or 1", key,
                                      (unsigned long long)u);
            }
        }
    }
    return 0;
}

static int gguf__cmp_off(const void *a, const void *b) {
    const gguf_tensor *x = *(const gguf_tensor *const *)a, *y = *(const gguf_tensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset ? 1 : 0;
}

static int gguf__parse(gguf_file *f) {
    gguf__cur c;
    uint64_t magic, ver, nt, nkv, i, j;
    c.f = f;
    c.p = f->bytes;
    c.pos = 0;
    c.size = f->size;
    if (f->size < 4 || memcmp(f->bytes, "GGUF", 4) != 0)
        return gguf__fail(f, "not a GGUF file (bad magic; expected \"GGUF\")");
    if (gguf__rd(&c, 4, &magic, "magic") || gguf__rd(&c, 4, &ver, "version")) return -1;
    if (ver == 1) return gguf__fail(f, "GGUF version 1 is not supported (only 2 and 3)");
    if (ver != 2 && ver != 3) {
        if ((ver & 0xffff) == 0 && ver != 0)
            return gguf__fail(f, "GGUF version %llu: a big-endian file? only little-endian v2/v3 are supported",
                              (unsigned long long)ver);
        return gguf__fail(f, "unsupported GGUF version %llu (only 2 and 3)", (unsigned long long)ver);
    }
    f->version = (uint32_t)ver;
    if (gguf__rd(&c, 8, &nt, "tensor count") || gguf__rd(&c, 8, &nkv, "key/value count")) return -1;
    /* smallest key/value: 8 (len) + 1 (key) + 4 (type) + 1 (u8) bytes; smallest tensor info:
       8 + 1 + 4 + 8 + 4 + 8 bytes */
    if (nkv > (c.size - c.pos) / 14)
        return gguf__fail(f, "key/value count %llu cannot fit in a file of %llu bytes",
                          (unsigned long long)nkv, (unsigned long long)c.size);
    if (nt > (c.size - c.pos) / 33)
        return gguf__fail(f, "tensor count %llu cannot fit in a file of %llu bytes",
                          (unsigned long long)nt, (unsigned long long)c.size);
    f->kv = (gguf_kv *)calloc((size_t)(nkv ? nkv : 1), sizeof(gguf_kv));
    f->tensors = (gguf_tensor *)calloc((size_t)(nt ? nt : 1), sizeof(gguf_tensor));
    if (!f->kv || !f->tensors) return gguf__fail(f, "out of memory");
    f->alignment = 32;
    for (i = 0; i < nkv; i++) {
        gguf_kv *kv = &f->kv[i];
        gguf_str key;
        uint64_t t;
        size_t at = c.pos;
        if (gguf__rd_str(&c, &key, "key")) return -1;
        if (key.len == 0 || key.len > 65535)
            return gguf__fail(f, "key %llu at offset %llu has length %llu (must be 1..65535)",
                              (unsigned long long)i, (unsigned long long)at,
                              (unsigned long long)key.len);
        kv->key = gguf__strdup(&key);
        if (!kv->key) return gguf__fail(f, "out of memory");
        f->n_kv = (int64_t)i + 1;
        if (strlen(kv->key) != key.len) return gguf__fail(f, "key at offset %llu contains a NUL byte", (unsigned long long)at);
        for (j = 0; j < i; j++)
            if (strcmp(f->kv[j].key, kv->key) == 0)
                return gguf__fail(f, "duplicate key '%.100s'", kv->key);
        if (gguf__rd(&c, 4, &t, "value type")) return -1;
        if (t >= GGUF_T_COUNT)
            return gguf__fail(f, "key '%.100s': unknown value type %llu", kv->key, (unsigned long long)t);
        kv->type = (int)t;
        if (gguf__value(&c, (int)t, kv, 0, kv->key)) return -1;
        if (strcmp(kv->key, "general.alignment") == 0) {
            if (kv->type != GGUF_T_U32)
                return gguf__fail(f, "general.alignment has type %s, expected u32", gguf__vtype_name(kv->type));
            if (kv->v.u == 0 || (kv->v.u & (kv->v.u - 1)) != 0)
                return gguf__fail(f, "general.alignment %llu is not a power of two", (unsigned long long)kv->v.u);
            f->alignment = kv->v.u;
        }
    }
    for (i = 0; i < nt; i++) {
        gguf_tensor *t = &f->tensors[i];
        gguf_str name;
        uint64_t nd, ty, off, d;
        int64_t numel = 1, blck, tsz;
        size_t at = c.pos;
        if (gguf__rd_str(&c, &name, "tensor name")) return -1;
        if (name.len == 0 || name.len > 65535)
            return gguf__fail(f, "tensor %llu at offset %llu has a name of length %llu",
                              (unsigned long long)i, (unsigned long long)at, (unsigned long long)name.len);
        t->name = gguf__strdup(&name);
        if (!t->name) return gguf__fail(f, "out of memory");
        f->n_tensors = (int64_t)i + 1;
        if (strlen(t->name) != name.len) return gguf__fail(f, "tensor name at offset %llu contains a NUL byte", (unsigned long long)at);
        for (j = 0; j < i; j++)
            if (strcmp(f->tensors[j].name, t->name) == 0)
                return gguf__fail(f, "duplicate tensor name '%.100s'", t->name);
        if (gguf__rd(&c, 4, &nd, "tensor dimension count")) return -1;
        if (nd < 1 || nd > GGUF_MAX_DIMS)
            return gguf__fail(f, "tensor '%.100s': %llu dimensions (must be 1..%d)", t->name,
                              (unsigned long long)nd, GGUF_MAX_DIMS);
        t->n_dims = (int)nd;
        for (j = 0; j < GGUF_MAX_DIMS; j++) t->ne[j] = 1;
        for (j = 0; j < nd; j++) {
            if (gguf__rd(&c, 8, &d, "tensor dimension")) return -1;
            if (d == 0 || d > (uint64_t)INT64_MAX / (uint64_t)numel)
                return gguf__fail(f, "tensor '%.100s': dimension %llu is %llu (zero or element count overflows)",
                                  t->name, (unsigned long long)j, (unsigned long long)d);
            t->ne[j] = (int64_t)d;
            numel *= (int64_t)d;
        }
        if (gguf__rd(&c, 4, &ty, "tensor type")) return -1;
        if (ty >= GGML_TYPE_COUNT || gguf__types[ty].blck == 0)
            return gguf__fail(f, "tensor '%.100s': unknown ggml type %llu", t->name, (unsigned long long)ty);
        t->type = (int)ty;
        blck = gguf__types[ty].blck;
        tsz = gguf__types[ty].size;
        if (t->ne[0] % blck != 0)
            return gguf__fail(f, "tensor '%.100s': first dimension %lld is not a multiple of the %s block size %lld",
                              t->name, (long long)t->ne[0], gguf__types[ty].name, (long long)blck);
        if (numel / blck > INT64_MAX / tsz)
            return gguf__fail(f, "tensor '%.100s': byte size overflows", t->name);
        t->nbytes = (uint64_t)(numel / blck * tsz);
        if (gguf__rd(&c, 8, &off, "tensor offset")) return -1;
        if (off % f->alignment != 0)
            return gguf__fail(f, "tensor '%.100s': offset %llu is not a multiple of the alignment %llu",
                              t->name, (unsigned long long)off, (unsigned long long)f->alignment);
        t->offset = off;
    }
    {
        uint64_t a = f->alignment, start = ((uint64_t)c.pos + a - 1) / a * a;
        if (start > c.size) {
            if (nt == 0) start = c.size;
            else return gguf__fail(f, "truncated: data section would start at %llu, file has %llu bytes",
                                   (unsigned long long)start, (unsigned long long)c.size);
        }
        f->data_offset = start;
        for (i = 0; i < nt; i++) {
            gguf_tensor *t = &f->tensors[i];
            uint64_t room = c.size - start;
            if (t->offset > room || t->nbytes > room - t->offset)
                return gguf__fail(f, "tensor '%.100s': data [%llu, +%llu) lies outside the data section of %llu bytes (truncated file or bad offset)",
                                  t->name, (unsigned long long)t->offset, (unsigned long long)t->nbytes,
                                  (unsigned long long)room);
            t->data = f->bytes + start + t->offset;
        }
    }
    if (nt > 1) { /* overlap check on tensors sorted by offset */
        gguf_tensor **s = (gguf_tensor **)malloc((size_t)nt * sizeof(*s));
        if (!s) return gguf__fail(f, "out of memory");
        for (i = 0; i < nt; i++) s[i] = &f->tensors[i];
        qsort(s, (size_t)nt, sizeof(*s), gguf__cmp_off);
        for (i = 1; i < nt; i++)
            if (s[i - 1]->offset + s[i - 1]->nbytes > s[i]->offset) {
                int r = gguf__fail(f, "tensors '%.100s' and '%.100s' overlap", s[i - 1]->name, s[i]->name);
                free(s);
                return r;
            }
        free(s);
    }
    return 0;
}

static void gguf__name(gguf_file *f, const char *name) {
    size_t n = strlen(name ? name : "");
    const char *p = name ? name : "";
    if (n >= sizeof f->name) p += n - (sizeof f->name - 1);
    snprintf(f->name, sizeof f->name, "%s", p);
}

int gguf_parse(gguf_file *f, const void *bytes, size_t size, const char *name) {
    memset(f, 0, sizeof *f);
    gguf__name(f, name ? name : "(memory)");
    f->bytes = (uint8_t *)malloc(size ? size : 1);
    if (!f->bytes) return gguf__fail(f, "out of memory (%llu bytes)", (unsigned long long)size);
    if (size) memcpy(f->bytes, bytes, size);
    f->size = size;
    return gguf__parse(f);
}

int gguf_open(gguf_file *f, const char *path) {
    FILE *fp;
    long n;
    memset(f, 0, sizeof *f);
    gguf__name(f, path);
    fp = fopen(path, "rb");
    if (!fp) return gguf__fail(f, "cannot open the file");
    if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return gguf__fail(f, "cannot determine the file size");
    }
    f->bytes = (uint8_t *)malloc((size_t)n ? (size_t)n : 1);
    if (!f->bytes) {
        fclose(fp);
        return gguf__fail(f, "out of memory (%ld bytes)", n);
    }
    if (n && fread(f->bytes, 1, (size_t)n, fp) != (size_t)n) {
        fclose(fp);
        return gguf__fail(f, "read error");
    }
    fclose(fp);
    f->size = (size_t)n;
    return gguf__parse(f);
}

void gguf_close(gguf_file *f) {
    int64_t i;
    if (!f) return;
    if (f->kv)
        for (i = 0; i < f->n_kv; i++) {
            free(f->kv[i].key);
            free(f->kv[i].arr_str);
        }
    if (f->tensors)
        for (i = 0; i < f->n_tensors; i++) free(f->tensors[i].name);
    free(f->kv);
    free(f->tensors);
    free(f->bytes);
    f->kv = NULL;
    f->tensors = NULL;
    f->bytes = NULL;
    f->n_kv = f->n_tensors = 0;
}

const gguf_kv *gguf_find_key(const gguf_file *f, const char *key) {
    int64_t i;
    for (i = 0; i < f->n_kv; i++)
        if (strcmp(f->kv[i].key, key) == 0) return &f->kv[i];
    return NULL;
}

const gguf_tensor *gguf_find_tensor(const gguf_file *f, const char *name) {
    int64_t i;
    for (i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

static const gguf_kv *gguf__get(gguf_file *f, const char *key) {
    const gguf_kv *kv = gguf_find_key(f, key);
    if (!kv) gguf__fail(f, "missing key '%s'", key);
    return kv;
}

int gguf_get_u32(gguf_file *f, const char *key, uint32_t *out) {
    const gguf_kv *kv = gguf__get(f, key);
    if (!kv) return -1;
    switch (kv->type) {
    case GGUF_T_U8: case GGUF_T_U16: case GGUF_T_U32: case GGUF_T_U64:
        if (kv->v.u > 0xffffffffu) break;
        *out = (uint32_t)kv->v.u;
        return 0;
    case GGUF_T_I8: case GGUF_T_I16: case GGUF_T_I32: case GGUF_T_I64:
        if (kv->v.i < 0 || kv->v.i > (int64_t)0xffffffffu) break;
        *out = (uint32_t)kv->v.i;
        return 0;
    default:
        return gguf__fail(f, "key '%s' has type %s, expected an integer", key, gguf__vtype_name(kv->type));
    }
    return gguf__fail(f, "key '%s': value out of range", key);
}

int gguf_get_f32(gguf_file *f, const char *key, float *out) {
    const gguf_kv *kv = gguf__get(f, key);
    if (!kv) return -1;
    if (kv->type == GGUF_T_F32 || kv->type == GGUF_T_F64) {
        *out = (float)kv->v.f;
        return 0;
    }
    return gguf__fail(f, "key '%s' has type %s, expected f32", key, gguf__vtype_name(kv->type));
}

int gguf_get_bool(gguf_file *f, const char *key, int *out) {
    const gguf_kv *kv = gguf__get(f, key);
    if (!kv) return -1;
    if (kv->type != GGUF_T_BOOL)
        return gguf__fail(f, "key '%s' has type %s, expected bool", key, gguf__vtype_name(kv->type));
    *out = (int)kv->v.u;
    return 0;
}

int gguf_get_str(gguf_file *f, const char *key, gguf_str *out) {
    const gguf_kv *kv = gguf__get(f, key);
    if (!kv) return -1;
    if (kv->type != GGUF_T_STRING)
        return gguf__fail(f, "key '%s' has type %s, expected string", key, gguf__vtype_name(kv->type));
    *out = kv->s;
    return 0;
}

int gguf_get_arr(gguf_file *f, const char *key, int type, const gguf_kv **out) {
    const gguf_kv *kv = gguf__get(f, key);
    if (!kv) return -1;
    if (kv->type != GGUF_T_ARRAY || kv->arr_type != type)
        return gguf__fail(f, "key '%s' is not an array of %s", key, gguf__vtype_name(type));
    *out = kv;
    return 0;
}

#endif /* GGUF_IMPLEMENTATION_DONE */
#endif /* GGUF_IMPLEMENTATION */
