#!/bin/sh
# tools/issue5/w26/dev3.sh - w26 final check on the device: flush / nonfinite tests (each under a time
# limit), the write-path A/B against old/oscar_cuda.h (tools/gpu_wab.sh), the full test_cuda --gpu
O=${OUT:-build/w26}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
for t in flush nonfinite; do
    timeout 150 ./build/test_cuda --gpu --only $t > "$O/$t.log" 2>&1; echo "$t: rc=$? $(grep -c '^ok' "$O/$t.log") ok, $(grep -c FAIL "$O/$t.log") FAIL"; grep -m 5 FAIL "$O/$t.log"
done
OUT=$O/wab TEST=0 PROF=${PROF:-0} FULL=0 timeout 240 sh tools/gpu_wab.sh 2>&1 | grep -v "appends\|^ *copy"
timeout 200 ./build/test_cuda --gpu > "$O/full.log" 2>&1; echo "full: rc=$? $(grep -c '^ok' "$O/full.log") ok, $(grep -c FAIL "$O/full.log") FAIL"; grep -m 5 FAIL "$O/full.log"
true
