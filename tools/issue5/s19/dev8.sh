#!/bin/sh
# tools/issue5/s19/dev8.sh - nineteenth session, device run 8 (repository root): the gain encoder on the
# GPU (cfg.k_gain / v_gain): the gain and center cases, the quick set, then the whole test_cuda --gpu.
O=${OUT:-build/s19h}; mkdir -p "$O"
make -s build/test_cuda >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
for only in gain center; do
    timeout 120 ./build/test_cuda --gpu --only $only > "$O/$only.log" 2>&1; echo "$only: rc=$? $(grep -c '^ok' "$O/$only.log") ok, $(grep -c FAIL "$O/$only.log") FAIL"; grep -m 8 FAIL "$O/$only.log"
    grep "^ok" "$O/$only.log" | cut -c1-120
done
timeout 60 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 4 FAIL "$O/quick.log"
timeout 330 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 6 FAIL "$O/full.log"
grep "^ok" "$O/full.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
true
