#!/bin/sh
# tools/issue5/s28/dev3.sh - run 3 of the twenty-eighth session: where the tagged merge's time goes. One call's chain
# (-DOSCAR_WPROF=1024: the decode blocks' and the merge blocks' starts, waits and ends) with plain partials (--ll 2)
# and tagged ones (the progressive poll, OSCAR_MLL 1, and the (m, l)-first poll, OSCAR_MLL 2), then graph us (events
# us) of the three, two sets; the quick test with OSCAR_MLL 2.
O=${OUT:-build/s28_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MLL=2" timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick MLL=2: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 8 "FAIL\|rror" "$O/quick.log"
for set in "2|1" "0|1" "0|2"; do
    ll=${set%|*}; m=${set#*|}
    for c in 8192 32768; do
        OSCAR_WPROF_OUT="$O/wp.csv" OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024 -DOSCAR_MLL=$m" timeout 60 ./build/bench_gpu --batch 1 --ctx $c --iters 20 --mode int2 --ll $ll 2>&1 | grep "chain" | sed "s/^/ll $ll mll $m: /" | cut -c1-400
    done
done
NOQUICK=1 ROWS="int2 1 8192,32768,131072 20
int2 4 32768 20" OUT="$O/ab" sh tools/issue5/s25/sets.sh "|--ll 2" "|" "-DOSCAR_MLL=2|" "-DOSCAR_MLL=2|--ll 2"
true
