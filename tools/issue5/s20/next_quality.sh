#!/bin/sh
# tools/issue5/s20/next_quality.sh - prepared, not run: the write path's cost of centering and of the gain
# encoder apart (bench --diag with --center, --gain, --quality against the default), two rounds, on the
# device machine (repository root). Prints one line per kernel and option set.
O=${OUT:-build/wq}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
line() { grep -h "diag write path, dense\|diag write path, H.*default" "$2" | sed "s/ tokens x .*one append call: / /; s/, [0-9.]* MB read+written, [0-9]* GB\/s = / = /; s/; host.*//; s/^diag write path, /[$1] /"; }
for rep in 1 2; do
    for q in "" --center --gain --quality; do
        timeout 120 ./build/bench_gpu --diag --mode write $q --batch 1 --ctx 8192 --iters 3 > "$O/w${q#--}_$rep.log" 2>&1; line "write ${q:-default} $rep" "$O/w${q#--}_$rep.log"
    done
done
grep -h "^copy" "$O/w_1.log" | head -1
true
