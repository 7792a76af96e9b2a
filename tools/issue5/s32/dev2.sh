#!/bin/sh
# tools/issue5/s32/dev2.sh - run 2, this session's tree (oscar_append_w with the hoisted loop addresses by default):
# the whole GPU test split over parallel processes (tools/test_cuda_par.sh), then the issue-5 table (as s31/dev6.sh:
# torch SDPA in the same run, the write-path diagnostics).
O=${OUT:-build/s32_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
cat "$O/test.txt"
tar czf "$O/test_logs.tgz" -C /tmp tcp
OUT="$O/table" sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
cp build/issue5_full/table.txt "$O/table/" 2>/dev/null
tar czf "$O/table.tgz" -C "$O" table && rm -rf "$O/table"
grep -v "^diag" "$O/table.out" | tail -40 > "$O/summary.txt"
grep "^diag write path" "$O/table.out" | cut -c1-220 >> "$O/summary.txt"
cat "$O/summary.txt"
true
