#!/bin/sh
# tools/issue5/s29/dev8.sh - run 8 of the twenty-ninth session: the append's runs in the launch parameters
# (oscar_cuda_kv.append_inline; the GPU test uploads them on odd layers and in the flush tests' second pass):
# the whole test_cuda --gpu, then the write path twice (bench --mode write: one 131,072-token append, then 2048-token
# appends with the runs in the parameters and uploaded, with the host's time in the calls).
O=${OUT:-build/s29_8}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 400 ./build/test_cuda --gpu > "$O/test.log" 2>&1
echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL, $(( $(date +%s) - t0 )) s; $(grep -o 'worst err/tol [0-9.]*' "$O/test.log" | sort -k3 -n | tail -1)"
grep -m 8 "FAIL" "$O/test.log"
for r in 1 2; do
    timeout 90 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > "$O/w_$r.log" 2>&1
    grep "appends\|one append call" "$O/w_$r.log" | grep -v wht_warp | sed 's/(K and V, fp32 in), //;s/131072 tokens x 8 KV heads x d 128 //;s/ (the cost of fitted ones) (oscar_append: fixed point on integer tensor cores)//;s/: fast transform (oscar_append_fwht, the default)//' | cut -c1-200
done
true
