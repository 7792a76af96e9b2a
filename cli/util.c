/* util.c - helpers shared by the oscar tool's commands: strict number parsing, options, time. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo, long hi, int *out) {
    char *end;
    long v;
    errno = 0;
    v = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "oscar %s: %s expects an integer in [%ld, %ld], got '%s'\n", cmd, opt, lo, hi, s ? s : "");
        return 0;
    }
    *out = (int)v;
    return 1;
}

int cli_parse_float(const char *cmd, const char *opt, const char *s, double lo, double hi, float *out) {
    char *end;
    double v;
    errno = 0;
    v = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || *end || errno || !(v >= lo && v <= hi)) {
        fprintf(stderr, "oscar %s: %s expects a number in [%g, %g], got '%s'\n", cmd, opt, lo, hi, s ? s : "");
        return 0;
    }
    *out = (float)v;
    return 1;
}

const char *cli_value(const char *cmd, int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "oscar %s: option %s needs a value\n", cmd, argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cli_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 64 ? 64 : (int)n);
}

