#!/bin/sh
# tools/gpu_wprof.sh - per-block timing of oscar_decode_w (device machine, repository root): kernels
# built with -DOSCAR_WPROF=1024 record each block's SM, start / end and its warps' ends and units;
# bench --gpu appends them to $OUT/wprof.csv and prints a summary per shape.
# env: SHAPES="B:CTX,CTX B:CTX" (default "1:32768,131072 8:32768,131072 32:32768,131072"); XOPT: more options
OUT=${OUT:-build/gpu_wprof}; mkdir -p "$OUT"; rm -f "$OUT/wprof.csv"
make -s build/bench_gpu >/dev/null || exit 1
for s in ${SHAPES:-1:32768,131072 8:32768,131072 32:32768,131072}; do
    OSCAR_WPROF_OUT="$OUT/wprof.csv" OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_WPROF=1024 ${XOPT:-}" ./build/bench_gpu --batch "${s%%:*}" --ctx "${s#*:}" --iters 20 --mode ${MODE:-int2} 2>&1 | grep "wprof\|chain\|^int2\|^bf16\|error"
done
# phases per block (cycles from the block's start, means): the query's wait, the unit loop's start,
# the warps' merge done, the block's end
[ -f "$OUT/wprof.csv" ] && awk -F, '{ k = $1 "x" $2; n[k]++; a[k] += $20; b[k] += $21; c[k] += $22; d[k] += $7 }
    END { for (k in n) printf "phases %s: query wait done %.0f, loop start %.0f, warp merge done %.0f, end %.0f cycles\n", k, a[k] / n[k], b[k] / n[k], c[k] / n[k], d[k] / n[k] }' "$OUT/wprof.csv"
