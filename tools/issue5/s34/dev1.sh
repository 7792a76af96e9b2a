#!/bin/sh
# tools/issue5/s34/dev1.sh - run 1: the whole GPU test on the previous session's final tree (its review commit had run
# only the flush / nonfinite / wide-batch groups), then per-block phases in cycles of the decode's prologue and
# epilogue and of the merge (-DOSCAR_WPROF: oscar_wph, oscar_mph, new) at batch 1 and 8 x 32K, INT2 with H rotations
O=${OUT:-build/s34_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test.txt"
OUT=$O SHAPES="1:8192,32768,131072 8:32768" sh tools/gpu_wprof.sh > "$O/wprof.txt" 2>&1
grep -v "^wprof: " "$O/wprof.txt"
