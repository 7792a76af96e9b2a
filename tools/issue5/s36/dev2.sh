#!/bin/sh
# tools/issue5/s36/dev2.sh - run 2 (H100): the issue-5 table on the final tree (v64 + the weights helper) (tools/gpu_issue5.sh
# full: torch SDPA in the same run, the write-path diagnostics), then the whole GPU test (sm_90a kernels). At most 8 files
# come back.
O=${OUT:-build/s36_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
F=/tmp/s36t2; rm -rf "$F"; mkdir -p "$F"
t0=$(date +%s)
NOTEST=1 DIAG=1 OUT="$F" timeout 330 sh tools/gpu_issue5.sh full > "$O/table.txt" 2>&1
echo "table run: $(( $(date +%s) - t0 )) s" >> "$O/table.txt"
for f in b1_new b832_new sdpa b64; do cp "$F/$f.csv" "$O/" 2>/dev/null; done
for f in b1_dense b832_dense d64 g8 g16 g32 d256; do [ -f "$F/$f.csv" ] && { echo "# $f"; cat "$F/$f.csv"; }; done > "$O/other.csv"
grep -v "^diag" "$O/table.txt" | tail -40
grep "^diag write" "$O/table.txt" | grep -v wht_warp | cut -c1-220
t0=$(date +%s)
timeout 150 sh tools/test_cuda_par.sh /tmp/tcp > /tmp/t90.txt 2>&1; echo "sm_90a kernels: test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s" >> /tmp/t90.txt
tail -2 /tmp/t90.txt | tee -a "$O/table.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5 | tee -a "$O/table.txt"
