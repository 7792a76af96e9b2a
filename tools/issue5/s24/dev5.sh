#!/bin/sh
# tools/issue5/s24/dev5.sh - run 5 of the twenty-fourth session: compute-sanitizer over test_cuda --gpu --quick
# after v51 (BF16 caches' warps take their block's units in turn): memcheck, racecheck, synccheck, initcheck,
# each under a time limit, one line per tool.
O=${OUT:-build/s24_5}; mkdir -p "$O"
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
make -s build/test_cuda >/dev/null || exit 1
for tool in memcheck racecheck synccheck initcheck; do
    t0=$(date +%s)
    timeout ${LIM:-150} $SAN --tool $tool --error-exitcode 9 ./build/test_cuda --gpu --quick > "$O/$tool.log" 2>&1
    echo "$tool: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/$tool.log" | tail -1) $(grep -c '^ok' "$O/$tool.log") ok, $(grep -c FAIL "$O/$tool.log") FAIL, $(( $(date +%s) - t0 )) s"
done
true
