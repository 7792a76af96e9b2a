#!/bin/sh
# tools/issue5/s21/dev3.sh - twenty-first session, device run 3 (repository root): oscar_rotate_q in
# 256-thread blocks over 8 column chunks (v43) against the committed kernels (old/ = HEAD): quick test,
# then batch-1 INT2 by split count with the decode launched during the rotation (--dpdl 1), the automatic
# choice of both, and batch 8 / 32. Graph us (events us).
O=${OUT:-build/s21c}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-14s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
C=8192,16384,32768,65536,131072
timeout 90 ./build/bench_old --batch 1 --ctx $C --iters 30 --mode int2 --csv "$O/old1.csv" > /dev/null 2>&1; row "old auto" "$O/old1.csv"
timeout 90 ./build/bench_gpu --batch 1 --ctx $C --iters 30 --mode int2 --csv "$O/new1.csv" > /dev/null 2>&1; row "new auto" "$O/new1.csv"
for s in 25 33 41 49; do
    timeout 90 ./build/bench_gpu --batch 1 --ctx $C --iters 30 --mode int2 --splits $s --dpdl 1 --csv "$O/s$s.csv" > /dev/null 2>&1; row "new s$s pdl" "$O/s$s.csv"
done
timeout 90 ./build/bench_old --batch 1 --ctx $C --iters 30 --mode int2 --splits 33 --dpdl 1 --csv "$O/olds33.csv" > /dev/null 2>&1; row "old s33 pdl" "$O/olds33.csv"
timeout 90 ./build/bench_old --batch 1 --ctx $C --iters 30 --mode int2 --csv "$O/old2.csv" > /dev/null 2>&1; row "old auto" "$O/old2.csv"
timeout 90 ./build/bench_gpu --batch 1 --ctx $C --iters 30 --mode int2 --csv "$O/new2.csv" > /dev/null 2>&1; row "new auto" "$O/new2.csv"
for b in old new; do
    bin=./build/bench_gpu; [ $b = old ] && bin=./build/bench_old
    timeout 120 $bin --batch 8,32 --ctx 32768,131072 --iters 20 --mode int2 --csv "$O/b832$b.csv" > /dev/null 2>&1; row "$b b8/32" "$O/b832$b.csv"
    timeout 60 $bin --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --csv "$O/bf$b.csv" > /dev/null 2>&1; row "$b bf16" "$O/bf$b.csv"
done
true
