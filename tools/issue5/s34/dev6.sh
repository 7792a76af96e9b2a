#!/bin/sh
# tools/issue5/s34/dev6.sh - run 6: v61, oscar_merge_h in fewer threads (the batch-1 merge of H caches: 32 blocks of 16 warps
# issue ~423 instructions per warp, 4 warps per scheduler, run s34-5): merge_threads 512 (the default) / 256 with 24 loads
# per thread in flight / 128 with 48, at batch 1, INT2 H rotations, two rounds interleaved; phases of each at 1 x 8K
O=${OUT:-build/s34_6}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
opt() { case $1 in 512) echo "";; 256) echo "-DOSCAR_MHMW=24";; 128) echo "-DOSCAR_MHMW=48";; esac; }
for r in 1 2; do
    for v in 512 256 128; do
        OSCAR_CUDA_NVRTC_OPTIONS="$(opt $v)" ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --mode int2 --mthreads $v > /tmp/b.txt 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$(opt $v)" ./build/bench_gpu --batch 1 --ctx 8192 --iters 50 --mode bf16 --mthreads $v >> /tmp/b.txt 2>&1
        grep -h "^int2\|^bf16\|rror" /tmp/b.txt | sed "s/^/r$r t$v /"
    done
done > "$O/ab.txt"
awk '$3 == "int2" || $3 == "bf16" { k = $3 " " $4 "x" $5; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-14s 512%s | 256%s | 128%s\n", ks[i], t[ks[i], "t512"], t[ks[i], "t256"], t[ks[i], "t128"] }' "$O/ab.txt"
for v in 512 128; do OSCAR_WPROF_OUT=/tmp/w.csv OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024 $(opt $v)" ./build/bench_gpu --batch 1 --ctx 8192 --iters 20 --mode int2 --mthreads $v 2>&1 | grep "^phases merge\|^chain" | sed "s/^/$v: /"; done
