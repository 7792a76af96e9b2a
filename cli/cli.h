/* cli.h - the oscar tool's commands and the small helpers they share. */
#ifndef OSCAR_CLI_H
#define OSCAR_CLI_H

#include "../oscar.h"

/* every command: argv[0] is the command name; returns the process exit status */
int oscar_cli_fit(int argc, char **argv);
int oscar_cli_info(int argc, char **argv);
int oscar_cli_synth_dump(int argc, char **argv);
int oscar_cli_demo(int argc, char **argv);
int oscar_cli_bench(int argc, char **argv);
int oscar_cli_tokenize(int argc, char **argv);   /* cmd_model.c */
int oscar_cli_run(int argc, char **argv);        /* cmd_model.c */
int oscar_cli_bench_gpu(int argc, char **argv);  /* bench_gpu.c */
int oscar_cli_calibrate(int argc, char **argv);  /* cmd_eval.c */
int oscar_cli_dump(int argc, char **argv);       /* cmd_eval.c */
int oscar_cli_ppl(int argc, char **argv);        /* cmd_eval.c */
int oscar_cli_niah(int argc, char **argv);       /* cmd_eval.c */
int oscar_cli_longdoc(int argc, char **argv);    /* cmd_eval.c */

/* strict number parsing: the whole string, in [lo, hi]; prints "oscar CMD: OPT ..." on error */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo, long hi, int *out);
int cli_parse_float(const char *cmd, const char *opt, const char *s, double lo, double hi, float *out);
/* the value after option argv[*i]; prints an error and returns NULL when missing */
const char *cli_value(const char *cmd, int argc, char **argv, int *i);
double cli_now(void);
int cli_threads(void);

/* fits rotations for L layers on up to n_threads threads.
   get(layer, user, &q, &k, &v, &n): the layer's calibration activations (q [n][Hq][d], k/v
   [n][Hkv][d]); release(layer, user, q, k, v) frees them. rope_base > 1: the file also gets the
   pre-RoPE K means (row t of a layer at RoPE position t % rope_window). k_balance: the file also gets
   the K balance (oscar_balance_fit) of the keys centered as the cache will store them (before RoPE
   with rope_base > 1, else by the calibration mean). Returns 0 or prints an error. */
typedef int (*cli_layer_get)(int layer, void *user, float **q, float **k, float **v, int64_t *n);
typedef void (*cli_layer_release)(int layer, void *user, float *q, float *k, float *v);
int cli_fit_layers(oscar_rotations *out, int n_layers, int d, int Hq, int Hkv, int per_head, int comp, cli_layer_get get,
                   cli_layer_release release, void *user, int n_threads, int verbose, double rope_base, int rope_window, int k_balance);

#endif
