#!/bin/sh
# tools/issue5/s20/dev13.sh - twentieth session, device run 13 (repository root): the decode launched
# after the query rotation has ended (--dpdl 2: no programmatic dependent launch, so its blocks are
# placed on 132 free SMs) against the default, INT2 batch 1 at 33 and 41 splits, graph us (events us).
O=${OUT:-build/s20m}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
row() { printf "%-14s" "$1"; paste -d, "$2" "$3" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f (%5.1f)", $3, $15, $31, $8 }'; echo; }
for p in 2 0 2; do for s in 33 41; do
    for rep in 1 2; do timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --splits $s --dpdl $p --csv "$O/p${p}_s${s}_$rep.csv" > /dev/null 2>&1; done
    row "dpdl $p s$s" "$O/p${p}_s${s}_1.csv" "$O/p${p}_s${s}_2.csv"
done; done
f="$O/wp.csv"; rm -f "$f"
OSCAR_WPROF_OUT="$f" OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768 --iters 20 --mode int2 --splits 33 --dpdl 2 > "$O/wp.log" 2>&1
awk -F, '{ sm[$4]++ } END { for (k in sm) h[sm[k]]++; printf "dpdl 2, 33 splits: blocks %d on %d SMs; SMs by blocks held:", NR, length(sm); for (k in h) printf " %d:%d", k, h[k]; printf "\n" }' "$f"
true
