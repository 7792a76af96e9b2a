#!/bin/sh
# tools/issue5/s42/dev6.sh - w50 (timing only, -DOSCAR_CUDA_FSPLIT=1 in the bench's build): a flush launch through
# oscar_append (a chunked prefill's 2,048-token flush: 512 whole tiles, one wave of ~19 us chains) in blocks of 16 jobs
# through oscar_append_s instead (2,048 blocks, ~3 waves of short blocks, 4x the B-fragment loads per row). Two rounds,
# the default build against the w50 build: 2,048- and 8,192-token appends, one 131K prefill (its flush goes through
# oscar_append_w either way), prefills of 4K / 16K tokens; the w50 build's flush edges (pages byte for byte).
# The option is not in the header: apply tools/issue5/s42/w50_fsplit.patch (git apply) first; run 6 ran with it applied.
O=${OUT:-build/s42_6}; . tools/issue5/s38/wlib.sh
cc -std=c99 -O3 -march=native -DOSCAR_BENCH_GPU_MAIN -DOSCAR_CUDA_FSPLIT=1 cli/bench_gpu.c -o build/bench_fs -lm -ldl -lpthread || exit 1
cc -std=c99 -O2 -g -DOSCAR_CUDA_FSPLIT=1 tests/test_cuda.c -o build/test_cuda_fs -lm -ldl -lpthread || exit 1
cp build/bench_gpu build/bench_def
one() { # label, binary, extra options
    timeout 90 ./build/$2 --mode write --wchunks 2048,8192 $3 > /tmp/o6.txt 2>&1
    echo "$1: $(grep 'diag write path, dense\|diag write b2b, dense' /tmp/o6.txt | sed 's/.*one append call: \([0-9.]* ms\).*/one \1/; s/.*queued behind another: \([0-9.]* ms\).*/b2b \1/' | tr '\n' ' ')" \
         "$(grep 'token appends' /tmp/o6.txt | tail -3 | sed 's/.*path, \([0-9]*\)-token appends (\(runs [a-z]*\).*): \([0-9.]* ms\).*/\1 \2 \3/' | tr '\n' ' ')"
}
for r in 1 2; do for b in bench_def bench_fs; do
    one "r$r $b" $b
    for t in 4096 16384; do
        timeout 60 ./build/$b --mode write --wchunks 2048 --wtokens $t > /tmp/o7.txt 2>&1
        echo "r$r $b $t tokens: $(grep 'diag write path, dense\|diag write b2b, dense' /tmp/o7.txt | sed 's/.*one append call: \([0-9.]* ms\).*/one \1/; s/.*queued behind another: \([0-9.]* ms\).*/b2b \1/' | tr '\n' ' ')"
    done
done; done | tee "$O/ab.txt"
timeout 120 ./build/test_cuda_fs --gpu --only "flush edges" > "$O/flush_fs.log" 2>&1
echo "flush edges (w50 build) rc=$?: $(grep -c '^ok' "$O/flush_fs.log") ok, $(grep -c FAIL "$O/flush_fs.log") FAIL"; grep FAIL "$O/flush_fs.log" | head -3
