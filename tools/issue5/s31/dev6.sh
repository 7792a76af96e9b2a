#!/bin/sh
# tools/issue5/s31/dev6.sh - run 6: the issue-5 table (s25/dev10.sh = NOTEST=1 DIAG=1 sh tools/gpu_issue5.sh full, torch
# SDPA by tools/sdpa_bench.py in the same run) on this session's tree (oscar_append_w for long dense flushes; the decode
# kernels as in run s29-1), whose whole test_cuda --gpu ran in run s31-3.
O=${OUT:-build/s31_6}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/table" sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
cp build/issue5_full/table.txt "$O/table/" 2>/dev/null
tar czf "$O/table.tgz" -C "$O" table && rm -rf "$O/table"
grep -v "^diag" "$O/table.out" | tail -40 > "$O/summary.txt"
grep "^diag write path" "$O/table.out" | cut -c1-220 >> "$O/summary.txt"
cat "$O/summary.txt"
true
