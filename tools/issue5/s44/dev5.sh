#!/bin/sh
# tools/issue5/s44/dev5.sh - the final tree (kernels as committed, oscar_cuda_kv.cluster_max, bench --diag's output
# hash): the shipped sanitizer script (tools/gpu_sanitize.sh: memcheck, racecheck, initcheck, synccheck --cluster-max 8
# over test_cuda --gpu --quick), then the issue-5 quick rows on this H200 (tools/gpu_issue5.sh quick, NOTEST=1, DIAG=1).
O=${OUT:-build/s44_5}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
t0=$(date +%s)
OUT=/tmp/san timeout 330 sh tools/gpu_sanitize.sh | tee "$O/san.txt"; echo "gpu_sanitize rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/san.txt"
t0=$(date +%s)
NOTEST=1 DIAG=1 OUT=/tmp/gi5 timeout 220 sh tools/gpu_issue5.sh quick > "$O/gi5.txt" 2>&1; echo "gpu_issue5 quick rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/gi5.txt"
cp /tmp/gi5/b1_new.csv /tmp/gi5/b832_new.csv /tmp/gi5/device.txt "$O/" 2>/dev/null
grep 'diag out' /tmp/gi5/*.log | sed 's/.*diag out/diag out/' > "$O/hash.txt"
tail -n +2 -q "$O/b1_new.csv" "$O/b832_new.csv" | awk -F, '{printf "%s %dx%d: events %s (%s%%) b2b %s graph %s host %s\n", $1, $2, $3, $8, $14, $10, $15, $16}'
