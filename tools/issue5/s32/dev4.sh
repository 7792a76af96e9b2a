#!/bin/sh
# tools/issue5/s32/dev4.sh - run 4: the kernels an sm_80 card runs (PTX for compute_80, finished by the driver), on
# this device: the whole GPU test with them over parallel processes (last run in session 27; since then oscar_append
# takes 2 n-tiles per chunk at d 128 on every card, and the append runs come in the launch parameters), then the
# write path with them against the device's own kernels.
O=${OUT:-build/s32_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
sh tools/test_cuda_par.sh /tmp/tcp80 --arch 80 > "$O/test80.txt" 2>&1; echo "test_cuda_par --arch 80: rc=$? in $(( $(date +%s) - t0 )) s"
cat "$O/test80.txt"; grep -h "^device:" /tmp/tcp80/1.log
for a in 80 90 80 90; do
    x=""; [ $a = 80 ] && x="--arch 80"
    # shellcheck disable=SC2086
    timeout 60 ./build/bench_gpu $x --mode write --batch 1 --ctx 8192 --iters 5 > "$O/write_$a.log" 2>&1
    echo "sm_$a kernels: $(grep '^diag write path.*one append call' "$O/write_$a.log" | grep -v wht_warp | sed 's/^diag write path, \([^:(]*\).*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/\1 \2 ms (\3%)/' | tr '\n' ';')"
done
true
