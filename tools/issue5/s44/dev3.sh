#!/bin/sh
# tools/issue5/s44/dev3.sh - v68: the fp16 P.V's INT2 codes as fp16 subnormals (code x 4^qd x 2^-24: the byte masked
# in place, no 0x6400 or-ed in and no sub.f16x2 per half pair; O scaled by 2^24 in the epilogue, the BF16 units' sums
# by 2^-24). Used where the u8 P.V is not: INT2 with 5-8 query heads per KV head (one head per lane row), so G 5-8 and
# the groups of 8 of G 16 / 32. Checks: the whole GPU test; the outputs' FNV-1a (bench --diag) with OSCAR_WSUBN 0
# and 1 (expected: the same bits); then three rounds of 0 / 1 interleaved, G 8 (Hq 64, Hkv 8) and G 16 (Hq 128).
O=${OUT:-build/s44_3}; . tools/issue5/s38/wlib.sh
whole_test
for r in 1 2 3; do for v in 0 1; do
    export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc_$v OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WSUBN=$v"
    [ $r = 1 ] && for hq in 64 128; do
        timeout 150 ./build/bench_gpu --mode int2 --hq $hq --batch 1,8 --ctx 32768 --iters 20 --diag 2>&1 | grep 'diag out' | sed "s/^/WSUBN $v: /"
    done
    timeout 150 ./build/bench_gpu --mode int2 --hq 64 --batch 1,8,32 --ctx 32768 --iters 100 --csv /tmp/a.csv > /dev/null 2>&1
    timeout 150 ./build/bench_gpu --mode int2 --hq 64 --batch 1,8 --ctx 131072 --iters 100 --csv /tmp/b.csv > /dev/null 2>&1
    timeout 150 ./build/bench_gpu --mode int2 --hq 128 --batch 8 --ctx 32768 --iters 100 --csv /tmp/c.csv > /dev/null 2>&1
    tail -n +2 -q /tmp/a.csv /tmp/b.csv /tmp/c.csv | awk -F, -v r=$r -v b=$v '{printf "r%s WSUBN %s %s G %d %dx%d: events %s b2b %s graph %s (%s%% of copy by events)\n", r, b, $1, $4/$5, $2, $3, $8, $10, $15, $14}'
done; done | tee "$O/ab.txt"
cd "$O" && tar czf logs.tgz test.txt && rm -f test.txt
