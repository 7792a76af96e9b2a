#!/bin/sh
# tools/issue5/s22/dev4.sh - run 4: v46b at batch 8 / 32 (H rotations; batch 32 takes oscar_merge_gh), old / new
# three sets (run 3's single set had batch 32 1.6-2 % slower). Graph us (events us).
O=${OUT:-build/s22}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/b8_$n$b.csv" > /dev/null 2>&1; row "$n $b H" "$O/b8_$n$b.csv"
done
