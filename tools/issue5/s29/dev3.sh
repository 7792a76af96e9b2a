#!/bin/sh
# tools/issue5/s29/dev3.sh - run 3 of the twenty-ninth session, on the tree with w30 in oscar_append by default and
# the split-weight helper (moved out of the warp-kernel section: run 2's d 256 G 8 and G 16 modules did not compile):
# the whole test_cuda --gpu; the write path's register bound (-DOSCAR_APPEND_MINB=4 / 6 against the default 5), two
# sets; batch 1 with 3 cp.async stages per warp and the registers of 2 blocks per SM (-DOSCAR_WNS=3 -DOSCAR_WMINB=2).
O=${OUT:-build/s29_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
t0=$(date +%s)
timeout 400 ./build/test_cuda --gpu > "$O/test.log" 2>&1
echo "whole test_cuda --gpu: rc=$? $(grep -c '^ok' "$O/test.log") ok, $(grep -c FAIL "$O/test.log") FAIL, $(( $(date +%s) - t0 )) s; $(grep -o 'worst err/tol [0-9.]*' "$O/test.log" | sort -k3 -n | tail -1)"
grep -m 8 "FAIL" "$O/test.log"
for r in 1 2; do
    for m in 5 4 6; do
        timeout 60 env OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_MINB=$m" ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > "$O/w.log" 2>&1
        echo "[MINB $m] $(grep '^diag write path, dense' "$O/w.log" | grep -o 'one append call: [0-9.]* ms (min [0-9.]*)')"
    done
done
NOQUICK=1 REPS=2 OUT="$O/sets" ROWS="int2 1 8192,32768,131072 200" sh tools/issue5/s25/sets.sh "|" "-DOSCAR_WNS=3 -DOSCAR_WMINB=2|" 2>&1 | grep -v "^NVIDIA"
true
