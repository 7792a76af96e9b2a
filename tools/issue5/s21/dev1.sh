#!/bin/sh
# tools/issue5/s21/dev1.sh - twenty-first session, device run 1: the committed kernels (af287aa) through
# the whole issue-5 run (build, full test_cuda --gpu, every table row, torch SDPA), then the write path
# with centering and the gain encoder apart (tools/issue5/s20/next_quality.sh). Repository root.
O=${OUT:-build/s21}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
OUT="$O/full" timeout 470 sh tools/gpu_issue5.sh full
echo "full run: $(( $(date +%s) - t0 )) s"
OUT="$O/wq" timeout 100 sh tools/issue5/s20/next_quality.sh
echo "total: $(( $(date +%s) - t0 )) s"
