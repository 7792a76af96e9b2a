#!/bin/sh
# device run: batch-1 rows again (both modes), twice, for the table (the full run's INT2 1 x 32K
# events and back-to-back times were 2.8x its graph time once)
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for rep in 1 2; do
    ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --csv "$OUT/b1_rep$rep.csv" > "$OUT/b1_rep$rep.log" 2>&1
    awk -F, 'NR > 1 { printf "rep '$rep' %-5s %2s %6s  us %6.1f  b2b %6.1f  graph %6.1f  %5.1f%%\n", $1, $2, $3, $8, $10, $15, $14 }' "$OUT/b1_rep$rep.csv"
done
grep -h "^copy" "$OUT"/b1_rep1.log
