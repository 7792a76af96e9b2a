#!/bin/sh
# tools/issue5/s35/dev5.sh - run 5, the session's final kernels (v62, v63): the issue-5 table (tools/gpu_issue5.sh full:
# torch SDPA in the same run, the write-path diagnostics), then the whole GPU test with the sm_90a kernels and with the
# sm_80 kernels (--arch 80) side by side. At most 8 files come back: table.txt (the printed table, the tests' summaries),
# six CSVs and other.csv (d 64, G 8, G 16, G 32, d 256 rows one after another).
O=${OUT:-build/s35_5}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
F=/tmp/s35t; rm -rf "$F"; mkdir -p "$F"
t0=$(date +%s)
NOTEST=1 DIAG=1 OUT="$F" timeout 400 sh tools/gpu_issue5.sh full > "$O/table.txt" 2>&1
echo "table run: $(( $(date +%s) - t0 )) s" >> "$O/table.txt"
for f in b1_new b832_new b1_dense b832_dense sdpa b64; do cp "$F/$f.csv" "$O/" 2>/dev/null; done
for f in d64 g8 g16 g32 d256; do [ -f "$F/$f.csv" ] && cat "$F/$f.csv"; done > "$O/other.csv"
grep -v "^diag" "$O/table.txt" | tail -40
grep "^diag write" "$O/table.txt" | grep -v wht_warp | cut -c1-220
t0=$(date +%s)
(sh tools/test_cuda_par.sh /tmp/tcp > /tmp/t90.txt 2>&1; echo "sm_90a kernels: test_cuda_par rc=$?" >> /tmp/t90.txt) &
(sh tools/test_cuda_par.sh /tmp/tcp80 --arch 80 > /tmp/t80.txt 2>&1; echo "sm_80 kernels: test_cuda_par --arch 80 rc=$?" >> /tmp/t80.txt) &
wait
echo "tests: $(( $(date +%s) - t0 )) s" | tee -a "$O/table.txt"
for t in /tmp/t90.txt /tmp/t80.txt; do tail -2 $t | tee -a "$O/table.txt"; done
grep -h "^FAIL" /tmp/tcp/*.log /tmp/tcp80/*.log | head -5 | tee -a "$O/table.txt"
