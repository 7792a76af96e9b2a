#!/bin/sh
# tools/issue5/s20/dev4.sh - twentieth session, device run 4 (repository root): a fine sweep of the INT2
# batch-1 split count (18-36 by 1, then 40-66) at 8K / 16K / 32K / 128K, two repetitions, graph us.
O=${OUT:-build/s20d}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for rep in 1 2; do
    for s in 0 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 36 40 44 48 52 56 60 66; do
        timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,16384,32768,131072 --iters 30 --mode int2 --splits $s --csv "$O/s${s}_$rep.csv" > "$O/s${s}_$rep.log" 2>&1
    done
done
for s in 0 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 36 40 44 48 52 56 60 66; do
    printf "%-4s" "$s"; paste -d, "$O/s${s}_1.csv" "$O/s${s}_2.csv" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f", $3, $15, $31 }'; echo
done
cat "$O"/s*_1.csv "$O"/s*_2.csv > "$O/all.csv"; rm -f "$O"/s*.log
true
