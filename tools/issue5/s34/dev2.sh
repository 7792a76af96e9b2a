#!/bin/sh
# tools/issue5/s34/dev2.sh - run 2: v59 (the INT2 query's transform and normalisers in one pass, BF16 fragments only in
# blocks that walk BF16 units, the merge's max by redux.sync): the whole GPU test with it, then us per call at batch 1
# (and 8 x 32K) for three option sets in two interleaved rounds: old (-DOSCAR_WQPRE=0 -DOSCAR_MREDUX=0), prologue only
# (-DOSCAR_MREDUX=0), both (the default); then the phases of the new build at 1 x 8K
O=${OUT:-build/s34_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -2 "$O/test.txt"; grep -h FAIL /tmp/tcp/*.log | head -5
set_opts() { case $1 in old) echo "-DOSCAR_WQPRE=0 -DOSCAR_MREDUX=0";; pro) echo "-DOSCAR_MREDUX=0";; new) echo "";; esac; }
for r in 1 2; do
    for v in old pro new; do
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --mode int2 > /tmp/b.txt 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 1 --ctx 8192,32768 --iters 50 --mode int2 --rot dense >> /tmp/b.txt 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 8 --ctx 32768 --iters 20 --mode int2 >> /tmp/b.txt 2>&1
        grep -h "^int2\|^copy\|rror" /tmp/b.txt | sed "s/^/r$r $v /"
    done
done | tee "$O/ab.txt"
echo "== us per call: events (time_us) / back to back / graph, per set and round"
awk '$3 == "int2" { k = $4 "x" $5 " " ++n[$1 $2 $4 $5]; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-12s old%s | pro%s | new%s\n", ks[i], t[ks[i], "old"], t[ks[i], "pro"], t[ks[i], "new"] }' "$O/ab.txt"
for c in 8192 32768; do OSCAR_WPROF_OUT=/tmp/w.csv OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024" ./build/bench_gpu --batch 1 --ctx $c --iters 20 --mode int2 2>&1 | grep "^phases\|^chain"; done
