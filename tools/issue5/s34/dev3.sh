#!/bin/sh
# tools/issue5/s34/dev3.sh - run 3: does the merge wait on its own instructions? -DOSCAR_MWARM=1 (timing) runs the merge's
# body once before its wait with no stores, then for real: A/B against the default at batch 1 and 8 x 32K (two rounds
# interleaved), its phases at 1 x 8K / 32K, the whole GPU test with it; and the launch microbenchmarks (an empty kernel
# from an idle GPU, back to back, in a graph; host cost per launch). Carry build/ubench_fixed, build/ubench_launch.
O=${OUT:-build/s34_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
./build/ubench_fixed > "$O/ubench_fixed.txt" 2>&1; cat "$O/ubench_fixed.txt"
./build/ubench_launch > "$O/ubench_launch.txt" 2>&1; cat "$O/ubench_launch.txt"
set_opts() { case $1 in old) echo "";; warm) echo "-DOSCAR_MWARM=1";; esac; }
for r in 1 2; do
    for v in old warm; do
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --mode int2 > /tmp/b.txt 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 1 --ctx 8192,32768 --iters 50 --mode int2 --rot dense >> /tmp/b.txt 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 1 --ctx 32768 --iters 50 --mode bf16 >> /tmp/b.txt 2>&1
        OSCAR_CUDA_NVRTC_OPTIONS="$(set_opts $v)" ./build/bench_gpu --batch 8 --ctx 32768 --iters 20 --mode int2 >> /tmp/b.txt 2>&1
        grep -h "^int2\|^bf16\|^copy\|rror" /tmp/b.txt | sed "s/^/r$r $v /"
    done
done > "$O/ab.txt"
echo "== us per call: events (time_us) / back to back / graph, per set and round"
awk '$3 == "int2" || $3 == "bf16" { k = $3 " " $4 "x" $5 " " ++n[$1 $2 $3 $4 $5]; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-16s old%s | warm%s\n", ks[i], t[ks[i], "old"], t[ks[i], "warm"] }' "$O/ab.txt"
for c in 8192 32768; do OSCAR_WPROF_OUT=/tmp/w.csv OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024 -DOSCAR_MWARM=1" ./build/bench_gpu --batch 1 --ctx $c --iters 20 --mode int2 2>&1 | grep "^phases merge\|^chain"; done
t0=$(date +%s)
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MWARM=1" sh tools/test_cuda_par.sh /tmp/tcpw > "$O/test.txt" 2>&1; echo "test_cuda_par (MWARM 1) rc=$? in $(( $(date +%s) - t0 )) s"
tail -1 "$O/test.txt"; grep -h FAIL /tmp/tcpw/*.log | head -5
