#!/bin/sh
# tools/issue5/s31/wsets.sh - the dense write path (`bench_gpu --mode write`): one 131,072-token append and the same
# prefill as 64 appends of 2,048 tokens, for NVRTC option sets, R rounds (default 2) interleaved.
# usage: sh tools/issue5/s31/wsets.sh "" "-DOPT=1" ...   (prints "[opts] one-call ms % | 2048-token appends ms")
O=${OUT:-build/s31_w}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
for r in $(seq 1 ${R:-2}); do
    i=0
    for o in "$@"; do
        i=$((i + 1))
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 90 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > /tmp/w.log 2>&1
        [ $r = 1 ] && cp /tmp/w.log "$O/w_set$i.log"
        one=$(grep "^diag write path, dense.*one append call" /tmp/w.log | sed 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/\1 ms \2%/')
        app=$(grep -A1 "^diag write path, dense.*one append call" /tmp/w.log | grep "2048-token appends (runs in" | sed 's/.*appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1 ms/')
        echo "[$o] $one | appends $app"
    done
done
grep -h "^copy" "$O"/w_set1.log | head -1
true
