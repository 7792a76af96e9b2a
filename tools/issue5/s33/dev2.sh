#!/bin/sh
# tools/issue5/s33/dev2.sh - run 2: what a decode step of one layer costs (bench --step: the one-token append of
# every sequence, then attend; events from an idle GPU and back to back), H and fitted (dense) rotations and BF16;
# then the Nsight Compute profile of the hoisted oscar_append_w prepared last session (s32/dev5.sh).
O=${OUT:-build/s33_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step > "$O/step_h.txt" 2>&1
./build/bench_gpu --batch 1,8 --ctx 8192,32768 --iters 50 --step --mode int2 --rot dense > "$O/step_dense.txt" 2>&1
for f in step_h step_dense; do echo "== $f"; grep -E "^(step|int2|bf16|copy)" "$O/$f.txt"; done | tee "$O/summary.txt"
OUT="$O/ncu" sh tools/issue5/s32/dev5.sh > "$O/ncu.txt" 2>&1
tail -30 "$O/ncu.txt"
true
