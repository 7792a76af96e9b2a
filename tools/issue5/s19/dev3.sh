#!/bin/sh
# tools/issue5/s19/dev3.sh - nineteenth session, device run 3 (repository root): test_cuda --gpu --only
# G8 with the head-RMS tolerance (attn_tol), then compute-sanitizer over the write path's kernels as
# the w26 session left them (+ the pass-1 fold): memcheck and racecheck over `--only flush`,
# initcheck and synccheck over `--only nonfinite` (NaN / out-of-range rows through each kernel).
O=${OUT:-build/s19c}; mkdir -p "$O"
make -s build/test_cuda >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 90 ./build/test_cuda --gpu --only G8 > "$O/g8.log" 2>&1; echo "only G8: rc=$? $(grep -c '^ok' "$O/g8.log") ok, $(grep -c FAIL "$O/g8.log") FAIL"; grep -m 6 FAIL "$O/g8.log"
grep "^ok" "$O/g8.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 " " $3 } } } END { print "worst err/tol: " m " (" c ")" }'
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
san() { # tool, only, timeout
    extra=; [ "$1" = racecheck ] && extra="--racecheck-report all"
    timeout "$3" $SAN --tool "$1" $extra --error-exitcode 9 ./build/test_cuda --gpu --only "$2" > "$O/${1}_$2.log" 2>&1
    echo "$1 over --only $2: rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$O/${1}_$2.log" | tail -1) $(grep -c '^ok' "$O/${1}_$2.log") ok $(grep -c FAIL "$O/${1}_$2.log") FAIL"
    grep -m 4 -E "^========= (Invalid|Race|Uninitialized|Barrier|Error)" "$O/${1}_$2.log"
}
san memcheck flush 170
san racecheck flush 170
san initcheck nonfinite 70
san synccheck nonfinite 70
true
