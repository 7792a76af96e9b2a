#!/bin/sh
# tools/issue5/s31/dev9.sh - run 9: oscar_append_w with Xl.Rh in its own accumulator (-DOSCAR_APPEND_A4=1: at one n-tile
# per chunk a2's 8-IMMA chain is the loop's only dependent chain; 56 B spilled at 64 registers), every flush through it.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_A4=1" timeout 150 ./build/test_cuda --gpu --only flush > /tmp/t.log 2>&1; echo "A4 flush: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"
for r in 1 2; do
    for o in "" "-DOSCAR_APPEND_A4=1"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 100 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wide 1 > /tmp/w.log 2>&1
        echo "[$o --wide 1] $(grep '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p')"
    done
done
true
