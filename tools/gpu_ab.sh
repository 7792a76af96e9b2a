#!/bin/sh
# tools/gpu_ab.sh - A/B timing of the working tree against another copy of the headers, same run:
# old/oscar.h, old/oscar_cuda.h, old/cli/bench_gpu.c (e.g. `git show HEAD:oscar_cuda.h`), then the
# full GPU test of the working tree. usage (device machine, repository root): sh tools/gpu_ab.sh
OUT=${OUT:-build/gpu_ab}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ "$NOTEST" != 1 ]; then
    ./build/test_cuda --gpu > "$OUT/test.log" 2>&1
    echo "test-cuda rc=$? : $(grep -c '^ok' "$OUT/test.log") ok; $(grep -c FAIL "$OUT/test.log") FAIL; $(tail -1 "$OUT/test.log")"
    grep -m 8 FAIL "$OUT/test.log"
    grep -E "batch8|wide batch" "$OUT/test.log"
fi
for v in new old; do
    bin=./build/bench_gpu; [ $v = old ] && bin=./build/bench_old
    $bin --batch 1 --ctx 8192,32768,131072 --iters 50 --csv "$OUT/b1_$v.csv" > "$OUT/b1_$v.log" 2>&1
    $bin --batch 8,32 --ctx 32768,131072 --iters 20 --csv "$OUT/b832_$v.csv" > "$OUT/b832_$v.log" 2>&1
    $bin --batch 64 --ctx 32768 --iters 10 --csv "$OUT/b64_$v.csv" > "$OUT/b64_$v.log" 2>&1
done
echo "file      mode  batch  context   us    min   b2b   graph  %copy"
for f in "$OUT"/b1_*.csv "$OUT"/b832_*.csv "$OUT"/b64_*.csv; do
    t=$(basename "$f" .csv)
    awk -F, -v t="$t" 'NR > 1 { printf "%-9s %-5s %5s %8s %7.1f %7.1f %7.1f %7.1f %5.1f%%\n", t, $1, $2, $3, $8, $9, $10, $15, $14 }' "$f"
done
grep -h "^copy" "$OUT"/b1_new.log
