#!/bin/sh
# device run: decode grids spread over all SMs (oscar_cuda_kv.spread) against packed (2), same run;
# quick test_cuda first (small grids take the spread path by default)
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
./build/test_cuda --gpu --quick > "$OUT/test_q.log" 2>&1
echo "quick test: $(grep -c '^ok' "$OUT/test_q.log") ok, $(grep -c FAIL "$OUT/test_q.log") FAIL"; grep -m 4 FAIL "$OUT/test_q.log"
for rep in 1 2; do
for sp in 2 0; do
    ./build/bench_gpu --batch 1,4 --ctx ${CTXS:-2048,8192,32768} --iters 50 --mode both --spread $sp --csv "$OUT/sp${sp}_$rep.csv" > "$OUT/sp${sp}_$rep.log" 2>&1
    echo "spread $sp (rep $rep):"
    awk -F, 'NR > 1 { printf "  %-5s %2s %6s  us %6.1f  graph %6.1f  %5.1f%%\n", $1, $2, $3, $8, $15, $14 }' "$OUT/sp${sp}_$rep.csv"
done
done
