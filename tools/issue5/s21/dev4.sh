#!/bin/sh
# tools/issue5/s21/dev4.sh - twenty-first session, device run 4 (repository root): v43 as committed
# (oscar_rotate_q in 256-thread blocks, 33 splits with the decode during the rotation from 16K tokens)
# against HEAD (old/): the whole test_cuda --gpu, then INT2 batch 1 / 8 / 32 and BF16 batch 1 in the
# order old, new, old, new. Graph us (events us).
O=${OUT:-build/s21d}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 280 ./build/test_cuda --gpu > "$O/test.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL"; grep -m 3 FAIL "$O/test.log"
grep "^ok" "$O/test.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 } } } END { print "worst err/tol: " m " (" c ")" }'
row() { printf "%-8s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,16384,32768,65536,131072 --iters 30 --mode int2 --csv "$O/b1_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/b1_$n$b.csv"
done
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/b8_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/b8_$n$b.csv"
done
for b in old new; do
    bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --csv "$O/bf_$b.csv" > /dev/null 2>&1; row "$b" "$O/bf_$b.csv"
done
true
