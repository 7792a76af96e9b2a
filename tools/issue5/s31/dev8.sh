#!/bin/sh
# tools/issue5/s31/dev8.sh - run 8: Nsight Compute's source counters on one oscar_append_w launch (the second long dense
# flush of `bench_gpu --mode write`: KERNEL oscar_append_w, SKIP 1): instructions and stall reasons per straight-line
# segment (tools/ncu_segments.sh), to set against the thirtieth session's profile of oscar_append (run s30-8).
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
OUT=${OUT:-build/s31_8} KERNEL=oscar_append_w SKIP=1 MIN=16 sh tools/ncu_segments.sh 2>&1 | cut -c1-230
gzip -f "${OUT:-build/s31_8}/src.csv" 2>/dev/null
true
