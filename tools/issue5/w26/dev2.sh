#!/bin/sh
# tools/issue5/w26/dev2.sh - the flush / nonfinite tests, the write-path A/B against old/oscar_cuda.h,
# block-count option sets, then the full test_cuda --gpu (device machine, repository root)
O=${OUT:-build/w26}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
for t in flush nonfinite; do
    ./build/test_cuda --gpu --only $t > "$O/$t.log" 2>&1; echo "$t: rc=$? $(grep -c '^ok' "$O/$t.log") ok, $(grep -c FAIL "$O/$t.log") FAIL"; grep -m 5 FAIL "$O/$t.log"
done
OUT=$O/wab TEST=0 PROF=1 FULL=0 sh tools/gpu_wab.sh 2>&1 | grep -v "appends\|^ *copy"
sh tools/gpu_wvar.sh ${SETS:-"-DOSCAR_APPEND_MINB=4" "-DOSCAR_APPEND_MINB=6"} 2>&1 | grep -v "appends"
./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 5 FAIL "$O/full.log"
true
