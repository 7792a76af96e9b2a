#!/bin/sh
# tools/issue5/s33/wopts.sh - the write path (one 131,072-token append call, fitted rotations, and 2,048-token appends)
# of the default kernels against NVRTC option sets, ROUNDS rounds interleaved in one process each (default 3).
# usage: sh tools/issue5/s33/wopts.sh "-DOPT_A=1" "-DOPT_B=2 -DOPT_C=3" ...
export OSCAR_CUDA_CACHE_DIR=${OSCAR_CUDA_CACHE_DIR:-/tmp/oscar_kc}
make -s build/bench_gpu >/dev/null || exit 1
for r in $(seq 1 "${ROUNDS:-3}"); do
    for o in "" "$@"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > /tmp/w.log 2>&1
        echo "[$o] $(grep -A3 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
grep -h "^copy" /tmp/w.log | head -1
true
