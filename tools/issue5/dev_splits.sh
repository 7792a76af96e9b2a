#!/bin/sh
# device run: INT2 decode time against forced split counts (0 = automatic) at batch 8 and 32
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
run() { # batch ctx splits...
    b=$1 c=$2; shift 2
    for s in "$@"; do
        ./build/bench_gpu --batch $b --ctx $c --iters 20 --mode int2 --splits $s --csv "$OUT/s_${b}_${c}_$s.csv" > /dev/null 2>&1
        awk -F, -v s=$s 'NR > 1 { printf "  batch %2s ctx %6s splits %2s: us %7.1f  graph %7.1f  %5.1f%%\n", $2, $3, s, $8, $15, $14 }' "$OUT/s_${b}_${c}_$s.csv"
    done
}
run 8 32768 0 9 10 11 12 14 16 0
run 32 32768 0 3 4 0
run 8 131072 0 10 12 16 0
tar czf "$OUT/splits.tgz" -C "$OUT" $(cd "$OUT" && ls s_*.csv) && rm -f "$OUT"/s_*.csv
