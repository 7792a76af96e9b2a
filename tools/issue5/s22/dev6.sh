#!/bin/sh
# tools/issue5/s22/dev6.sh - run 6 (repository root): v46c, the split count of one INT2 sequence at 8K and 12K
# (the merge after the decode is shorter with oscar_merge_h, so the v43 rule, 41 splits below 12K, is timed again),
# two sets. Graph us (events us).
O=${OUT:-build/s22}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for n in 1 2; do
    timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,12288 --iters 40 --mode int2 --csv "$O/auto$n.csv" > /dev/null 2>&1; row "$n auto" "$O/auto$n.csv"
    for s in 25 33 49 57 66; do
        timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,12288 --iters 40 --mode int2 --splits $s --csv "$O/s$s.csv" > /dev/null 2>&1; row "$n s$s" "$O/s$s.csv"
    done
done
