#!/bin/sh
# tools/issue5/s34/dev4.sh - run 4: v60, first-touch pages prefetched before the grid wait (OSCAR_TLBW: bit 0 the merges,
# bit 1 oscar_decode_w; default 3): the whole GPU test with the default, then A/B of TLBW 0 / 1 / 3 at batch 1 and
# 8 x 32K (two rounds interleaved), the merge's phases with it at 1 x 8K / 32K
O=${OUT:-build/s34_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -1 "$O/test.txt"; grep -h FAIL /tmp/tcp/*.log | head -5
for r in 1 2; do
    for v in 0 1 3; do
        export OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_TLBW=$v"
        ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --mode int2 > /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 1 --ctx 8192,32768 --iters 50 --mode int2 --rot dense >> /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 1 --ctx 32768 --iters 50 --mode bf16 >> /tmp/b.txt 2>&1
        ./build/bench_gpu --batch 8 --ctx 32768 --iters 20 --mode int2 >> /tmp/b.txt 2>&1
        grep -h "^int2\|^bf16\|^copy\|rror" /tmp/b.txt | sed "s/^/r$r t$v /"
    done
done > "$O/ab.txt"
unset OSCAR_CUDA_NVRTC_OPTIONS
echo "== us per call: events (time_us) / back to back / graph, per set (TLBW) and round"
awk '$3 == "int2" || $3 == "bf16" { k = $3 " " $4 "x" $5 " " ++n[$1 $2 $3 $4 $5]; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-16s t0%s | t1%s | t3%s\n", ks[i], t[ks[i], "t0"], t[ks[i], "t1"], t[ks[i], "t3"] }' "$O/ab.txt"
for c in 8192 32768; do OSCAR_WPROF_OUT=/tmp/w.csv OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024" ./build/bench_gpu --batch 1 --ctx $c --iters 20 --mode int2 2>&1 | grep "^phases\|^chain"; done
