#!/bin/sh
# tools/issue5/s41/dev5.sh - append_wlate only behind flushes through oscar_append_w (0, the new rule) against behind
# every flush that reads no window row (1, the rule before) and never (2): the flush edges (pass 0 forces 1, pass 2
# takes the rule), then three rounds of the write path (one prefill; 64 appends of 2,048 tokens), then the whole test.
O=${OUT:-build/s41_5}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 120 ./build/test_cuda --gpu --only "flush edges" > "$O/flush.log" 2>&1
echo "flush edges rc=$?: $(grep -c '^ok' "$O/flush.log") ok, $(grep -c FAIL "$O/flush.log") FAIL"; grep FAIL "$O/flush.log" | head -5
one() { # label, options: the dense one-call and chunked lines
    timeout 90 ./build/bench_gpu --mode write --wchunks 2048 $2 > /tmp/one.txt 2>&1
    echo "$1: $(grep 'diag write path, dense\|diag write b2b, dense' /tmp/one.txt | sed 's/.*one append call: \([0-9.]* ms\).*/one \1/; s/.*queued behind another: \([0-9.]* ms\).*/b2b \1/' | tr '\n' ' ')" \
         "chunks $(grep '2048-token' /tmp/one.txt | tail -2 | sed 's/.*appends (\(runs [a-z]*\).*): \([0-9.]* ms\).*host in the 64 calls \([0-9.]* ms\).*/\1 \2 (host \3)/' | tr '\n' ' ')"
}
for r in 1 2 3; do for w in 0 1 2; do one "r$r wlate $w" "--wlate $w"; done; done | tee "$O/ab.txt"
timeout 200 sh tools/test_cuda_par.sh /tmp/tcp > "$O/test.txt" 2>&1; echo "test_cuda_par rc=$?"; tail -2 "$O/test.txt"; grep -h "^FAIL" /tmp/tcp/*.log | head -5
