#!/bin/sh
# tools/issue5/w26/ncu_src.sh - per-SASS-instruction counts (executed, stall samples) of the dense
# write path's flush launch (oscar_append in `bench_gpu --mode write`), plus the timing baseline.
# Device machine, repository root; output under $OUT (default build/w26).
OUT=${OUT:-build/w26}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
./build/bench_gpu --mode write --iters 3 > "$OUT/base.log" 2>&1; grep -h "diag write path\|^copy" "$OUT/base.log" | cut -c1-220
timeout 400 ncu --clock-control none --kernel-name oscar_append --launch-skip ${SKIP:-8} --launch-count ${COUNT:-2} \
    --section SourceCounters --section WarpStateStats --section LaunchStats --page source --print-source sass --csv \
    ./build/bench_gpu --mode write --iters 3 > "$OUT/src.csv" 2>"$OUT/src.err"
echo "ncu rc=$? lines $(wc -l < "$OUT/src.csv")"
timeout 200 ncu --clock-control none --kernel-name oscar_append --launch-skip ${SKIP:-8} --launch-count ${COUNT:-2} \
    --metrics gpu__time_duration.sum,launch__grid_size,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
    ./build/bench_gpu --mode write --iters 3 > "$OUT/launches.txt" 2>&1
grep -E "oscar_append|gpu__time|grid_size|inst_executed|issue_active" "$OUT/launches.txt" | head -20
gzip -f "$OUT/src.csv"; cp "$OUT"/* "${OUTDIR:-/dev/null}" 2>/dev/null; true
