#!/bin/sh
# tools/issue5/s23/dev9.sh - run 9 of the twenty-third session (H100): the merge polling per-KV-head split counts at
# batch 1-4 (`bench --poll 1`) against the library's choice there (a wait for the whole decode grid; polling was
# slower at batch 1 in v32, before merge_h, v47's shuffle merge and the in-decode query transform).
# BF16 1 x 32K is 0.6 us from 85 % of copy in a graph: a merge that starts on the KV heads already done could
# take part of the merge off the tail. graph us (events us), two sets.
O=${OUT:-build/s23_9}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
row() { printf "%-14s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for n in 1 2; do
    for pl in 0 1; do
        timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --poll $pl --csv "$O/f.csv" > /dev/null 2>&1; row "$n poll$pl bf16" "$O/f.csv"
        timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --poll $pl --csv "$O/h.csv" > /dev/null 2>&1; row "$n poll$pl H" "$O/h.csv"
        timeout 60 ./build/bench_gpu --batch 2,4 --ctx 32768 --iters 30 --mode int2 --poll $pl --csv "$O/h.csv" > /dev/null 2>&1; row "$n poll$pl H" "$O/h.csv"
        timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,32768 --iters 30 --mode int2 --rot dense --poll $pl --csv "$O/d.csv" > /dev/null 2>&1; row "$n poll$pl dense" "$O/d.csv"
    done
done
true
