#!/bin/sh
# tools/issue5/s20/dev6.sh - twentieth session, device run 6 (repository root): the small kernels with
# the decode's shared-memory split (new) against the committed header (old/, `git show HEAD:`), batch-1
# split sweep; batch 2-8 at 2 and 4 blocks per SM; graph us (events us), two repetitions.
O=${OUT:-build/s20f}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"
row() { printf "%-16s" "$1"; paste -d, "$2" "$3" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f (%5.1f)", $3, $15, $31, $8 }'; echo; }
for b in new old; do
    bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    L="0 25 26 33 34 41 49 50 66"; [ $b = old ] && L="0 25 33"
    for s in $L; do
        for rep in 1 2; do timeout 60 $bin --batch 1 --ctx 8192,16384,32768,131072 --iters 30 --mode int2 --splits $s --csv "$O/${b}_b1_s${s}_$rep.csv" > /dev/null 2>&1; done
        row "$b b1 s$s" "$O/${b}_b1_s${s}_1.csv" "$O/${b}_b1_s${s}_2.csv"
    done
done
for bs in "2 0" "2 16" "2 17" "4 0" "4 8" "8 0" "8 4"; do
    set -- $bs
    for rep in 1 2; do timeout 90 ./build/bench_gpu --batch $1 --ctx 32768,131072 --iters 20 --mode int2 --splits $2 --csv "$O/new_b$1_s$2_$rep.csv" > /dev/null 2>&1; done
    row "new b$1 s$2" "$O/new_b$1_s$2_1.csv" "$O/new_b$1_s$2_2.csv"
done
for s in 0 33; do
    for rep in 1 2; do timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --splits $s --csv "$O/new_bf_s${s}_$rep.csv" > /dev/null 2>&1; done
    row "new bf16 b1 s$s" "$O/new_bf_s${s}_1.csv" "$O/new_bf_s${s}_2.csv"
done
cat "$O"/*.csv > "$O/all.csv"
true
