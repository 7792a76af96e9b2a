#!/bin/sh
# tools/issue5/s36/dev5.sh - run 5 (H100; needs `git apply tools/issue5/s36/v65_tail.patch`, not kept): v65, a shared tail of units for long batch-1-4 decodes (oscar_decode_wd,
# oscar_cuda_kv.dyn). The whole GPU test with the sm_90a and the sm_80 kernels side by side, then this tree's bench with
# the automatic choice (--dyn 0) and with the tail off (--dyn 2) against build/s36_base (commit c532304's bench_gpu,
# carried), three rounds interleaved. Columns: events / back to back / graph us.
O=${OUT:-build/s36_5}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
[ -x build/s36_base ] || { echo "build/s36_base missing"; exit 1; }
t0=$(date +%s)
(sh tools/test_cuda_par.sh /tmp/tcp > /tmp/t90.txt 2>&1; echo "sm_90a: rc=$?" >> /tmp/t90.txt) &
(sh tools/test_cuda_par.sh /tmp/tcp80 --arch 80 > /tmp/t80.txt 2>&1; echo "sm_80: rc=$?" >> /tmp/t80.txt) &
wait
echo "tests: $(( $(date +%s) - t0 )) s"
for t in /tmp/t90.txt /tmp/t80.txt; do tail -2 $t; done | tee "$O/test.txt"
grep -h "^FAIL" /tmp/tcp/*.log /tmp/tcp80/*.log | head -8 | tee -a "$O/test.txt"
for r in 1 2 3; do
    for v in base auto off; do
        B=./build/bench_gpu; X=""
        case $v in base) B=./build/s36_base ;; auto) X="--dyn 0" ;; off) X="--dyn 2" ;; esac
        b() { $B --iters 50 --mode int2 $X "$@" 2>&1 | grep -h "^int2\|rror" | sed "s/^/r$r $v /"; }
        b --batch 1 --ctx 32768,65536,131072
        b --batch 2,4 --ctx 131072
    done
done > "$O/ab.txt"
awk '$3 == "int2" { k = $4 "x" $5; t[k, $2] = t[k, $2] sprintf(" %5.1f/%5.1f/%5.1f", $7, $9, $10); if (!(k in seen)) { seen[k] = 1; ks[++nk] = k } }
     END { for (i = 1; i <= nk; i++) printf "%-9s base%s | auto%s | off%s\n", ks[i], t[ks[i], "base"], t[ks[i], "auto"], t[ks[i], "off"] }' "$O/ab.txt"
grep -i "rror" "$O/ab.txt" | head -3
