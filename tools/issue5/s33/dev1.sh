#!/bin/sh
# tools/issue5/s33/dev1.sh - run 1: the whole GPU test on the thirty-second session's final tree (its review commit,
# 2602ca8, had not run on a GPU), then the write path with the first wave's blocks staggered (OSCAR_APPEND_STAGGER,
# timing only: are tiles that start in step held in step, their rotation phases contending for the tensor pipe?).
# (OSCAR_APPEND_STAGGER is in tools/issue5/s33/stagger.patch now: apply it to rerun this script)
O=${OUT:-build/s33_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$? in $(( $(date +%s) - t0 )) s"
tail -4 "$O/test.txt"
sh tools/issue5/s33/wopts.sh "-DOSCAR_APPEND_STAGGER=13000" "-DOSCAR_APPEND_STAGGER=6500 -DOSCAR_APPEND_STAGGER_K=4" \
    "-DOSCAR_APPEND_STAGGER=3200 -DOSCAR_APPEND_STAGGER_K=8" 2>&1 | tee "$O/wopts.txt"
true
