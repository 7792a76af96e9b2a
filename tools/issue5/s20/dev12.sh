#!/bin/sh
# tools/issue5/s20/dev12.sh - twentieth session, device run 12 (repository root): oscar_rotate_q held to
# 40 registers (-DOSCAR_RQMINB=3: 3 blocks' worth, so that it and two decode blocks need less than the
# SM's whole register file); placement at 33 splits (wprof), then INT2 batch 1 graph us.
O=${OUT:-build/s20l}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
f="$O/wp.csv"; rm -f "$f"
OSCAR_WPROF_OUT="$f" OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024 -DOSCAR_RQMINB=3" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768 --iters 20 --mode int2 --splits 33 > "$O/wp.log" 2>&1
awk -F, '{ sm[$4]++ } END { for (k in sm) h[sm[k]]++; printf "RQMINB 3, 33 splits: blocks %d on %d SMs; SMs by blocks held:", NR, length(sm); for (k in h) printf " %d:%d", k, h[k]; printf "\n" }' "$f"
row() { printf "%-16s" "$1"; paste -d, "$2" "$3" | awk -F, 'NR > 1 { printf " %6s:%5.1f/%5.1f (%5.1f)", $3, $15, $31, $8 }'; echo; }
for m in 3 1; do for s in 33 41; do
    for rep in 1 2; do OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_RQMINB=$m" timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --splits $s --csv "$O/m${m}_s${s}_$rep.csv" > /dev/null 2>&1; done
    row "RQMINB $m s$s" "$O/m${m}_s${s}_1.csv" "$O/m${m}_s${s}_2.csv"
done; done
true
