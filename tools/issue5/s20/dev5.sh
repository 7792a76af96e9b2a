#!/bin/sh
# tools/issue5/s20/dev5.sh - twentieth session, device run 5 (repository root): the batch-1 split sweep
# without the query rotation (--rot none: no oscar_rotate_q blocks on the SMs when the decode grid is
# placed) and with it, same split counts, graph us, two repetitions.
O=${OUT:-build/s20e}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
L="0 24 25 26 27 32 33 34 35 40 48 49 50 51 66"
for rot in none hadamard; do
    for rep in 1 2; do
        for s in $L; do
            timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode int2 --rot $rot --splits $s --csv "$O/${rot}_s${s}_$rep.csv" > /dev/null 2>&1
        done
    done
    echo "rot $rot"
    for s in $L; do
        printf "%-4s" "$s"; paste -d, "$O/${rot}_s${s}_1.csv" "$O/${rot}_s${s}_2.csv" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f", $3, $15, $31 }'; echo
    done
done
cat "$O"/*.csv > "$O/all.csv"
true
