#!/bin/sh
# tools/issue5/s26/dev6.sh - run 6 of the twenty-sixth session: on the tree with v55 (the cluster merge, automatic
# from 64 (sequence, KV head) pairs): the whole test_cuda --gpu, then the issue-5 table (s25/dev10.sh: NOTEST=1
# DIAG=1 tools/gpu_issue5.sh full); the table's files in one archive.
O=${OUT:-build/s26_6}; mkdir -p "$O"
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 330 ./build/test_cuda --gpu > "$O/test.log" 2>&1
echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL, $(( $(date +%s) - t0 )) s; $(tail -1 "$O/test.log")"
grep -m 8 "FAIL" "$O/test.log"
grep -o "worst err/tol [0-9.]*" "$O/test.log" | sort -k3 -n | tail -1
OUT="$O/table" sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
grep -v "^diag" "$O/table.out" | tail -32
grep "^diag write" "$O/table.out" | cut -c1-160
cp build/issue5_full/table.txt "$O/table/" 2>/dev/null
tar czf "$O/table.tgz" -C "$O" table table.out && rm -rf "$O/table"
true
