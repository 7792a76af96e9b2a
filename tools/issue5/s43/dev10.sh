#!/bin/sh
# tools/issue5/s43/dev10.sh - v66's cluster merge under compute-sanitizer racecheck over the hsplit group (G > 8 in
# groups of query heads: warps with two heads to merge where G > S x 4) and the batch8 group, memcheck over hsplit.
O=${OUT:-build/s43_10}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
make -s build/test_cuda >/dev/null || exit 1
for tg in "racecheck hsplit" "racecheck batch8" "memcheck hsplit"; do
    set -- $tg; t0=$(date +%s)
    timeout 100 $SAN --tool $1 --error-exitcode 9 ./build/test_cuda --gpu --only "$2" > "$O/$1_$2.log" 2>&1; rc=$?
    echo "$2, $1: rc $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/$1_$2.log" | tail -1) | $(grep -c '^ok' "$O/$1_$2.log") ok, $(grep -c FAIL "$O/$1_$2.log") FAIL, $(( $(date +%s) - t0 )) s"
done | tee "$O/san.txt"
cd "$O" && tar czf san.tgz *.log && rm -f *.log
