#!/bin/sh
# tools/issue5/s20/dev14.sh - twentieth session, device run 14 (repository root): the committed form
# of v42d (one INT2 sequence of >= 64K tokens: decode after the rotation, 2 blocks per SM): quick test,
# then INT2 / BF16 batch 1 and 8 x 32K against the previous commit (old/), graph us (events us).
O=${OUT:-build/s20n}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-8s" "$1"; awk -F, 'NR > 1 { printf " %s %s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 90 $bin --batch 1 --ctx 8192,32768,65536,131072 --iters 30 --mode int2 --csv "$O/b1_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/b1_$n$b.csv"
done
timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --csv "$O/bf.csv" > /dev/null 2>&1; row "new" "$O/bf.csv"
true
