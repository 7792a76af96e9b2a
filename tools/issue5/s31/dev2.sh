#!/bin/sh
# tools/issue5/s31/dev2.sh - run 2: oscar_append_w (one n-tile per chunk, 8 blocks per SM) for long flush launches and
# CNT 2 in oscar_append at d 128. The flush tests (the dense d 128 cases' first pass through oscar_append_w) and the
# nonfinite tests; then the write path with every flush launch through oscar_append_w (--wide 1), none (--wide 2), and
# the previous default (CNT 4, --wide 2), at one call and appends of 2,048 / 8,192 / 32,768 tokens, two rounds.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in flush nonfinite; do
    timeout 200 ./build/test_cuda --gpu --only $o > /tmp/t.log 2>&1; echo "$o: rc=$? $(grep -c '^ok' /tmp/t.log) ok, $(grep -c FAIL /tmp/t.log) FAIL"; grep -m 5 FAIL /tmp/t.log
    grep "oscar_append_w" /tmp/t.log | head -3
done
O=${OUT:-build/s31_2}; mkdir -p "$O"
for r in 1 2; do
    for s in "|1" "|2" "-DOSCAR_APPEND_CNT=4|2" "|0"; do
        o=${s%|*}; w=${s#*|}
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 120 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wide $w --wchunks 2048,8192,32768 > /tmp/w.log 2>&1
        [ $r = 1 ] && cp /tmp/w.log "$O/w_${w}_$(echo "$o" | tr -dc 'A-Z0-9').log"
        echo "[$o --wide $w] $(grep -A4 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
grep -h "^copy" "$O"/*.log | head -1
true
