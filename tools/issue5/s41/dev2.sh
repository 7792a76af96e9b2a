#!/bin/sh
# tools/issue5/s41/dev2.sh - this session's tree (w47's sleep loop bounded): the whole GPU test (sm_90a kernels), then
# compute-sanitizer's four tools over the flush edges (the 16-job write blocks of w46 and the staggered first wave of
# w47 run there: neither has been under the sanitizer before), memcheck with the leak check.
O=${OUT:-build/s41_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 170 sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$O/test.txt"
tail -3 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck initcheck; do
    extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"; [ $tool = memcheck ] && extra="--leak-check full"
    t0=$(date +%s)
    timeout 100 $SAN --tool $tool $extra --error-exitcode 9 ./build/test_cuda --gpu --only "flush edges" > "$O/san_$tool.log" 2>&1; rc=$?
    echo "$tool: rc $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$O/san_$tool.log" | tail -1) | $(grep -c '^ok' "$O/san_$tool.log") ok, $(grep -c FAIL "$O/san_$tool.log") FAIL, $(( $(date +%s) - t0 )) s" | tee -a "$O/san.txt"
done
cd "$O" && tar czf logs.tgz *.log *.txt && rm -f san_*.log
