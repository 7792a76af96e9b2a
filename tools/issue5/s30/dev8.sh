#!/bin/sh
# tools/issue5/s30/dev8.sh - run 8: Nsight Compute's source counters on the dense flush launch (the second dense call's
# flush in `bench_gpu --mode write`: SKIP 2), the default build and -DOSCAR_APPEND_Q3=1: instructions and stall reasons
# per straight-line segment (tools/ncu_segments.sh).
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
for o in "" "-DOSCAR_APPEND_Q3=1"; do
    echo "== [$o]"
    OSCAR_CUDA_NVRTC_OPTIONS="$o" OUT=${OUT:-build/s30_8}/$(echo "x$o" | tr -c 'A-Za-z0-9\n' '_') SKIP=2 MIN=16 sh tools/ncu_segments.sh 2>&1 | cut -c1-230
done
