#!/bin/sh
# tools/issue5/s20/dev3.sh - twentieth session, device run 3 (repository root): INT2 batch-1 (and 2)
# split counts against context, two repetitions, graph us (events us) per cell; a table at the end.
O=${OUT:-build/s20c}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
C=${CTX:-4096,8192,12288,16384,24576,32768,49152,65536}
for rep in 1 2; do
    for s in 0 12 16 20 24 28 32 40 48 64; do
        timeout 90 ./build/bench_gpu --batch ${B:-1} --ctx $C --iters 30 --mode int2 --splits $s --csv "$O/s${s}_$rep.csv" > "$O/s${s}_$rep.log" 2>&1
    done
done
for f in "$O"/s*_1.csv; do
    s=$(basename $f _1.csv); g=${f%_1.csv}_2.csv
    printf "%-4s" "$s"; paste -d, "$f" "$g" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f", $3, $15, $31 }'; echo
done
true
