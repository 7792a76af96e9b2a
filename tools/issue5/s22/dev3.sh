#!/bin/sh
# tools/issue5/s22/dev3.sh - run 3 (repository root, old/ = HEAD copied in by the caller): v46b, the merge's
# un-rotation of H caches by the fast transform in kernels of their own (oscar_merge_h, oscar_merge_gh), so the
# product kernels of fitted rotations are the code of HEAD. Quick test, then batch 1 H / dense (old, new, two
# sets), batch 8 / 32 H. Graph us (events us).
O=${OUT:-build/s22}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h_$n$b.csv" > /dev/null 2>&1; row "$n $b H" "$O/h_$n$b.csv"
    timeout 60 $bin --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --rot dense --csv "$O/d_$n$b.csv" > /dev/null 2>&1; row "$n $b dense" "$O/d_$n$b.csv"
done
for b in old new; do
    bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/b8_$b.csv" > /dev/null 2>&1; row "$b H" "$O/b8_$b.csv"
done
./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 30 --mode int2 2>&1 | grep "^diag" | head -8
