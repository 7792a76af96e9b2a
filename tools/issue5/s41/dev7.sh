#!/bin/sh
# tools/issue5/s41/dev7.sh - is w45b's cost to a chunked prefill in its first append or spread over the later ones? The
# chunked figure (appends of 2,048 tokens, runs in the parameters) for prefills of 4, 16 and 64 appends, --wlate 2
# (never) against 1 (w45b's rule: the first append's write launch waits at its end), two rounds.
O=${OUT:-build/s41_7}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2; do for t in 8192 32768 131072; do for wl in 2 1; do
    timeout 60 ./build/bench_gpu --mode write --wchunks 2048 --wtokens $t --wlate $wl > /tmp/o.txt 2>&1
    echo "r$r $t wlate $wl: $(grep '2048-token' /tmp/o.txt | tail -2 | head -1 | sed 's/.*: \([0-9.]* ms\),.*/\1/')"
done; done; done | tee "$O/chunks.txt"
