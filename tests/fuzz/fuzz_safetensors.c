/* libFuzzer target: the safetensors reader, the rotation-file loader on top of it, and a read of
   every tensor it accepts. Build: make fuzz (clang -fsanitize=fuzzer,address,undefined). */
#define OSCAR_IMPLEMENTATION
#include "../../oscar.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    oscar_st st;
    oscar_rotations rot;
    if (oscar_st_parse(&st, data, size, "fuzz") == OSCAR_OK) {
        int i;
        for (i = 0; i < st.n_tensors; i++) {
            const oscar_st_tensor *t = &st.tensors[i];
            int64_t n = oscar_st_numel(t);
            if (n >= 0 && n < (1 << 20) && (t->dtype == OSCAR_F32 || t->dtype == OSCAR_F16 || t->dtype == OSCAR_BF16)) {
                float *buf = (float *)malloc(sizeof(float) * (size_t)n + 1);
                if (buf) oscar_st_read_f32(&st, t, buf, 1);
                free(buf);
            }
            if (oscar_st_find(&st, t->name) == NULL) abort(); /* every parsed name must be findable */
        }
        oscar_st_meta(&st, "format");
        oscar_st_close(&st);
    }
    if (oscar_rotations_load_memory(&rot, data, size, "fuzz") == OSCAR_OK) {
        if (!rot.k_rot || rot.n_layers < 1) abort();
        oscar_rotations_free(&rot);
    }
    return 0;
}
