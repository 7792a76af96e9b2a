#!/bin/sh
# tools/issue5/s42/dev2.sh - w49: a write launch through oscar_append whose whole tiles leave SMs without a block (a chunked
# prefill's 256 window rows per (KV head, K|V): 64 tiles on 132 SMs; a short prefill's 320 sink / window rows) in blocks of
# 16 jobs through oscar_append_s (--wsplit 0, the new rule) against whole tiles (--wsplit 2). Run s42-1's block records:
# every append's write launch sits between its flush and the next append's, ~17 us of one tile's chain. The flush edges,
# two rounds of the write path (131K one call and back to back; 2,048- and 8,192-token appends; one prefill of 4K / 8K /
# 16K tokens), the block records of a chunked prefill with the rule, then the whole GPU test (run 2 ran its lines inline;
# they moved into wlib.sh's whole_test afterwards).
O=${OUT:-build/s42_2}; . tools/issue5/s38/wlib.sh
flush_edges
ch() { # chunked lines and the one call of 131K tokens
    timeout 90 ./build/bench_gpu --mode write --wchunks 2048,8192 "$@" > /tmp/ch.txt 2>&1
    grep 'diag write path, dense\|diag write b2b, dense' /tmp/ch.txt | sed 's/.*one append call: \([0-9.]* ms\).*/one \1/; s/.*queued behind another: \([0-9.]* ms\).*/b2b \1/' | tr '\n' ' '
    grep 'token appends' /tmp/ch.txt | tail -3 | sed 's/.*path, \([0-9]*\)-token appends (\(runs [a-z]*\).*): \([0-9.]* ms\).*/\1 \2 \3/' | tr '\n' ' '
    echo
}
for r in 1 2; do for s in 0 2; do
    echo "r$r wsplit $s: $(ch --wsplit $s)"
    for t in 4096 8192 16384; do echo "r$r wsplit $s $t tokens: $(w --wtokens $t --wsplit $s)"; done
done; done | tee "$O/ab.txt"
OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_BREC=1 OSCAR_ABREC_OUT=/tmp/rec_w0 OSCAR_ABREC_CHUNK=2048 \
    timeout 100 ./build/bench_gpu --mode write --wchunks 2048 2>&1 | grep "^abrec chunk" | tee "$O/events.txt"
python3 tools/issue5/s41/abrec_chunks.py /tmp/rec_w0.chunk | tee "$O/chunks.txt"
cp /tmp/rec_w0.chunk "$O/" && (cd "$O" && tar czf recs.tgz rec_w0.chunk && rm rec_w0.chunk)
whole_test
cd "$O" && tar czf logs.tgz flush.log test.txt
