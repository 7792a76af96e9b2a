#!/bin/sh
# tools/issue5/s25/dev16.sh - run 16 of the twenty-fifth session: the issue-5 table on an H200 (kind nvidia-h200)
# on the final tree (v51b, v52, the il flag): quick GPU test, then tools/issue5/s25/dev10.sh's table.
O=${OUT:-build/s25_16}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"
OUT="$O" sh tools/issue5/s25/dev10.sh
