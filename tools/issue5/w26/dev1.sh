#!/bin/sh
# tools/issue5/w26/dev1.sh - w26 on the device: the nonfinite tests, the write-path A/B against
# old/oscar_cuda.h (tools/gpu_wab.sh, with the phase splits and the full test_cuda --gpu at the end)
O=${OUT:-build/w26}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
./build/test_cuda --gpu --only nonfinite > "$O/nonfinite.log" 2>&1; echo "nonfinite: rc=$? $(grep -c '^ok' "$O/nonfinite.log") ok, $(grep -c FAIL "$O/nonfinite.log") FAIL"; grep -m 5 FAIL "$O/nonfinite.log"
OUT=$O/wab PROF=1 FULL=${FULL:-1} sh tools/gpu_wab.sh

true
