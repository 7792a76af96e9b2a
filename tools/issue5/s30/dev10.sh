#!/bin/sh
# tools/issue5/s30/dev10.sh - run 10, the review's refactor (one reader of the runs in the parameters, one
# block-table upload helper; oscar_append's SASS differs by 3 register moves in the clip's pop loop): the flush
# and nonfinite tests, then the write path against the previous commit's header (build/s30_base), interleaved.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
B=/tmp/base; rm -rf $B; mkdir -p $B; tar --exclude=./build -cf - . | tar -xf - -C $B; cp build/s30_base/oscar_cuda.h $B/
(cd $B && make -s build/bench_gpu >/dev/null) || echo "base build failed"
for o in flush nonfinite; do
    timeout 200 ./build/test_cuda --gpu --only $o > /tmp/t.log 2>&1; echo "$o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"; grep -m 5 FAIL /tmp/t.log
done
for r in 1 2; do
    for t in new base; do
        bin=./build/bench_gpu; [ $t = base ] && bin=$B/build/bench_gpu
        timeout 90 $bin --mode write --batch 1 --ctx 8192 --iters 5 > /tmp/w.log 2>&1
        grep "one append call\|appends (runs in" /tmp/w.log | grep -v wht_warp | sed 's/.*write path, //; s/(K and V.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/\1 ms \2%/; s/, [0-9]* GB.s.*//' | sed "s/^/[$t] /" | sed "s/ (the cost of fitted ones) (oscar_append: fixed point on integer tensor cores)//; s/: fast transform (oscar_append_fwht, the default)//; s/131072 tokens x 8 KV heads x d 128 //"
    done
done
