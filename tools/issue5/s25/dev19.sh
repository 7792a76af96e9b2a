#!/bin/sh
# tools/issue5/s25/dev19.sh - run 19 of the twenty-fifth session: run 18 found BF16 1 x 32K / 128K faster at 2
# blocks per SM (33 splits: 51.5 / 184.6 us in a graph against 53.7 / 189.5 for the slot-filling count); here by
# context at batch 1 (25 / 33 / auto) and at batch 2 and 4 (2 blocks per SM / auto), two sets, graph us (events).
O=${OUT:-build/s25_19}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
one() { # batch ctxs splits
    timeout 90 ./build/bench_gpu --batch $1 --ctx $2 --iters 30 --mode bf16 --splits $3 --csv "$O/x.csv" > "$O/x.log" 2>&1
    awk -F, -v s="splits $3" 'NR > 1 { printf "%-10s %s x %6s graph %6.1f (events %6.1f)\n", s, $2, $3, $15, $8 }' "$O/x.csv"
}
for r in 1 2; do
    for s in 0 25 33; do one 1 4096,8192,16384,65536 $s; done
    for s in 0 16; do one 2 32768,131072 $s; done
    for s in 0 8; do one 4 32768 $s; done
done | sort -s -k3,3n -k5,5n | tee "$O/bf16.txt"
grep -h "^copy" "$O/x.log"; rm -f "$O/x.csv" "$O/x.log"
