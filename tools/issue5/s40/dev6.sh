#!/bin/sh
# tools/issue5/s40/dev6.sh - for the next session (not run here): how long one oscar_append_w block takes alone. A
# 384-token prefill flushes one 64-row tile per (KV head, K|V): 16 blocks, each alone on its SM (--wide 1 sends it to
# oscar_append_w; a launch that short is not staggered); 1,024 tokens: 11 tiles each, 176 blocks, about one per SM.
# Against run s40-2's 23.7 us per block with 8 blocks on an SM: near 23 us alone, the block's chain sets the SM's rate
# (more blocks or independent work per block would raise it); near 3 us, the SM's pipes do.
O=${OUT:-build/s40_6}; . tools/issue5/s38/wlib.sh
for t in 384 1024; do
    (export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec$t
     timeout 60 ./build/bench_gpu --mode write --wtokens $t --wide 1 --wchunks 2048 > "$O/w$t.txt" 2>&1)
    python3 tools/issue5/s38/abrec.py /tmp/rec$t.idle /tmp/rec$t.b2b > "$O/abrec$t.txt" 2>&1
    echo "$t tokens:"; grep -A3 "oscar_append_w #0" "$O/abrec$t.txt" | head -8
done
