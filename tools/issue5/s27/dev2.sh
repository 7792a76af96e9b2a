#!/bin/sh
# tools/issue5/s27/dev2.sh - run 2 of the twenty-seventh session: the kernels an sm_80 card runs (PTX for
# compute_80, finished by the driver), on this device: the whole GPU test with them, then the issue-5 rows
# and the write path timed with them and with the device's own kernels (sm_90a CUBIN) in the same run.
O=${OUT:-build/s27_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
timeout 400 ./build/test_cuda --gpu --arch 80 > "$O/test80.log" 2>&1
echo "test --gpu --arch 80: rc=$? $(grep -c '^ok' "$O/test80.log") ok, $(grep -c FAIL "$O/test80.log") FAIL"
grep -m 12 "FAIL\|rror\|^device:\|GPU checks\|worst" "$O/test80.log"
for a in 90 80; do
    x=""; [ $a = 80 ] && x="--arch 80"
    # shellcheck disable=SC2086
    timeout 60 ./build/bench_gpu $x --mode int2 --batch 1,8,32 --ctx 32768,131072 --iters 20 --csv "$O/int2_$a.csv" > "$O/int2_$a.log" 2>&1
    # shellcheck disable=SC2086
    timeout 40 ./build/bench_gpu $x --mode write --batch 1 --ctx 8192 --iters 5 > "$O/write_$a.log" 2>&1
    grep -m 1 "^device" "$O/int2_$a.log"
    awk -F, -v a=$a 'NR > 1 { printf "sm_%s kernels %s x %6s: events %7.1f us (%5.1f%% of copy), graph %7.1f us (%5.1f%%)\n", a, $2, $3, $8, $14, $15, 100 * $11 / $15 * 1000 / $13 }' "$O/int2_$a.csv"
    grep "^diag write path.*one append call\|pages of the two" "$O/write_$a.log" | cut -c1-200
done
true
