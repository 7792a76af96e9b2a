#!/bin/sh
# tools/issue5/s21/dev2.sh - twenty-first session, device run 2 (repository root): what keeps an SM that
# holds a rotate_q-like block from taking two decode-like blocks (tools/ubench_coresident.cu), and the
# batch-1 chain of the three kernels at 8K and 32K (-DOSCAR_WPROF, tools/gpu_wprof.sh).
O=${OUT:-build/s21b}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O2 -arch=sm_90 -o build/ubench_coresident tools/ubench_coresident.cu -lcuda && timeout 60 ./build/ubench_coresident
OUT="$O/wprof" SHAPES="1:8192,32768" timeout 120 sh tools/gpu_wprof.sh 2>&1 | grep -v "^wprof" | head -20
true
