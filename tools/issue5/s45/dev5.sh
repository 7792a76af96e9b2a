#!/bin/sh
# tools/issue5/s45/dev5.sh - v69 (OSCAR_WDC): a lane's two rows of an INT2 score tile hold adjacent query digits,
# summed as one int before one conversion (expected: the same output bits, 16-24 fewer instructions per unit).
# Checks: the outputs' FNV-1a (bench --diag) with OSCAR_WDC 0 and 1 at d 128 G 4 / G 8, d 64 G 3, d 256 G 4; the quick
# GPU test with 1; then three rounds of 0 / 1 interleaved (graph us), H rotations, Hkv 8.
O=${OUT:-build/s45_5}; . tools/issue5/s38/wlib.sh
for v in 0 1; do
    export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc_$v OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WDC=$v"
    for a in "--hq 32" "--hq 64" "--hq 24 --dim 64" "--hq 32 --dim 256"; do
        timeout 150 ./build/bench_gpu --mode int2 $a --batch 1,8 --ctx 32768 --iters 20 --diag 2>&1 | grep 'diag out' | sed "s/^/WDC $v [$a]: /"
    done
done | tee "$O/hash.txt"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc_1 OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WDC=1"
timeout 150 ./build/test_cuda --gpu --quick > "$O/quick.txt" 2>&1; echo "quick rc=$?: $(grep -c '^ok' "$O/quick.txt") ok, $(grep -c FAIL "$O/quick.txt") FAIL" | tee "$O/sum.txt"
for r in 1 2 3; do for v in 0 1; do
    export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc_$v OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WDC=$v"
    timeout 150 ./build/bench_gpu --mode int2 --batch 1,8,32 --ctx 32768 --iters 100 --csv /tmp/a.csv > /dev/null 2>&1
    timeout 150 ./build/bench_gpu --mode int2 --batch 1,8 --ctx 131072 --iters 100 --csv /tmp/b.csv > /dev/null 2>&1
    timeout 150 ./build/bench_gpu --mode int2 --hq 64 --batch 8 --ctx 32768 --iters 100 --csv /tmp/c.csv > /dev/null 2>&1
    tail -n +2 -q /tmp/a.csv /tmp/b.csv /tmp/c.csv | awk -F, -v r=$r -v b=$v '{printf "r%s WDC %s %s G %d %dx%d: events %s b2b %s graph %s\n", r, b, $1, $4/$5, $2, $3, $8, $10, $15}'
done; done | tee "$O/ab.txt"
