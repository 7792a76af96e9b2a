#!/bin/sh
# tools/issue5/s25/old_quick.sh - the common start of a same-run A/B against the committed tree (sourced, with O
# set): the GPU's name, the working tree's bench and tests built, build/bench_old from old/ (filled from
# `git show HEAD:` before the device call), and the quick GPU test of the working tree (NOQUICK=1: none).
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
if [ "$NOQUICK" != 1 ]; then
    timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1
    echo "quick: rc=$? $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep -m 5 "FAIL\|error" "$O/quick.log"
fi
