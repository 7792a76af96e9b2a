#!/bin/sh
# tools/issue5/s23/dev3.sh - run 3 of the twenty-third session (kind nvidia-h200): the general merge without its
# dead store (wls[] = w * l, written after the weights and never read), timed against the committed header
# (old/, a `git show HEAD:` copy) at batch 8 / 32 x 32K (the general path) and batch 1, two sets; then the whole
# issue-5 table of the working tree (tools/gpu_issue5.sh full: the whole test_cuda --gpu, every row, SDPA).
F=build/issue5_full; rm -rf "$F"; mkdir -p "$F"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for n in 1 2; do
    for v in old gpu; do
        timeout 60 "./build/bench_$v" --batch 8,32 --ctx 32768 --iters 15 --mode int2 --csv "$F/e.csv" > /dev/null 2>&1; row "$n $v H" "$F/e.csv"
        timeout 60 "./build/bench_$v" --batch 8,32 --ctx 32768 --iters 15 --mode int2 --rot dense --csv "$F/e.csv" > /dev/null 2>&1; row "$n $v dense" "$F/e.csv"
        timeout 60 "./build/bench_$v" --batch 1 --ctx 8192 --iters 30 --mode int2 --csv "$F/e.csv" > /dev/null 2>&1; row "$n $v H" "$F/e.csv"
    done
done
t0=$(date +%s)
OUT="$F" timeout 470 sh tools/gpu_issue5.sh full
echo "full run: $(( $(date +%s) - t0 )) s"
for f in b1_new.csv b832_new.csv b64.csv b1_dense.csv b832_dense.csv sdpa.csv test.log; do [ -f "$F/$f" ] && cp "$F/$f" "${OUT:-build}/"; done
true
