#!/bin/sh
# device run (session 17): optional test_cuda of the working tree, then one bench process per set.
# RSETS="name;NVRTC options;bench options|...": NVRTC options go to OSCAR_CUDA_NVRTC_OPTIONS (every
# decode module of the process; OLD instead runs build/bench_old, built from old/cli/bench_gpu.c with
# the headers in old/ (git show REV:... copies)); SHAPES="batches:contexts ..." (a set's bench options
# may give their own --batch / --ctx after it); TEST=full|quick|none (default none).
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p "$OUT/r"
if [ "${TEST:-none}" != none ]; then
    ./build/test_cuda --gpu $( [ "${TEST}" = quick ] && echo --quick ) > "$OUT/r/test.log" 2>&1
    echo "test_cuda: $(grep -c '^ok' "$OUT/r/test.log") ok, $(grep -c FAIL "$OUT/r/test.log") FAIL"
    grep -m 6 FAIL "$OUT/r/test.log"
fi
[ -f old/cli/bench_gpu.c ] && cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl
SHAPES=${SHAPES:-"1,8,32:32768,131072"}
echo "$RSETS" | tr '|' '\n' | while IFS=';' read -r name nopts opts; do
    [ -n "$name" ] || continue
    echo "set $name: nvrtc '$nopts' bench '$opts'"
    k=0
    for sh in $SHAPES; do
        k=$((k + 1))
        b=./build/bench_gpu; no="$nopts"; [ "$nopts" = OLD ] && b=./build/bench_old && no=""
        OSCAR_CUDA_NVRTC_OPTIONS="$no" $b --batch "${sh%%:*}" --ctx "${sh#*:}" --iters 20 --mode ${MODE:-int2} $opts --csv "$OUT/r/${name}_$k.csv" > "$OUT/r/${name}_$k.log" 2>&1
        awk -F, 'NR > 1 { printf "  %-5s %5s %8s  us %7.1f  b2b %7.1f  graph %7.1f  %5.1f%%\n", $1, $2, $3, $8, $10, $15, $14 }' "$OUT/r/${name}_$k.csv"
        grep -i "non-finite\|error\|fail" "$OUT/r/${name}_$k.log" | head -2
    done
done
grep -h "^copy" "$OUT"/r/*_1.log | head -3
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$OUT/r"
