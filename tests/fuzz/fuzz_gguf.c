/* libFuzzer target: the GGUF reader (cli/gguf.h) and, on files it accepts, the tokenizer's loader
   and every typed key lookup. */
#define GGUF_IMPLEMENTATION
#include "../../cli/gguf.h"
#define TOK_IMPLEMENTATION
#include "../../cli/tokenizer.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gguf_file f;
    if (gguf_parse(&f, data, size, "fuzz.gguf") == 0) {
        uint32_t u;
        float x;
        int b;
        gguf_str s;
        const gguf_kv *arr;
        tok_vocab tok;
        gguf_get_u32(&f, "llama.block_count", &u);
        gguf_get_f32(&f, "llama.rope.freq_base", &x);
        gguf_get_bool(&f, "tokenizer.ggml.add_bos_token", &b);
        gguf_get_str(&f, "general.architecture", &s);
        gguf_get_arr(&f, "tokenizer.ggml.tokens", 8, &arr);
        gguf_find_tensor(&f, "token_embd.weight");
        if (tok_load(&tok, &f) == 0) {
            int *ids = NULL, n = 0;
            if (tok_encode(&tok, "Hello, world 123", 16, 1, &ids, &n) == 0) free(ids);
        }
        tok_free(&tok);
    }
    gguf_close(&f);
    return 0;
}
