#!/bin/sh
# tools/issue5/s36/dev1.sh - run 1 (asked for an H200): the issue-5 table on the card that comes (tools/gpu_issue5.sh full:
# torch SDPA in the same run, the write-path diagnostics), the whole GPU test (sm_90a kernels), then compute-sanitizer's
# racecheck, initcheck and synccheck over `test_cuda --gpu --quick` (v64 had only memcheck). At most 8 files come back.
O=${OUT:-build/s36_1}
F=/tmp/s36t T=330 N=40; . tools/issue5/table_run.sh
t0=$(date +%s)
timeout 150 sh tools/test_cuda_par.sh /tmp/tcp > /tmp/t90.txt 2>&1; echo "sm_90a kernels: test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" >> /tmp/t90.txt
tail -2 /tmp/t90.txt | tee -a "$O/table.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5 | tee -a "$O/table.txt"
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
for tool in racecheck initcheck synccheck; do
    extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
    t0=$(date +%s)
    timeout 100 $SAN --tool $tool $extra --error-exitcode 9 ./build/test_cuda --gpu --quick > /tmp/san_$tool.log 2>&1; rc=$?
    echo "$tool: rc $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san_$tool.log | tail -1) $(grep -E '^test_cuda:' /tmp/san_$tool.log | tail -1) $(( $(date +%s) - t0 )) s" | tee -a "$O/table.txt"
done
