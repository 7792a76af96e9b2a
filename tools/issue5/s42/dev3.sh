#!/bin/sh
# tools/issue5/s42/dev3.sh - w49 in a decode step: fitted (dense) rotations, the one-token append of every sequence and
# then attend (bench --step), 32K tokens; batches of 33-64 sequences put 33-64 jobs per (KV head, K|V) into one whole
# tile per head (16 blocks), which w49 now runs as 16-job blocks (--wsplit 0) against whole tiles (--wsplit 2); batch 1
# and 8 (the small kernel, unchanged) as controls. Two rounds.
O=${OUT:-build/s42_3}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do for s in 0 2; do
    timeout 120 ./build/bench_gpu --mode int2 --rot dense --step --batch 1,8,48,64 --ctx 32768 --wsplit $s > /tmp/st.txt 2>&1
    grep "^step" /tmp/st.txt | sed "s/^/r$r wsplit $s: /"
done; done | tee "$O/step.txt"
