#!/bin/sh
# tools/issue5/s32/dev1.sh - run 1: the whole GPU test (the flush edges now send misaligned input rows through
# oscar_append_w too, a third pass for dense d 128), then OSCAR_APPEND_HOIST against the default (optab.sh: its flush
# and nonfinite tests, then the write path three rounds interleaved).
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 300 ./build/test_cuda --gpu > /tmp/t.log 2>&1; echo "test_cuda --gpu: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"
grep -m 5 FAIL /tmp/t.log; grep "worst\|append_w" /tmp/t.log | head -8
cp /tmp/t.log "${OUT:-/tmp}/test_cuda.log" 2>/dev/null
sh tools/issue5/s31/optab.sh -DOSCAR_APPEND_HOIST=1
