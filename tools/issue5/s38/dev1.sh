#!/bin/sh
# tools/issue5/s38/dev1.sh - run 1: what a call costs from an idle GPU by how it is submitted (tools/ubench_idle.cu,
# built here and carried as build/ubench_idle), and batch 1 of the committed tree in the same session for reference.
O=${OUT:-build/s38_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$O/device.txt"
./build/ubench_idle > "$O/idle.txt" 2>&1; cat "$O/idle.txt"
make -s build/bench_gpu >/dev/null || exit 1
./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --csv "$O/b1.csv" > "$O/b1.log" 2>&1
cut -d, -f1-3,8-16 "$O/b1.csv"
