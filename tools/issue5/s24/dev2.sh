#!/bin/sh
# tools/issue5/s24/dev2.sh - run 2 of the twenty-fourth session: v50, history units staged by the copy
# engine (-DOSCAR_WTMA=1: one cp.async.bulk of the whole 64-token page per unit, an mbarrier per stage,
# unpadded V rows with the score columns' tokens permuted 0 1 2 3 5 4 7 6) against the default build
# (whose oscar_decode_w SASS is the committed one, instruction for instruction). Quick test with the
# option, then graph us (events us) per shape, two sets each, default first and last.
O=${OUT:-build/s24_2}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WTMA=1 timeout 200 ./build/test_cuda --gpu --quick > "$O/quick_tma.log" 2>&1
echo "quick tma: rc=$? $(grep -c '^ok' "$O/quick_tma.log") ok, $(grep -c FAIL "$O/quick_tma.log") FAIL"; grep -m 5 "FAIL\|error" "$O/quick_tma.log"
row() { printf "%-12s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
for v in def tma def tma; do
    opt=; [ $v = tma ] && opt=-DOSCAR_WTMA=1
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 60 ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 30 --mode int2 --csv "$O/h.csv" > "$O/h_$v.log" 2>&1; row "$v" "$O/h.csv"
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 90 ./build/bench_gpu --batch 8,32 --ctx 32768,131072 --iters 15 --mode int2 --csv "$O/e.csv" > /dev/null 2>&1; row "$v" "$O/e.csv"
    OSCAR_CUDA_NVRTC_OPTIONS="$opt" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768 --iters 30 --mode int2 --rot dense --csv "$O/d.csv" > /dev/null 2>&1; row "$v dense" "$O/d.csv"
done
grep -h "^copy" "$O"/h_def.log | head -1
true
