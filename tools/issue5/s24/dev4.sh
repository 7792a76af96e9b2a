#!/bin/sh
# tools/issue5/s24/dev4.sh - run 4 of the twenty-fourth session: the issue-5 table with DIAG=1 (per-launch times and
# the write path) on the tree with v51 for BF16 caches (OSCAR_WIL default 1 there; INT2 SASS as committed).
# (tools/gpu_issue5.sh full: build, the whole test_cuda --gpu, every row, torch SDPA) with its logs kept on
# the device, and only the files the plot and BENCHMARKS.md need copied to $OUT (the device returns at most
# 8 files): b1_new, b832_new, b64, b1_dense, b832_dense CSVs, sdpa.csv, test.log. Then, here:
#   build/plotvenv/bin/python3 tools/plot_issue5.py tools/issue5/bw_vs_context.png RUN/b1_new.csv RUN/b832_new.csv RUN/b64.csv
F=build/issue5_full; rm -rf "$F"; mkdir -p "$F"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
DIAG=1 OUT="$F" timeout 570 sh tools/gpu_issue5.sh full
echo "full run: $(( $(date +%s) - t0 )) s"
for f in b1_new.csv b832_new.csv b64.csv b1_dense.csv b832_dense.csv sdpa.csv test.log; do [ -f "$F/$f" ] && cp "$F/$f" "${OUT:-build}/"; done
true
