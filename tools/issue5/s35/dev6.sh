#!/bin/sh
# tools/issue5/s35/dev6.sh - run 8: v64 (oscar_merge, the merge of caches without an un-rotation, takes v62's one-head path:
# BF16 caches, INT2 without rotations or with R_v absorbed): the whole GPU test, then this tree's bench against
# build/s35_base2 (the v63 commit's bench_gpu, carried) at batch 1-2, three rounds interleaved
O=${OUT:-build/s35_8}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
[ -x build/s35_base2 ] || { echo "build/s35_base2 missing"; exit 1; }
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -1 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
for r in 1 2 3; do
    for v in v63 v64; do
        B=./build/bench_gpu; [ $v = v63 ] && B=./build/s35_base2
        b() { tag=$1; shift; $B --iters 50 "$@" 2>&1 | grep -h "^int2\|^bf16\|rror" | sed "s/^/r$r $v $tag /"; }
        b h --mode bf16 --batch 1 --ctx 8192,32768,131072
        b h --mode bf16 --batch 2 --ctx 32768
        b none --mode int2 --batch 1 --ctx 8192,32768 --rot none
        b absorb --mode int2 --batch 1 --ctx 32768 --rot absorb
        b h --mode int2 --batch 1 --ctx 8192
    done
done > "$O/ab.txt"
# columns: events / back to back / graph us
awk '$4 == "int2" || $4 == "bf16" { k = $3 " " $4 " " $5 "x" $6; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $8, $10, $11); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-22s v63%s | v64%s\n", ks[i], t[ks[i], "v63"], t[ks[i], "v64"] }' "$O/ab.txt"
