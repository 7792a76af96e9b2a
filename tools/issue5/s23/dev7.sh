#!/bin/sh
# tools/issue5/s23/dev7.sh - run 7 of the twenty-third session (H100): compute-sanitizer over the decode paths added
# since the last sanitizer run over decode (v37): the query's transform inside oscar_decode_w (v45), oscar_merge_h
# (v46c) and the one-head shuffle merge (v47), through the quick case with H rotations (`--only rot1`: d 128 g 128
# G 4, two sequences, centered rows; the tests also force `merge 1` on some layers), then the BF16 / d 64 case.
# One line per tool; each tool under a time limit, logs kept on the device (the last lines printed).
O=${OUT:-build/s23_7}; mkdir -p "$O"
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
make -s build/test_cuda >/dev/null || exit 1
san() { # tool only limit
    extra=""; case $1 in memcheck) extra="--leak-check full";; racecheck) extra="--racecheck-report all";; esac
    t0=$(date +%s)
    timeout "$3" $SAN --tool "$1" $extra --error-exitcode 9 ./build/test_cuda --gpu --quick --only "$2" > "$O/$1_$2.log" 2>&1
    rc=$?
    echo "$1 --only $2: rc $rc, $(grep -c '^ok' "$O/$1_$2.log") ok, $(grep -c FAIL "$O/$1_$2.log") FAIL, $(( $(date +%s) - t0 )) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$O/$1_$2.log" | tail -2 | tr '\n' ' ')"
    [ $rc -ne 0 ] && grep -m 6 -E "^========= (Invalid|Race|Uninitialized|Barrier|Program hit|Error|  )" "$O/$1_$2.log"
}
san memcheck rot1 140
san racecheck rot1 170
san synccheck rot1 90
san initcheck rot1 90
san memcheck bf16 90
true
