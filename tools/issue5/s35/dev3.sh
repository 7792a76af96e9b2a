#!/bin/sh
# tools/issue5/s35/dev3.sh - run 3: v63 (oscar_decode_w's epilogue: a head per warp, every lane taking the warps' weights
# itself, no barrier after them; WIG 1 kernels): the whole GPU test, then this tree's bench against build/s35_base (the
# v62 commit's bench_gpu, built on the development machine and carried) at batch 1-4 INT2 H, BF16 1 x 32K, d 64 G 3,
# three rounds interleaved
O=${OUT:-build/s35_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
[ -x build/s35_base ] || { echo "build/s35_base missing"; exit 1; }
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -1 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
for r in 1 2 3; do
    for v in v62 v63; do
        B=./build/bench_gpu; [ $v = v62 ] && B=./build/s35_base
        b() { tag=$1; shift; $B --iters 50 "$@" 2>&1 | grep -h "^int2\|^bf16\|rror" | sed "s/^/r$r $v $tag /"; }
        b d128 --mode int2 --batch 1 --ctx 8192,32768,131072
        b d128 --mode int2 --batch 2,4 --ctx 32768
        b d128 --mode bf16 --batch 1 --ctx 32768
        b d64g3 --mode int2 --batch 1 --ctx 8192,32768 --hq 9 --hkv 3 --dim 64 --group 64
    done
done > "$O/ab.txt"
# columns: events / back to back / graph us
awk '$4 == "int2" || $4 == "bf16" { k = $3 " " $4 " " $5 "x" $6; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $8, $10, $11); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-24s v62%s | v63%s\n", ks[i], t[ks[i], "v62"], t[ks[i], "v63"] }' "$O/ab.txt"
OSCAR_WPROF_OUT=/tmp/w.csv OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024" ./build/bench_gpu --batch 1 --ctx 8192 --iters 20 --mode int2 2>&1 | grep "^phases\|^chain"
