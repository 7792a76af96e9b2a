#!/bin/sh
# tools/issue5/s31/dev5.sh - run 5: each warp codes the rows it rotated, no block barrier between the phases
# (OSCAR_APPEND_WLOCAL=1, the thirtieth session's w33, level then at 5 blocks per SM), now with oscar_append_w (8 blocks
# per SM) on the long launches: the flush and nonfinite tests with it, then the write path against the default, three rounds.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in flush nonfinite; do
    OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_WLOCAL=1" timeout 200 ./build/test_cuda --gpu --only $o > /tmp/t.log 2>&1; echo "WLOCAL $o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"; grep -m 5 FAIL /tmp/t.log
done
for r in 1 2 3; do
    for o in "" "-DOSCAR_APPEND_WLOCAL=1"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wchunks 2048,8192 > /tmp/w.log 2>&1
        echo "[$o] $(grep -A3 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
grep -h "^copy" /tmp/w.log | head -1
true
