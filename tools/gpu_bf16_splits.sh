#!/bin/sh
# tools/gpu_bf16_splits.sh - BF16 decode time at batch 1 against the split count, same run.
# usage (device machine, repository root): sh tools/gpu_bf16_splits.sh   (CSVs under $OUT)
OUT=${OUT:-build/gpu_bf16_splits}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for s in ${S1:-0 16 33 66 99 132 198 264 0}; do
    ./build/bench_gpu --mode bf16 --batch 1 --ctx ${C1:-32768,131072} --iters 50 --splits "$s" --csv "$OUT/b_$s.csv" > "$OUT/b_$s.log" 2>&1
    awk -F, -v s="$s" '$1 == "bf16" { printf "splits %4s  batch %3s  ctx %7s  bf16 %8.1f us (b2b %7.1f, graph %8.1f)  %5.1f%% of copy\n", s, $2, $3, $8, $10, $15, $14 }' "$OUT/b_$s.csv"
done
grep -h "^copy" "$OUT"/b_0.log | head -1
