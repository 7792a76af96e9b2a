#!/bin/sh
# tools/gpu_xp.sh - same-run A/B of NVRTC option sets on the INT2 decode (device machine, repository root)
# env: MODE=int2|bf16|both (default int2); SETS="a|b|..." option sets ('' = the default build; e.g. SETS="|-DOSCAR_WPV=0"); TEST=quick|full|none
OUT=${OUT:-build/gpu_xp}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
case "${TEST:-quick}" in
    quick) ./build/test_cuda --gpu --quick > "$OUT/test.log" 2>&1 ;;
    full) ./build/test_cuda --gpu > "$OUT/test.log" 2>&1 ;;
esac
[ -f "$OUT/test.log" ] && { echo "test-cuda ${TEST:-quick}: $(grep -c '^ok' "$OUT/test.log") ok, $(grep -c FAIL "$OUT/test.log") FAIL"; grep -m 6 FAIL "$OUT/test.log"; grep "out of tolerance" "$OUT/test.log" | head -20; grep "^ok" "$OUT/test.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 } } } END { print "worst err/tol: " m " (" c ")" }'; }
# old/{oscar.h,oscar_cuda.h,cli/bench_gpu.c} (e.g. from `git show HEAD:...`) add a set "old" built from them
bin=./build/bench_gpu
[ -f old/cli/bench_gpu.c ] && cc -std=c99 -O2 -DOSCAR_BENCH_GPU_MAIN old/cli/bench_gpu.c -o build/bench_old -lm -ldl && SETS="${SETS:-}|old"
n=0
echo "${SETS:-}" | tr '|' '\n' | while read -r v; do
    n=$((n + 1))
    b=$bin; [ "$v" = old ] && { b=./build/bench_old; v=; }
    OSCAR_CUDA_NVRTC_OPTIONS="$v" $b --batch 1 --ctx 8192,32768,131072 --iters 50 --mode ${MODE:-int2} --csv "$OUT/b1_$n.csv" > "$OUT/b1_$n.log" 2>&1
    OSCAR_CUDA_NVRTC_OPTIONS="$v" $b --batch 8,32 --ctx 32768,131072 --iters 20 --mode ${MODE:-int2} --csv "$OUT/b832_$n.csv" > "$OUT/b832_$n.log" 2>&1
    echo "set $n: '$v' ($b)"
    for f in "$OUT/b1_$n.csv" "$OUT/b832_$n.csv"; do
        awk -F, 'NR > 1 { printf "  %-5s %5s %8s  us %7.1f  b2b %7.1f  graph %7.1f  %5.1f%%\n", $1, $2, $3, $8, $10, $15, $14 }' "$f"
    done
    grep "non-finite\|error" "$OUT/b1_$n.log" | head -2
done
grep -h "^copy" "$OUT"/b1_1.log
