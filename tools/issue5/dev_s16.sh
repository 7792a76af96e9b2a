#!/bin/sh
# device run (session 16): full test_cuda of the working tree, then the INT2 decode, one bench
# process per set and shape group in one run. RSETS="name:bench options|...": a set whose options
# start with OLD runs the kernels in old/ (git show HEAD:... copies of oscar.h, oscar_cuda.h,
# cli/bench_gpu.c); the default runs the working tree, the old kernels, then the working tree again
# (the first set of a run can be slow: kernels/NOTES.md v34). SHAPES="batches:contexts ...".
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p "$OUT/r"
if [ "${TEST:-full}" != none ]; then
    ./build/test_cuda --gpu $( [ "${TEST:-full}" = quick ] && echo --quick ) > "$OUT/r/test.log" 2>&1
    echo "test_cuda: $(grep -c '^ok' "$OUT/r/test.log") ok, $(grep -c FAIL "$OUT/r/test.log") FAIL"
    grep -m 6 FAIL "$OUT/r/test.log"
fi
[ -f old/cli/bench_gpu.c ] && cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl
RSETS=${RSETS:-"new:|old:OLD|new2:"}
SHAPES=${SHAPES:-"1,8,32:32768,131072 64:32768"}
echo "$RSETS" | tr '|' '\n' | while IFS=: read -r name opts; do
    [ -n "$name" ] || continue
    echo "set $name: '$opts'"
    k=0
    for sh in $SHAPES; do
        k=$((k + 1))
        b=./build/bench_gpu; case "$opts" in OLD*) b=./build/bench_old; opts=${opts#OLD} ;; esac
        $b --batch "${sh%%:*}" --ctx "${sh#*:}" --iters 20 --mode ${MODE:-int2} $opts --csv "$OUT/r/${name}_$k.csv" > "$OUT/r/${name}_$k.log" 2>&1
        awk -F, 'NR > 1 { printf "  %-5s %5s %8s  us %7.1f  b2b %7.1f  graph %7.1f  %5.1f%%\n", $1, $2, $3, $8, $10, $15, $14 }' "$OUT/r/${name}_$k.csv"
        grep "non-finite\|error" "$OUT/r/${name}_$k.log" | head -2
    done
done
grep -h "^copy" "$OUT"/r/*_1.log | head -3
if [ -n "${WPROF:-}" ]; then # WPROF=batch:context: the per-block probe at one shape
    OSCAR_WPROF_OUT="$OUT/r/wprof.csv" OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=4096" ./build/bench_gpu --batch ${WPROF%%:*} --ctx ${WPROF#*:} --iters 20 --mode int2 2>&1 | grep "wprof\|^int2" | head -4
fi
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$OUT/r"
