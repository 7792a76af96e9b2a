#!/bin/sh
# tools/issue5/s34/dev8.sh - run 8, the session's final kernels (v61; its whole GPU test ran in run 7): the issue-5 table
# (tools/issue5/s25/dev10.sh: torch SDPA in the same run, the write-path diagnostics). At most 8 files come back from the
# device, so only the printed table and seven CSVs are kept.
O=${OUT:-build/s34_8}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT=/tmp/s34t sh tools/issue5/s25/dev10.sh > /tmp/s34t.out 2>&1
cp /tmp/s34t/table.txt "$O/table.txt"
for f in b1_new b832_new b1_dense b832_dense sdpa b64 d64; do cp /tmp/s34t/$f.csv "$O/" 2>/dev/null; done
grep -v "^diag" /tmp/s34t.out | tail -34
grep "^diag write" /tmp/s34t.out | grep -v wht_warp | cut -c1-220
