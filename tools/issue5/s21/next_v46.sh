#!/bin/sh
# tools/issue5/s21/next_v46.sh - prepared, not run (no device time was left): v46, the merge un-rotates the
# outputs of H caches by the fast transform (o . H, a warp per head, oscar_wht_row) instead of the R_v^T
# product. Applies tools/issue5/s21/v46_merge_wht.patch to a
# copy of the tree (old/ = HEAD for the A/B), runs the quick and the whole test_cuda --gpu, then INT2 batch 1
# (old, new, old, new), batch 8 / 32 and --rot dense (which keeps the R_v^T product). Repository root, device.
O=${OUT:-build/v46}; mkdir -p "$O"
rm -rf old && mkdir -p old && cp -r oscar.h oscar_cuda.h cli old/ && patch -p1 -s < tools/issue5/s21/v46_merge_wht.patch || exit 1
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-10s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/b1_$n$b.csv" > /dev/null 2>&1; row "$n $b" "$O/b1_$n$b.csv"
done
for b in old new; do
    bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/b8_$b.csv" > /dev/null 2>&1; row "$b" "$O/b8_$b.csv"
    timeout 60 $bin --batch 1 --ctx 8192,32768 --iters 30 --mode int2 --rot dense --csv "$O/dense_$b.csv" > /dev/null 2>&1; row "$b dense" "$O/dense_$b.csv"
done
[ "${V46_FULL:-1}" = 1 ] || exit 0
s=$(date +%s); timeout 300 ./build/test_cuda --gpu > "$O/test.log" 2>&1; echo "full: rc=$? $(( $(date +%s) - s )) s $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL"; grep -m 3 FAIL "$O/test.log"
true
