#!/bin/sh
# tools/issue5/s20/dev8.sh - twentieth session, device run 8 (repository root): the whole test_cuda --gpu
# on the working tree (the small kernels' shared-memory split, 41 splits at batch 1), then INT2 batch 1
# (8K-128K), batch 8 / 32 and BF16 batch 1, new against old (`git show HEAD:` in old/) in the order
# old, new, old, new; graph us (events us).
O=${OUT:-build/s20h}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 6 FAIL "$O/full.log"
grep "^ok" "$O/full.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s %s %6s:%6.1f (%6.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,16384,32768,131072 --iters 50 --mode int2 --csv "$O/b1_$n$b.csv" > "$O/b1_$n$b.log" 2>&1; row "$n $b" "$O/b1_$n$b.csv"
    timeout 60 $bin --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --csv "$O/bf_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/bf_$n$b.csv"
    timeout 100 $bin --batch 8,32 --ctx 32768,131072 --iters 20 --mode int2 --csv "$O/b832_$n$b.csv" > "$O/b832_$n$b.log" 2>&1; row "$n $b" "$O/b832_$n$b.csv"
done
grep -h "^copy" "$O"/b1_1old.log | head -1
rm -f "$O"/*.log.tmp
true
