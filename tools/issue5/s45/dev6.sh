#!/bin/sh
# tools/issue5/s45/dev6.sh - v69 (OSCAR_WDC 1, the default now) through the whole GPU test (the real-data group
# included: build/real_dump.safetensors carried) with the device's sm_90a kernels and with the sm_80 kernels (--arch
# 80), and the outputs' FNV-1a at the quick shapes (bench --diag), the new reference.
O=${OUT:-build/s45_6}; . tools/issue5/s38/wlib.sh
whole_test
t0=$(date +%s)
timeout 250 sh tools/test_cuda_par.sh /tmp/tcp80 --arch 80 > "$O/test80.txt" 2>&1; echo "test_cuda_par --arch 80 rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/test80.txt"
tail -3 "$O/test80.txt"; grep -h "^FAIL" /tmp/tcp80/*.log | head -5
for a in "--hq 32" "--hq 64"; do
    timeout 100 ./build/bench_gpu --mode int2 $a --batch 1,8 --ctx 32768 --iters 20 --diag 2>&1 | grep 'diag out' | sed "s/^/[$a]: /"
done | tee "$O/hash.txt"
