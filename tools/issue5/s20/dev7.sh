#!/bin/sh
# tools/issue5/s20/dev7.sh - twentieth session, device run 7 (repository root): the merges at 64
# registers (-DOSCAR_MMINB=2, so that a merge block fits beside two decode blocks) against the default,
# both with the small kernels' shared-memory split; batch-1 split sweep, graph us (events us).
O=${OUT:-build/s20g}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 3 FAIL "$O/quick.log"
row() { printf "%-18s" "$1"; paste -d, "$2" "$3" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f (%5.1f)", $3, $15, $31, $8 }'; echo; }
for m in 1 2 1; do
    for s in 0 25 30 33 41 66; do
        for rep in 1 2; do OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MMINB=$m" timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,16384,32768,131072 --iters 30 --mode int2 --splits $s --csv "$O/m${m}_s${s}_$rep.csv" > /dev/null 2>&1; done
        row "MMINB $m s$s" "$O/m${m}_s${s}_1.csv" "$O/m${m}_s${s}_2.csv"
    done
done
for m in 1 2; do for s in 0 33; do
    for rep in 1 2; do OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MMINB=$m" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode bf16 --splits $s --csv "$O/bf_m${m}_s${s}_$rep.csv" > /dev/null 2>&1; done
    row "bf16 MMINB $m s$s" "$O/bf_m${m}_s${s}_1.csv" "$O/bf_m${m}_s${s}_2.csv"
done; done
cat "$O"/*.csv > "$O/all.csv"
true
