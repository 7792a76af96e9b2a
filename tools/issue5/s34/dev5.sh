#!/bin/sh
# tools/issue5/s34/dev5.sh - run 5: where the batch-1 merge and the decode's prologue spend their cycles: Nsight Compute's
# stall samples per straight-line segment (tools/ncu_segments.sh) for one oscar_merge_h launch and one oscar_decode_w
# launch at 1 x 8K (INT2, H rotations). Under ncu the kernels run one at a time (no PDL overlap).
O=${OUT:-build/s34_5}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for k in oscar_merge_h oscar_decode_w; do
    echo "== $k 1 x 8K"
    OUT=/tmp/seg_$k KERNEL=$k SKIP=4 MIN=4 ARGS="--batch 1 --ctx 8192 --iters 3 --mode int2" sh tools/ncu_segments.sh > "$O/seg_$k.txt" 2>&1
    head -60 "$O/seg_$k.txt"
done
