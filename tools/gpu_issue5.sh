#!/bin/sh
# tools/gpu_issue5.sh - the issue-5 device run: build, GPU tests, decode-attention table, torch SDPA.
# usage (on the device machine, repository root): sh tools/gpu_issue5.sh [quick|test|full] (logs under $OUT)
#   quick: tests with --quick, batch 1 x {8K, 32K, 128K} and {8, 32} x {32K, 128K}
#   test:  quick with the whole test_cuda --gpu
#   full:  + the whole test_cuda --gpu, batch 64 x 32K, d 64 / G 3, G 8, d 256, INT2 with dense rotations
#          (--rot dense: the path of fitted rotations; the other INT2 rows use H rotations), torch SDPA
#   env: OLD=1 also times the issue-3 block kernel (OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WARP=0) for
#        comparison in the same run; DIAG=1 runs bench --diag (per-launch times, write path);
#        SAN=1 runs tools/gpu_sanitize.sh; NOTEST=1 skips the tests (a tree whose tests just ran); VARIANTS="opts;opts" extra NVRTC option sets timed too
OUT=${OUT:-build/gpu_issue5}; mkdir -p "$OUT"
mode=${1:-quick}
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/device.txt"
if [ "$NOTEST" = 1 ]; then echo "tests not run (NOTEST=1)" > "$OUT/test.log"
elif [ "$mode" != quick ]; then ./build/test_cuda --gpu > "$OUT/test.log" 2>&1; else ./build/test_cuda --gpu --quick > "$OUT/test.log" 2>&1; fi
echo "test-cuda rc=$? : $(grep -c '^ok' "$OUT/test.log") ok lines; $(grep -c FAIL "$OUT/test.log") FAIL lines; $(tail -2 "$OUT/test.log" | tr '\n' ' ')"
grep -E "^(FAIL|device oom|ok   (device oom|two threads))" "$OUT/test.log" | head -12
grep "^ok" "$OUT/test.log" | awk '{ for (i = 1; i < NF; i++) if ($i == "err/tol") { w = $(i + 1); if (w > m) { m = w; c = $2 } } } END { print "worst err/tol over the ok cases: " m " (" c ")" }'
if grep -q FAIL "$OUT/test.log"; then # which switch makes it pass
    for v in "-DOSCAR_WARP=1" "-DOSCAR_WARP=0"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$v" ./build/test_cuda --gpu --quick > "$OUT/test_diag.log" 2>&1
        echo "with $v: test-cuda --quick rc=$?: $(grep -c FAIL "$OUT/test_diag.log") FAIL lines"; grep -m 3 FAIL "$OUT/test_diag.log"
    done
fi
bench() { # tag, options...
    tag=$1; shift
    ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --csv "$OUT/b1_$tag.csv" "$@" > "$OUT/b1_$tag.log" 2>&1
    ./build/bench_gpu --batch 8,32 --ctx 32768,131072 --iters 20 --csv "$OUT/b832_$tag.csv" "$@" > "$OUT/b832_$tag.log" 2>&1
}
bench new
[ "$OLD" = 1 ] && OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WARP=0" bench old
if [ -n "$VARIANTS" ]; then
    echo "$VARIANTS" | tr ';' '\n' | while read -r v; do
        [ -z "$v" ] && continue
        t=$(echo "$v" | tr -c 'A-Za-z0-9\n' '_')
        OSCAR_CUDA_NVRTC_OPTIONS="$v" ./build/test_cuda --gpu ${VTEST:---quick} > "$OUT/test_$t.log" 2>&1; echo "variant $v: test-cuda ${VTEST:---quick} rc=$?: $(grep -c FAIL "$OUT/test_$t.log") FAIL lines"
        OSCAR_CUDA_NVRTC_OPTIONS="$v" bench "$t"
    done
fi
if [ "$DIAG" = 1 ]; then
    ./build/bench_gpu --diag --batch 1 --ctx 8192,131072 --iters 50 > "$OUT/diag_b1.log" 2>&1; grep "^diag" "$OUT/diag_b1.log"
    ./build/bench_gpu --diag --batch 8 --ctx 32768 --iters 20 > "$OUT/diag_b8.log" 2>&1; grep "^diag per" "$OUT/diag_b8.log"
fi
if [ "$mode" = full ]; then
    ./build/bench_gpu --batch 1 --ctx 8192,32768,131072 --iters 50 --mode int2 --rot dense --csv "$OUT/b1_dense.csv" > "$OUT/b1_dense.log" 2>&1
    ./build/bench_gpu --batch 8,32 --ctx 32768,131072 --iters 20 --mode int2 --rot dense --csv "$OUT/b832_dense.csv" > "$OUT/b832_dense.log" 2>&1
    ./build/bench_gpu --batch 64 --ctx 32768 --iters 10 --csv "$OUT/b64.csv" > "$OUT/b64.log" 2>&1
    ./build/bench_gpu --batch 1,8 --ctx 32768 --hq 24 --hkv 8 --dim 64 --group 64 --iters 20 --csv "$OUT/d64.csv" > "$OUT/d64.log" 2>&1
    ./build/bench_gpu --batch 1,8 --ctx 32768 --hq 64 --hkv 8 --iters 20 --csv "$OUT/g8.csv" > "$OUT/g8.log" 2>&1
    ./build/bench_gpu --batch 1,8 --ctx 32768 --dim 256 --iters 20 --csv "$OUT/d256.csv" > "$OUT/d256.log" 2>&1
    ./build/bench_gpu --batch 1,8 --ctx 32768 --hq 128 --hkv 8 --iters 20 --csv "$OUT/g16.csv" > "$OUT/g16.log" 2>&1
    ./build/bench_gpu --batch 1,8 --ctx 32768 --hq 256 --hkv 8 --iters 20 --csv "$OUT/g32.csv" > "$OUT/g32.log" 2>&1
    command -v python3 >/dev/null && timeout 150 python3 tools/sdpa_bench.py > "$OUT/sdpa.csv" 2>&1
fi
[ "$SAN" = 1 ] && OUT="$OUT/san" timeout 400 sh tools/gpu_sanitize.sh
# the table: mode batch context us %copy (one line per CSV row)
echo "tag       mode  batch  context     us   %copy"
for f in "$OUT"/b1_*.csv "$OUT"/b832_*.csv "$OUT"/b64.csv "$OUT"/d64.csv "$OUT"/g8.csv "$OUT"/g16.csv "$OUT"/g32.csv "$OUT"/d256.csv; do
    [ -f "$f" ] || continue
    t=$(basename "$f" .csv)
    awk -F, -v t="$t" 'NR > 1 { printf "%-9s %-5s %5s %8s %7.1f %6.1f%%  (d %s G %d)\n", t, $1, $2, $3, $8, $14, $6, $4 / $5 }' "$f"
done
[ -f "$OUT/sdpa.csv" ] && grep -v "^#" "$OUT/sdpa.csv"
grep -h "^copy" "$OUT"/b1_new.log
