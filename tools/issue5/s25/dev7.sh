#!/bin/sh
# tools/issue5/s25/dev7.sh - run 7 of the twenty-fifth session: run 6 found ~3 blocks per SM (384 blocks: 6 splits
# at batch 8, 3 at batch 16) faster than the slot-filling count (4 per SM) with the interleaved decode; here the
# batches where that rule would give 1-5 splits, two sets, graph us (events us).
O=${OUT:-build/s25_7}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
one() { # batch ctx splits [extra]
    timeout 60 ./build/bench_gpu --batch $1 --ctx $2 --iters ${IT:-20} --mode int2 --splits $3 $4 --csv "$O/x.csv" > "$O/x.log" 2>&1
    awk -F, -v s="$3 $4" 'NR > 1 { printf "%2s x %6s splits %-10s graph %6.1f (events %6.1f)\n", $2, $3, s, $15, $8 }' "$O/x.csv"
}
for r in 1 2; do
    for s in 0 4; do one 12 32768 $s; done
    for s in 0 1; do one 24 32768 $s; done
    for s in 0 1; do one 32 32768 $s; done
    for s in 0 1; do IT=10 one 32 131072 $s; done
    for s in 0 1; do IT=10 one 64 32768 $s; done
    for s in 0 5 6; do one 10 32768 $s; done
done | tee "$O/splits.txt"
grep -h "^copy" "$O/x.log"
rm -f "$O/x.csv" "$O/x.log"
