#!/bin/sh
# tools/issue5/s31/optab.sh - one NVRTC option of the write kernels against the default: the flush and nonfinite tests
# with it (pages byte for byte against the CPU), then `bench_gpu --mode write --wchunks 2048,8192` (automatic kernel
# choice), three rounds interleaved. usage: sh tools/issue5/s31/optab.sh -DOSCAR_APPEND_X=1
OPT=${1:?usage: optab.sh NVRTC_OPTION}
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in flush nonfinite; do
    OSCAR_CUDA_NVRTC_OPTIONS="$OPT" timeout 200 ./build/test_cuda --gpu --only $o > /tmp/t.log 2>&1; echo "[$OPT] $o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"; grep -m 5 FAIL /tmp/t.log
done
for r in 1 2 3; do
    for o in "" "$OPT"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wchunks 2048,8192 > /tmp/w.log 2>&1
        echo "[$o] $(grep -A3 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
grep -h "^copy" /tmp/w.log | head -1
true
