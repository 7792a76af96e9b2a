#!/bin/sh
# tools/issue5/s25/dev18.sh - run 18 of the twenty-fifth session: BF16 1 x 32K / 128K (83.8% of copy in a graph,
# 85% wanted) by split count and warps per region since v51 (WIG 4 for BF16): two sets, graph us (events us).
O=${OUT:-build/s25_18}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
one() { # options splits
    OSCAR_CUDA_NVRTC_OPTIONS="$1" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --splits $2 --csv "$O/x.csv" > "$O/x.log" 2>&1
    awk -F, -v s="[$1] splits $2" 'NR > 1 { printf "%-28s %s x %6s graph %6.1f (events %6.1f)\n", s, $2, $3, $15, $8 }' "$O/x.csv"
}
for r in 1 2; do
    for s in 0 33 41 49 56 66; do one "" $s; done
    one "-DOSCAR_WIG=1" 0; one "-DOSCAR_WIG=2" 0
done | tee "$O/bf16.txt"
grep -h "^copy" "$O/x.log"; rm -f "$O/x.csv" "$O/x.log"
