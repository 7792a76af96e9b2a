#!/bin/sh
# tools/issue5/s31/dev11.sh - run 11: more L1 for the write kernels: the preferred carveout at the smallest that holds
# their blocks (oscar_append, 5 blocks of 19.4 KB: 44% = 100 KB; oscar_append_w, 8 blocks: 72% = 164 KB) against the
# driver's choice, two rounds.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do
    for s in "2|-2" "2|44" "1|-2" "1|72"; do
        w=${s%|*}; c=${s#*|}
        timeout 100 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 --wide $w --wcarve $c > /tmp/w.log 2>&1
        echo "[--wide $w --wcarve $c] $(grep -A1 '^diag write path, dense.*one append call' /tmp/w.log | sed -n 's/.*one append call: \([0-9.]*\) ms.*= \([0-9.]*\)% of copy.*/one \1 ms (\2%)/p; s/^diag write path, \([0-9]*\)-token appends (runs in the launches. parameters): \([0-9.]*\) ms.*/\1: \2/p' | tr '\n' ' ')"
    done
done
true
