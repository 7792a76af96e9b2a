# tools/issue5/table_run.sh - the issue-5 table on the device machine, sourced by the device scripts with O (the output
# folder) and F (a scratch folder) set, T the table's time limit in seconds (default 330): device line, builds, then
# `NOTEST=1 DIAG=1 sh tools/gpu_issue5.sh full` (torch SDPA in the same run, the write-path diagnostics) into
# $O/table.txt, the CSVs into $O (the other shapes joined in other.csv), and the table and write lines printed.
mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
rm -rf "$F"; mkdir -p "$F"
t0=$(date +%s)
NOTEST=1 DIAG=1 OUT="$F" timeout ${T:-330} sh tools/gpu_issue5.sh full > "$O/table.txt" 2>&1
echo "table run: $(( $(date +%s) - t0 )) s" >> "$O/table.txt"
for f in b1_new b832_new sdpa b64; do cp "$F/$f.csv" "$O/" 2>/dev/null; done
for f in b1_dense b832_dense d64 g8 g16 g32 d256; do [ -f "$F/$f.csv" ] && { echo "# $f"; cat "$F/$f.csv"; }; done > "$O/other.csv"
grep -v "^diag" "$O/table.txt" | tail -${N:-40}
grep "^diag write" "$O/table.txt" | grep -v wht_warp | cut -c1-220
