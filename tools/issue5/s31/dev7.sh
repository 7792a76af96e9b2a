#!/bin/sh
# tools/issue5/s31/dev7.sh - run 7: the final tree (oscar_append_w's waves counted from the driver's occupancy): the
# flush and nonfinite tests, then the write path with the automatic kernel choice.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in flush nonfinite; do
    timeout 200 ./build/test_cuda --gpu --only $o > /tmp/t.log 2>&1; echo "$o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"; grep -m 5 FAIL /tmp/t.log
done
timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wchunks 2048,32768 > /tmp/w.log 2>&1
grep "^diag write path, dense\|^diag write path, [0-9]*-token" /tmp/w.log | sed 's/(K and V, fp32 in), //; s/131072 tokens x 8 KV heads x d 128 //; s/; host side.*//; s/; the host in.*//'
grep -h "^copy" /tmp/w.log | head -1
true
