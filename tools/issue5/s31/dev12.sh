#!/bin/sh
# tools/issue5/s31/dev12.sh - prepared for the next session, not run (no device time left): OSCAR_APPEND_HOIST=1, the
# rotation loop's B pointer and Y store addresses from per-thread bases set before the loop (nvdisasm of the nvcc sm_90a
# cubin: oscar_append_w's loop 71 -> 62 instructions per chunk, 315 -> 288 cycles of fixed stalls, 32 -> 20 B spilled;
# oscar_append's 110 -> 103 per chunk of 2 n-tiles). The flush and nonfinite tests with it (pages byte for byte against
# the CPU), then the write path against the default, three rounds interleaved.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in flush nonfinite; do
    OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_HOIST=1" timeout 200 ./build/test_cuda --gpu --only $o > /tmp/t.log 2>&1; echo "HOIST $o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"; grep -m 5 FAIL /tmp/t.log
done
for r in 1 2 3; do
    for o in "" "-DOSCAR_APPEND_HOIST=1"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wchunks 2048,8192 > /tmp/w.log 2>&1
        echo "[$o] $(grep -A3 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
grep -h "^copy" /tmp/w.log | head -1
true
