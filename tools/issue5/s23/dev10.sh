#!/bin/sh
# tools/issue5/s23/dev10.sh - run 10 of the twenty-third session (H100), the review commit: oscar_merge_h is chosen by
# the V rotation alone (kv->wht, R_v not absorbed), no longer also by how the queries were rotated (qwht, the warp
# decode), so the tests' qwht = 2 layers and the issue-3 block decode (-DOSCAR_WARP=0) now take it too. The whole
# test_cuda --gpu, the quick test with the block decode, and bench --diag's per-launch line (no rotate_q time for
# H caches).
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
s=$(date +%s); timeout 400 ./build/test_cuda --gpu > "${OUT:-build}/test.log" 2>&1
echo "whole test: rc=$? $(( $(date +%s) - s )) s, $(grep -c '^ok' "${OUT:-build}/test.log") ok, $(grep -c FAIL "${OUT:-build}/test.log") FAIL"; grep -m 3 FAIL "${OUT:-build}/test.log"
OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WARP=0 timeout 120 ./build/test_cuda --gpu --quick > "${OUT:-build}/quick_warp0.log" 2>&1
echo "quick, block decode: rc=$? $(grep -c '^ok' "${OUT:-build}/quick_warp0.log") ok, $(grep -c FAIL "${OUT:-build}/quick_warp0.log") FAIL"
timeout 60 ./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 20 --mode int2 2>&1 | grep "^diag per"
true
