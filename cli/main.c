/* main.c - the oscar command-line tool: dispatch and shared helpers. */
#define _POSIX_C_SOURCE 200809L
#define OSCAR_IMPLEMENTATION
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct cli_command {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} cli_command;

static const cli_command commands[] = {
    {"fit", oscar_cli_fit, "fit rotations from a calibration dump (safetensors)"},
    {"info", oscar_cli_info, "describe a rotation file"},
    {"demo", oscar_cli_demo, "long-context decode demo: the four cache modes side by side"},
    {"bench", oscar_cli_bench, "CPU benchmarks (eigensolver, fitting, decode attention); --gpu for the GPU"},
    {"synth-dump", oscar_cli_synth_dump, "write a synthetic calibration dump (for tests and trials)"},
#ifdef OSCAR_CLI_MODEL
    {"tokenize", oscar_cli_tokenize, "print the token ids of a text (GGUF tokenizer)"},
    {"run", oscar_cli_run, "generate text with a GGUF model and the compressed cache"},
    {"calibrate", oscar_cli_calibrate, "fit rotations on a model's activations over a text"},
    {"dump", oscar_cli_dump, "write a model's activations over a text as a calibration dump"},
    {"ppl", oscar_cli_ppl, "perplexity, KLD and top-1 agreement vs bf16 per cache mode"},
    {"niah", oscar_cli_niah, "needle-in-a-haystack retrieval per cache mode"},
    {"longdoc", oscar_cli_longdoc, "read a long passage, answer a question: bf16 vs oscar cache"},
#endif
};

static void usage(FILE *f) {
    size_t i;
    fprintf(f, "oscar %s - 2-bit KV-cache compression (OSCAR)\n\nusage: oscar COMMAND [options]   (oscar COMMAND --help)\n\ncommands:\n", oscar_version());
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++) fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv) {
    size_t i;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("oscar %s\n", oscar_version());
        return 0;
    }
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "oscar: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
