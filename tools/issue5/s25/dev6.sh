#!/bin/sh
# tools/issue5/s25/dev6.sh - run 6 of the twenty-fifth session: split counts around the library's choice where
# the interleaved decode runs (>= 64 KV heads per batch), after run 5 found 6 splits faster than the automatic
# 8 at 8 x 32K; two sets, graph us (events us).
O=${OUT:-build/s25_6}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
one() { # batch ctx splits [extra]
    timeout 40 ./build/bench_gpu --batch $1 --ctx $2 --iters 20 --mode int2 --splits $3 $4 --csv "$O/x.csv" > "$O/x.log" 2>&1
    awk -F, -v s="$3 $4" 'NR > 1 { printf "%2s x %6s splits %-10s graph %6.1f (events %6.1f)\n", $2, $3, s, $15, $8 }' "$O/x.csv"
}
for r in 1 2; do
    for s in 0 4 5 6 7; do one 8 32768 $s; done
    one 8 32768 6 "--wig 2"; one 8 32768 8 "--wig 2"
    for s in 0 6; do one 8 131072 $s; done
    for s in 0 3; do one 16 32768 $s; done
    for s in 0 3; do one 16 131072 $s; done
done | tee "$O/splits.txt"
grep -h "^copy" "$O/x.log"
rm -f "$O/x.csv" "$O/x.log"
