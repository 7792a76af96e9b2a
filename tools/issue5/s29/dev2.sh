#!/bin/sh
# tools/issue5/s29/dev2.sh - run 2 of the twenty-ninth session, on the tree with w30 in oscar_append's flush tiles
# by default (OSCAR_FCNT_MMA 2) and the split-weight helper shared by the batch-1 merge and the cluster merge:
# the whole test_cuda --gpu; the write path, default against OSCAR_FCNT_MMA=0 (the previous default), two sets;
# decode, this tree against the previous commit's oscar_cuda.h (carried as build/s29_base), interleaved.
O=${OUT:-build/s29_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
B=/tmp/base; rm -rf $B; mkdir -p $B; tar --exclude=./build -cf - . | tar -xf - -C $B; cp build/s29_base/oscar_cuda.h $B/
(cd $B && make -s build/bench_gpu >/dev/null) || echo "base build failed"
t0=$(date +%s)
timeout 420 ./build/test_cuda --gpu > "$O/test.log" 2>&1
echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL, $(( $(date +%s) - t0 )) s; $(grep -o 'worst err/tol [0-9.]*' "$O/test.log" | sort -k3 -n | tail -1)"
grep -m 8 "FAIL" "$O/test.log"
for r in 1 2; do
    for o in "" "-DOSCAR_FCNT_MMA=0"; do
        n=def; [ -n "$o" ] && n=old
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 60 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > "$O/w_${r}_$n.log" 2>&1
        grep "^diag write path.*one append call\|pages of the two" "$O/w_${r}_$n.log" | grep -v "wht_warp" | sed "s/^/[$n] /" | sed 's/(K and V, fp32 in), //;s/131072 tokens x 8 KV heads x d 128 //' | cut -c1-170
    done
done
for r in 1 2; do
    for t in new base; do
        bin=./build/bench_gpu; [ $t = base ] && bin=$B/build/bench_gpu
        for bc in "1 32768" "8 32768" "8 131072" "12 32768"; do
            set -- $bc
            timeout 60 $bin --batch $1 --ctx $2 --iters 200 --mode int2 --csv "$O/d_$t.csv" > "$O/d_${t}_$r.log" 2>&1
            awk -F, -v t=$t 'END { printf "[%s] %2s x %6s graph %7.1f events %7.1f\n", t, $2, $3, $15, $8 }' "$O/d_$t.csv"
        done
    done
done
grep -h "^copy" "$O"/d_new_1.log | head -1
true
