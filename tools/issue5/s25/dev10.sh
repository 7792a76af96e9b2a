#!/bin/sh
# tools/issue5/s25/dev10.sh - run 10 of the twenty-fifth session: the issue-5 table (NOTEST=1 DIAG=1 sh
# tools/gpu_issue5.sh full) on the tree with v51b and v52, whose whole test_cuda --gpu ran in run 9.
O=${OUT:-build/s25_10}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
F=build/issue5_full; rm -rf "$F"; mkdir -p "$F"
t0=$(date +%s)
NOTEST=1 DIAG=1 OUT="$F" timeout 400 sh tools/gpu_issue5.sh full > "$O/table.txt" 2>&1
echo "table run: $(( $(date +%s) - t0 )) s" >> "$O/table.txt"
for f in b1_new.csv b832_new.csv b64.csv b1_dense.csv b832_dense.csv sdpa.csv d64.csv; do [ -f "$F/$f" ] && cp "$F/$f" "$O/"; done
grep "^diag per\|^diag write path" "$O/table.txt" | cut -c1-200
for f in b1_new b832_new b1_dense b832_dense b64; do
    awk -F, 'NR > 1 { printf "%-10s %s %2s x %6s events %7.1f (%5.1f%%) b2b %7.1f graph %7.1f (%5.1f%%)\n", FILENAME, $1, $2, $3, $8, $14, $10, $15, 100 * $11 / ($15 * 1e-6) / 1e3 / $13 }' "$O/$f.csv" | sed "s|$O/||"
done
grep -v "^#" "$O/sdpa.csv"
grep "copy bandwidth\|table run" "$O/table.txt"
