#!/bin/sh
# tools/issue5/s22/dev5.sh - run 5 (repository root, old/ = HEAD copied in by the caller): v46c, oscar_merge_h
# only where the merge grid is one wave (batch 1-4 at Hq 32) or merge 1 asks for it; batch 1 H / dense and
# batch 8 / 32 H against HEAD, then the whole issue-5 run on the new tree (full test_cuda --gpu, every row,
# torch SDPA). Graph us (events us).
O=${OUT:-build/s22}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
n=0
for b in old new old new; do
    n=$((n + 1)); bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 60 $bin --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h_$n$b.csv" > /dev/null 2>&1; row "$n $b H" "$O/h_$n$b.csv"
    timeout 60 $bin --batch 1 --ctx 8192,32768 --iters 30 --mode int2 --rot dense --csv "$O/d_$n$b.csv" > /dev/null 2>&1; row "$n $b dense" "$O/d_$n$b.csv"
    timeout 60 $bin --batch 8,32 --ctx 32768 --iters 15 --mode int2 --csv "$O/b8_$n$b.csv" > /dev/null 2>&1; row "$n $b H" "$O/b8_$n$b.csv"
done
t0=$(date +%s)
OUT="$O/full" timeout 440 sh tools/gpu_issue5.sh full
echo "full run: $(( $(date +%s) - t0 )) s"
