#!/bin/sh
# tools/issue5/s30/wsets.sh - the dense write path (`bench_gpu --mode write`, one 131,072-token append) for NVRTC
# option sets, R rounds (default 3) interleaved. usage: sh tools/issue5/s30/wsets.sh "" "-DOPT=1" ...
O=${OUT:-build/s30_w}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
for r in $(seq 1 ${R:-3}); do
    i=0
    for o in "$@"; do
        i=$((i + 1))
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 60 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > /tmp/w.log 2>&1
        [ $r = 1 ] && cp /tmp/w.log "$O/w_set$i.log"
        grep "^diag write path.*one append call" /tmp/w.log | grep -v "wht_warp\|fast transform" | sed 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/\1 ms \2%/' | sed "s/^/[$o] /"
    done
done
grep -h "^copy" "$O"/w_set1.log | head -1
true
