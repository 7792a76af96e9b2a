#!/bin/sh
# tools/issue5/s32/dev5.sh - run 5: Nsight Compute's source counters on one oscar_append_w launch with the hoisted loop
# (as s31/dev8.sh: the second long dense flush of `bench_gpu --mode write`), per straight-line segment
# (tools/ncu_segments.sh), to set against run s31-8 (the same kernel before the hoist).
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
OUT=${OUT:-build/s32_5} KERNEL=oscar_append_w SKIP=1 MIN=16 sh tools/ncu_segments.sh 2>&1 | cut -c1-230
gzip -f "${OUT:-build/s32_5}/src.csv" 2>/dev/null
true
