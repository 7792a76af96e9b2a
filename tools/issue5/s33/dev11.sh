#!/bin/sh
# tools/issue5/s33/dev11.sh - run 11: the kernels an sm_80 card runs (--arch 80: PTX for compute_80, finished by the
# driver; no programmatic dependent launch there) through the whole GPU test, now with oscar_append_s; and their
# decode step (bench --step) for fitted rotations.
O=${OUT:-build/s33_11}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp80 --arch 80 > "$O/test80.txt" 2>&1; echo "test_cuda_par --arch 80: rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$O/test80.txt"; grep -h "flush edges.*dense" /tmp/tcp80/*.log | head -12 >> "$O/test80.txt"; grep -h "flush edges.*dense" /tmp/tcp80/*.log | head -4
for o in 0 2; do
    timeout 120 ./build/bench_gpu --arch 80 --batch 1,8 --ctx 8192 --iters 50 --step --small $o --mode int2 --rot dense > /tmp/s.txt 2>&1
    echo "sm_80 kernels --small $o: $(grep -h '^step' /tmp/s.txt | tr '\n' ' ')"
done | tee "$O/step80.txt"
true
