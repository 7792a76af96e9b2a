#!/bin/sh
# tools/issue5/s29/dev9.sh - run 9 of the twenty-ninth session: an append's new pages in the flush launch's
# parameters too (block (0, 0) writes them into the block tables): the whole test_cuda --gpu, then the write path
# (bench --mode write) of this tree and of the previous commit's oscar_cuda.h (build/s29_base), interleaved, twice.
O=${OUT:-build/s29_9}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
B=/tmp/base; rm -rf $B; mkdir -p $B; tar --exclude=./build -cf - . | tar -xf - -C $B; cp build/s29_base/oscar_cuda.h $B/
(cd $B && make -s build/bench_gpu >/dev/null) || echo "base build failed"
t0=$(date +%s)
timeout 400 ./build/test_cuda --gpu > "$O/test.log" 2>&1
echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL, $(( $(date +%s) - t0 )) s; $(grep -o 'worst err/tol [0-9.]*' "$O/test.log" | sort -k3 -n | tail -1)"
grep -m 8 "FAIL" "$O/test.log"
for r in 1 2; do
    for t in new base; do
        bin=./build/bench_gpu; [ $t = base ] && bin=$B/build/bench_gpu
        timeout 90 $bin --mode write --batch 1 --ctx 8192 --iters 5 > "$O/w_${t}_$r.log" 2>&1
        grep "appends\|one append call" "$O/w_${t}_$r.log" | grep -v wht_warp | sed "s/^/[$t] /" | sed 's/(K and V, fp32 in), //;s/131072 tokens x 8 KV heads x d 128 //;s/ (the cost of fitted ones) (oscar_append: fixed point on integer tensor cores)//;s/: fast transform (oscar_append_fwht, the default)//;s/1150.4 MB read+written, //;s/diag write path, //' | cut -c1-190
    done
done
true
