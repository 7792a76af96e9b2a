#!/bin/sh
# tools/issue5/s19/dev6.sh - nineteenth session, device run 6 (repository root): the GPU cache with rows
# stored less their means (cfg.center 1): the new center cases, the quick set (two center cases), then
# the whole test_cuda --gpu.
O=${OUT:-build/s19f}; mkdir -p "$O"
make -s build/test_cuda >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for only in center quick; do
    a="--only $only"; [ $only = quick ] && a=--quick
    timeout 150 ./build/test_cuda --gpu $a > "$O/$only.log" 2>&1; echo "$only: rc=$? $(grep -c '^ok' "$O/$only.log") ok, $(grep -c FAIL "$O/$only.log") FAIL"; grep -m 8 FAIL "$O/$only.log"
    grep "^ok.*center" "$O/$only.log" | cut -c1-130
done
timeout 330 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 6 FAIL "$O/full.log"
grep "^ok" "$O/full.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
true
