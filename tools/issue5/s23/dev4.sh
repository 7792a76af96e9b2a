#!/bin/sh
# tools/issue5/s23/dev4.sh - run 4 of the twenty-third session (H100): batch-1 split counts after v45-v47.
# BF16 1 x 32K / 128K (85 % of copy wanted at >= 32K; its count was last swept in the ninth session) and
# INT2 1 x 32K / 128K (the v43 rule: 33 splits with oscar_rotate_q1 from 12K; swept at 8K only after v46c).
# graph us (events us) per split count, two sets; 0 = the library's own choice.
O=${OUT:-build/s23_4}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
row() { printf "%-16s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f) %5.1f%%", $1, $2, $3, $15, $8, $14 }' "$2"; echo; }
for n in 1 2; do
    for s in 0 41 48 56 63 66 82 99 132; do
        timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --splits $s --csv "$O/f.csv" > /dev/null 2>&1; row "$n bf16 s$s" "$O/f.csv"
    done
    for s in 0 25 33 41 49 57 66; do
        timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode int2 --splits $s --csv "$O/h.csv" > /dev/null 2>&1; row "$n int2 s$s" "$O/h.csv"
    done
done
grep -h "^copy" "$O"/*.log 2>/dev/null | head -2
true
