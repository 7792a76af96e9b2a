/* libFuzzer target: the byte-level BPE tokenizer (cli/tokenizer.h) on arbitrary bytes. Every
   encoding must succeed, give ids inside the vocabulary, and decode back to the input bytes
   (byte-level BPE is lossless when special tokens are not parsed and every input byte has a
   byte token). The vocabulary comes from
   $OSCAR_FUZZ_VOCAB, else the SmolLM2 model if `make model` fetched it, else the seed corpus's
   tiny GGUF. */
#define GGUF_IMPLEMENTATION
#include "../../cli/gguf.h"
#define TOK_IMPLEMENTATION
#include "../../cli/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static gguf_file vocab_file;
static tok_vocab vocab;
static int ready;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const char *paths[3];
    int i;
    (void)argc;
    (void)argv;
    paths[0] = getenv("OSCAR_FUZZ_VOCAB");
    paths[1] = "models/SmolLM2-135M-Instruct.Q4_1.gguf";
    paths[2] = "tests/fuzz/corpus/gguf/tiny-v3.gguf";
    for (i = 0; i < 3 && !ready; i++) {
        if (!paths[i]) continue;
        if (gguf_open(&vocab_file, paths[i]) == 0 && tok_load(&vocab, &vocab_file) == 0) {
            ready = 1;
            fprintf(stderr, "fuzz_tokenizer: vocabulary from %s (%d tokens)\n", paths[i], vocab.n_vocab);
        } else {
            tok_free(&vocab);
            gguf_close(&vocab_file);
        }
    }
    if (!ready) {
        fprintf(stderr, "fuzz_tokenizer: no vocabulary found\n");
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int *ids = NULL, n = 0, i, special, lossless = 1;
    size_t b;
    /* bytes the vocabulary has no token for (SmolLM2 lacks some never-valid UTF-8 bytes such as
       0xF5..0xFF) become the unknown token: the round trip holds only without them */
    for (b = 0; b < size; b++)
        if (vocab.byte_id[data[b]] < 0) lossless = 0;
    for (special = 0; special < 2; special++) {
        size_t at = 0;
        if (tok_encode(&vocab, (const char *)data, size, special, &ids, &n) != 0) abort(); /* only OOM may fail */
        for (i = 0; i < n; i++) {
            size_t len = 0;
            const uint8_t *p;
            if (ids[i] < 0 || ids[i] >= vocab.n_vocab) abort();
            p = tok_piece(&vocab, ids[i], &len);
            if (!special && lossless) {
                if (at + len > size || memcmp(data + at, p, len) != 0) abort(); /* must decode to the input */
                at += len;
            }
        }
        if (!special && lossless && at != size) abort();
        free(ids);
        ids = NULL;
    }
    return 0;
}
