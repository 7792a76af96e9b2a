#!/bin/sh
# tools/issue5/s25/dev22.sh - run 22 of the twenty-fifth session: INT2 at batch 2-4 (below the 64 pairs of v52, the
# slot-filling split count, 4 blocks per SM) against 2 and 3 blocks per SM, with and without the interleaved
# decode (--wig 1): a sweep for the next session, two sets, graph us (events us).
O=${OUT:-build/s25_22}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
one() { # batch splits [extra]
    timeout 60 ./build/bench_gpu --batch $1 --ctx 32768,131072 --iters 20 --mode int2 --splits $2 $3 --csv "$O/x.csv" > "$O/x.log" 2>&1
    awk -F, -v s="splits $2 $3" 'NR > 1 { printf "%-18s %s x %6s graph %6.1f (events %6.1f)\n", s, $2, $3, $15, $8 }' "$O/x.csv"
}
for r in 1 2; do
    for s in 0 16 24; do one 2 $s; one 2 $s "--wig 1"; done
    for s in 0 8 12; do one 4 $s; one 4 $s "--wig 1"; done
done | sort -s -k4,4n -k6,6n | tee "$O/int2_b24.txt"
grep -h "^copy" "$O/x.log"; rm -f "$O/x.csv" "$O/x.log"
