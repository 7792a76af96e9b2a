#!/bin/sh
# tools/issue5/s35/dev2.sh - run 2: v62 with its loads and tail tidied (a running pointer for the partial loads, the V
# mean loaded before the barrier, one thread per element after it; d 128 and d 64 only, d 256 keeps v61's code): the
# whole GPU test, then v62 against v61 (-DOSCAR_MHWARP=0) at batch 1-4, INT2 H rotations, d 128 and d 64 G 3, three
# rounds interleaved; phases of each at 1 x 8K
O=${OUT:-build/s35_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -1 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
opt() { case $1 in v61) echo "-DOSCAR_MHWARP=0";; *) echo "";; esac; }
th() { case $1 in v62_512) echo 512;; *) echo 0;; esac; }
for r in 1 2 3; do
    for v in v61 v62; do
        export OSCAR_CUDA_NVRTC_OPTIONS="$(opt $v)"
        b() { tag=$1; shift; ./build/bench_gpu --iters 50 --mode int2 "$@" 2>&1 | grep -h "^int2\|rror" | sed "s/^/r$r $v $tag /"; }
        b d128 --batch 1 --ctx 8192,32768,131072 --mthreads $(th $v)
        b d128 --batch 2,4 --ctx 32768 --mthreads $(th $v)
        b d64g3 --batch 1 --ctx 8192,32768 --hq 9 --hkv 3 --dim 64 --group 64 --mthreads $(th $v)
    done
done > "$O/ab.txt"
unset OSCAR_CUDA_NVRTC_OPTIONS
# columns: events / back to back / graph us
awk '$4 == "int2" { k = $3 " " $5 "x" $6; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $8, $10, $11); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-24s v61%s | v62%s\n", ks[i], t[ks[i], "v61"], t[ks[i], "v62"] }' "$O/ab.txt"
for v in v61 v62; do OSCAR_WPROF_OUT=/tmp/w.csv OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024 $(opt $v)" ./build/bench_gpu --batch 1 --ctx 8192 --iters 20 --mode int2 2>&1 | grep "^phases merge\|^chain" | sed "s/^/$v: /"; done
