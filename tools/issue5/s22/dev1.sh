#!/bin/sh
# tools/issue5/s22/dev1.sh - twenty-second session, device run 1 (repository root): the whole test_cuda --gpu
# on the committed tree (1d98cd2: the decode's q . H and the write path share oscar_wht_row, not yet run on a
# GPU), then v46 (tools/issue5/s21/next_v46.sh: quick test and the A/B, its whole test left for run 2).
O=${OUT:-build/s22}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
s=$(date +%s); timeout 330 ./build/test_cuda --gpu > "$O/head_test.log" 2>&1; echo "HEAD full: rc=$? $(( $(date +%s) - s )) s $(grep -c '^ok' "$O/head_test.log") ok, $(grep -c FAIL "$O/head_test.log") FAIL"; grep -m 3 FAIL "$O/head_test.log"
grep "^ok" "$O/head_test.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 } } } END { print "worst err/tol: " m " (" c ")" }'
V46_FULL=0 sh tools/issue5/s21/next_v46.sh
