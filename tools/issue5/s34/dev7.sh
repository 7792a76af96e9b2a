#!/bin/sh
# tools/issue5/s34/dev7.sh - run 7: v61 as the library's rule (oscar_merge_h in 256-thread blocks at d 128 where the splits
# fit one round of 24 loads per thread; the tests run it automatic / 512 / 128 by layer): the whole GPU test, then the
# rule against 512 (--mthreads 512) at batch 1-4, two rounds interleaved
O=${OUT:-build/s34_7}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -1 "$O/test.txt"; grep -h FAIL /tmp/tcp/*.log | head -5
for r in 1 2; do
    for v in 0 512; do
        ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --mode int2 --mthreads $v > /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 2,4 --ctx 32768 --iters 50 --mode int2 --mthreads $v >> /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 1 --ctx 32768 --iters 50 --mode bf16 --mthreads $v >> /tmp/b.txt 2>&1
        grep -h "^int2\|^bf16\|rror" /tmp/b.txt | sed "s/^/r$r t$v /"
    done
done > "$O/ab.txt"
awk '$3 == "int2" || $3 == "bf16" { k = $3 " " $4 "x" $5; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-14s auto%s | 512%s\n", ks[i], t[ks[i], "t0"], t[ks[i], "t512"] }' "$O/ab.txt"
