#!/bin/sh
# tools/issue5/s19/dev2.sh - nineteenth session, device run 2 (repository root; old/oscar_cuda.h = the
# committed header): test_cuda --gpu --only G8 (the subset whose data once failed one G 8 output at
# err/tol 1.034; failures now print the output from the stored rows in double), the write path with
# pass 1's row loops folded into oscar__row_fold against old/ (tools/gpu_wab.sh), then the whole
# test_cuda --gpu (the INT2 epilogue's stores folded into put_o; the CPU reference checked against
# the rows in double).
O=${OUT:-build/s19b}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 90 ./build/test_cuda --gpu --only G8 > "$O/g8.log" 2>&1; echo "only G8: rc=$? $(grep -c '^ok' "$O/g8.log") ok, $(grep -c FAIL "$O/g8.log") FAIL"; grep -m 6 FAIL "$O/g8.log"
OUT=$O/wab TEST=0 timeout 150 sh tools/gpu_wab.sh
timeout 330 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 6 FAIL "$O/full.log"
grep "^ok" "$O/full.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
true
