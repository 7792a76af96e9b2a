#!/bin/sh
# tools/issue5/s33/dev8.sh - run 8: the merges letting the next kernel launch early (-DOSCAR_MTRIG=1 at their start,
# 2 after their partial loads; 0, the default, at their end): the quick GPU test with each, then attend (INT2 and
# BF16; events, back to back, graph) at batch 1 and 8 x 32K and the decode step at 1 x 8K, two rounds interleaved.
O=${OUT:-build/s33_8}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in 1 2; do (OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MTRIG=$o" timeout 300 ./build/test_cuda --gpu --quick > /tmp/q$o.log 2>&1; echo $? > /tmp/q$o.rc) & done; wait
for o in 1 2; do echo "quick test MTRIG=$o: rc $(cat /tmp/q$o.rc) $(grep -c '^ok' /tmp/q$o.log) ok $(grep -c '^FAIL' /tmp/q$o.log) FAIL"; grep -m3 '^FAIL' /tmp/q$o.log; done | tee "$O/test.txt"
for r in 1 2; do
    for o in 0 1 2; do
        export OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MTRIG=$o"
        ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 > /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 8 --ctx 32768 --iters 20 >> /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 1 --ctx 8192 --iters 50 --step --mode int2 >> /tmp/b.txt 2>&1
        echo "== round $r MTRIG=$o"; grep -h "^int2\|^bf16\|^step" /tmp/b.txt
    done
done | tee "$O/bench.txt"
unset OSCAR_CUDA_NVRTC_OPTIONS
true
