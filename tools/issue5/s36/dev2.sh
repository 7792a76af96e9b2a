#!/bin/sh
# tools/issue5/s36/dev2.sh - run 2 (H100): the issue-5 table on the final tree (v64 + the weights helper) (tools/gpu_issue5.sh
# full: torch SDPA in the same run, the write-path diagnostics), then the whole GPU test (sm_90a kernels). At most 8 files
# come back.
O=${OUT:-build/s36_2}
F=/tmp/s36t2 T=330 N=40; . tools/issue5/table_run.sh
t0=$(date +%s)
timeout 150 sh tools/test_cuda_par.sh /tmp/tcp > /tmp/t90.txt 2>&1; echo "sm_90a kernels: test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" >> /tmp/t90.txt
tail -2 /tmp/t90.txt | tee -a "$O/table.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5 | tee -a "$O/table.txt"
