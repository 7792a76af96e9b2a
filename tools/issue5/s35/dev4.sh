#!/bin/sh
# tools/issue5/s35/dev4.sh - run 4 (v63's tree, timing only): (a) the merges' trigger for the next kernel after their
# partial loads (-DOSCAR_MTRIG=2; run s33-8 found it slower at 1 x 32K / 128K with the 512-thread merge whose blocks
# left the next decode fewer slots; v61 / v62's merge is 256 threads) against the default, (b) the batch-1 split count
# (the merge is cheaper now): 33 / 41 / 48 splits at 1 x 8K, 32K, 128K; three rounds interleaved
O=${OUT:-build/s35_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2 3; do
    for v in def mtrig2 s33 s41 s48; do
        case $v in mtrig2) export OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MTRIG=2";; *) unset OSCAR_CUDA_NVRTC_OPTIONS;; esac
        sp=""; case $v in s*) sp="--splits ${v#s}";; esac
        b() { tag=$1; shift; ./build/bench_gpu --iters 50 "$@" 2>&1 | grep -h "^int2\|^bf16\|rror" | sed "s/^/r$r $v $tag /"; }
        b d128 --mode int2 --batch 1 --ctx 8192,32768,131072 $sp
        [ -z "$sp" ] && b d128 --mode int2 --batch 2 --ctx 32768
        [ -z "$sp" ] && b d128 --mode bf16 --batch 1 --ctx 32768
    done
done > "$O/ab.txt"
unset OSCAR_CUDA_NVRTC_OPTIONS
# columns: events / back to back / graph us
awk '$4 == "int2" || $4 == "bf16" { k = $4 " " $5 "x" $6; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $8, $10, $11); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) { printf "%-14s", ks[i]; n = split("def mtrig2 s33 s41 s48", v, " "); for (j = 1; j <= n; j++) if ((ks[i], v[j]) in t) printf " | %s%s", v[j], t[ks[i], v[j]]; printf "\n" } }' "$O/ab.txt"
