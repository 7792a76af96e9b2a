#!/bin/sh
# tools/issue5/s33/dev12.sh - run 12, the review's host refactor (one helper picks an append launch's kernel: oscar_append_w,
# oscar_append_s or the default; one helper loads the append module's optional kernels): the flush-edge, nonfinite and
# wide-batch tests (every kernel choice, pages byte for byte), then the write path and the dense decode step.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in "flush edges" nonfinite "wide batch"; do
    timeout 200 ./build/test_cuda --gpu --only "$o" > /tmp/t.log 2>&1; echo "$o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c '^FAIL' /tmp/t.log) FAIL"; grep -m 5 '^FAIL' /tmp/t.log
done
./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > /tmp/w.log 2>&1
grep "^diag write path" /tmp/w.log | grep -v wht_warp | sed 's/(K and V, fp32 in), //; s/, [0-9.]* MB read+written.*= / = /' | cut -c1-220
./build/bench_gpu --batch 1 --ctx 8192 --iters 50 --step --mode int2 --rot dense 2>&1 | grep "^step"
true
