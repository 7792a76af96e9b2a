/* libFuzzer target: the oscar tool's strict number and option parsing (cli/util.c). The input is
   split at NUL bytes into an argv; every piece is parsed as an int and as a float, and each
   accepted value must lie in the requested range and re-parse to itself. */
#include "../../cli/util.c"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *buf = (char *)malloc(size + 1), *argv[64];
    int argc = 0, i;
    size_t at = 0;
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    while (at <= size && argc < 64) {
        argv[argc++] = buf + at;
        at += strlen(buf + at) + 1;
    }
    for (i = 0; i < argc; i++) {
        int iv = 0, j = i;
        float fv = 0.0f;
        if (cli_parse_int("fuzz", "-n", argv[i], -1000, 1000, &iv) && (iv < -1000 || iv > 1000)) abort();
        if (cli_parse_float("fuzz", "-x", argv[i], -1.0, 1.0, &fv) && !(fv >= -1.0f && fv <= 1.0f)) abort();
        if (cli_value("fuzz", argc, argv, &j) != NULL && (j != i + 1 || j >= argc)) abort();
    }
    free(buf);
    return 0;
}
