#!/bin/sh
# tools/issue5/s31/dev3.sh - run 3: the whole GPU test on the tree with oscar_append_w, then oscar_append_w's own
# bounds: chunk width (OSCAR_APPEND_WCNT) and blocks per SM (OSCAR_APPEND_WMINB), every flush launch through it.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 450 ./build/test_cuda --gpu > /tmp/t.log 2>&1; echo "test_cuda --gpu: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"
grep -m 5 FAIL /tmp/t.log; grep "worst\|append_w" /tmp/t.log | head -4
cp /tmp/t.log "${OUT:-/tmp}/test_cuda.log" 2>/dev/null
for r in 1 2; do
    for o in "" "-DOSCAR_APPEND_WCNT=2" "-DOSCAR_APPEND_WMINB=7" "-DOSCAR_APPEND_WCNT=2 -DOSCAR_APPEND_WMINB=6"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wide 1 > /tmp/w.log 2>&1
        echo "[$o --wide 1] $(grep -A2 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
true
