#!/bin/sh
# tools/issue5/s20/dev9.sh - twentieth session, device run 9 (repository root): the committed form (the
# split rule for INT2 caches only): quick test, then batch 1 INT2 and BF16 and 8 x 32K INT2, old / new
# twice; graph us (events us).
O=${OUT:-build/s20i}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-8s" "$1"; awk -F, 'NR > 1 { printf " %s %s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 90 $bin --batch 1 --ctx 8192,32768,131072 --iters 50 --mode both --csv "$O/b1_$n$b.csv" > "$O/b1_$n$b.log" 2>&1; row "$n $b" "$O/b1_$n$b.csv"
    timeout 60 $bin --batch 8 --ctx 32768 --iters 20 --mode int2 --csv "$O/b8_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/b8_$n$b.csv"
done
grep -h "^copy" "$O"/b1_1old.log | head -1
true
