#!/bin/sh
# device run: the dense write path's kernel (oscar_append, after the H write's 8 launches of it) under Nsight Compute
make -s build/bench_gpu >/dev/null || exit 1
OUT=$OUT SKIP=8 COUNT=8 sh tools/ncu_append_pipes.sh 2>&1 | tee "$OUT/append_dense.txt"
