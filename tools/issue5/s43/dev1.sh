#!/bin/sh
# tools/issue5/s43/dev1.sh - w51: a dense flush tile's pages from the block table by 4-byte cp.async into s_job, awaited
# after the rotation (-DOSCAR_APPEND_DPAGE=1), so the block barrier that starts pass 1's row loads waits for no global
# load; and DPAGE 2 (timing): the committed lookup with the post-rotation barrier outside its branch, which ptxas
# allocates with 20 B of spill loads in oscar_append_w instead of 44. Flush edges and the nonfinite group with 1 and 2,
# then four rounds of the write path (131K one call from idle and back to back; 2,048-token appends), 0 / 1 / 2
# interleaved.
O=${OUT:-build/s43_1}; . tools/issue5/s38/wlib.sh
for v in 1 2; do
    export OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_DPAGE=$v
    echo "DPAGE $v: $(flush_edges | head -3 | tr '\n' ' ')"; cp "$O/flush.log" "$O/flush_$v.log"
    timeout 120 ./build/test_cuda --gpu --only nonfinite > "$O/nonfinite_$v.log" 2>&1
    echo "DPAGE $v nonfinite rc=$?: $(grep -c '^ok' "$O/nonfinite_$v.log") ok, $(grep -c FAIL "$O/nonfinite_$v.log") FAIL"
done | tee "$O/tests.txt"
unset OSCAR_CUDA_NVRTC_OPTIONS
ch() { # the one call of 131K tokens (idle, b2b) and the chunked prefill
    timeout 90 ./build/bench_gpu --mode write --wchunks 2048 > /tmp/ch.txt 2>&1
    grep '^copy' /tmp/ch.txt | sed 's/.*1 GiB device-to-device in/copy/' | tr '\n' ' '
    grep 'diag write path, dense\|diag write b2b, dense' /tmp/ch.txt | sed 's/.*one append call: \([0-9.]* ms\).*/one \1/; s/.*queued behind another: \([0-9.]* ms\).*/b2b \1/' | tr '\n' ' '
    grep 'token appends' /tmp/ch.txt | tail -2 | sed 's/.*path, \([0-9]*\)-token appends (\(runs [a-z]*\).*): \([0-9.]* ms\).*/\1 \2 \3/' | tr '\n' ' '
    echo
}
for r in 1 2 3 4; do for v in 0 1 2; do
    echo "r$r DPAGE $v: $(OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_APPEND_DPAGE=$v ch)"
done; done | tee "$O/ab.txt"
cd "$O" && tar czf logs.tgz flush_*.log nonfinite_*.log && rm -f flush*.log nonfinite_*.log
