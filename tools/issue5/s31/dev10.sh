#!/bin/sh
# tools/issue5/s31/dev10.sh - run 10: what the shared-memory carveout gives the write kernels. Nsight Compute's launch
# and occupancy sections on one oscar_append_w launch (8 blocks per SM as built, and -DOSCAR_APPEND_WMINB=7, which runs
# 30% slower, runs s30-4 / s31-3), then the write path with the kernels' preferred carveout set to 100% (--wcarve 100).
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
for o in "" "-DOSCAR_APPEND_WMINB=7"; do
    for c in -2 100; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 200 ncu --clock-control none --kernel-name oscar_append_w --launch-skip 1 --launch-count 1 \
            --section LaunchStats --section Occupancy ./build/bench_gpu --mode write --iters 3 --wide 1 --wcarve $c > /tmp/n.log 2>&1
        echo "== [$o --wcarve $c] ncu rc=$?"
        grep -E "Registers Per Thread|Shared Memory Configuration Size|Dynamic Shared Memory Per Block|Driver Shared Memory Per Block|Block Limit (Registers|Shared Mem)|Theoretical Occupancy|Achieved Occupancy|Achieved Active Warps" /tmp/n.log | sed 's/  */ /g'
    done
done
for r in 1 2; do
    for s in "|-2" "|100" "-DOSCAR_APPEND_WMINB=7|100"; do
        o=${s%|*}; c=${s#*|}
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 100 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wide 1 --wcarve $c > /tmp/w.log 2>&1
        echo "[$o --wide 1 --wcarve $c] $(grep '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p')"
    done
done
true
