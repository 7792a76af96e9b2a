#!/bin/sh
# tools/issue5/s22/dev8.sh - run 8 (repository root, old/ = HEAD 0e23001 copied in by the caller): v47, the
# one-head merge with at most 64 splits in registers (batch 1, and batch 8's one-head blocks) takes the split
# weights by shuffles in every warp instead of shared memory, a single warp and two barriers. Quick test, then
# old / new twice: INT2 batch 1 H and dense, BF16 batch 1, INT2 8 x 32K. Graph us (events us).
O=${OUT:-build/s22}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h$n.csv" > /dev/null 2>&1; row "$n $b H" "$O/h$n.csv"
    timeout 60 $bin --batch 1 --ctx 8192,32768 --iters 30 --mode int2 --rot dense --csv "$O/d$n.csv" > /dev/null 2>&1; row "$n $b dense" "$O/d$n.csv"
    timeout 60 $bin --batch 1 --ctx 8192,32768 --iters 30 --mode bf16 --csv "$O/f$n.csv" > /dev/null 2>&1; row "$n $b bf16" "$O/f$n.csv"
    timeout 60 $bin --batch 8 --ctx 32768 --iters 15 --mode int2 --csv "$O/e$n.csv" > /dev/null 2>&1; row "$n $b H" "$O/e$n.csv"
done
