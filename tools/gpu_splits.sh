#!/bin/sh
# tools/gpu_splits.sh - INT2 decode time against the split count (oscar_cuda_kv.splits), same run.
# usage (device machine, repository root): sh tools/gpu_splits.sh   (logs under $OUT)
OUT=${OUT:-build/gpu_splits}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[ "$NOTEST" = 1 ] || ./build/test_cuda --gpu --quick > "$OUT/test.log" 2>&1
[ "$NOTEST" = 1 ] || echo "test-cuda --quick rc=$?: $(grep -c '^ok' "$OUT/test.log") ok, $(grep -c FAIL "$OUT/test.log") FAIL"
run() { # batch ctxs iters splits
    ./build/bench_gpu --mode int2 --batch "$1" --ctx "$2" --iters "$3" --splits "$4" --csv "$OUT/s_$1_$4.csv" > "$OUT/s_$1_$4.log" 2>&1
    awk -F, -v s="$4" '$1 == "int2" { printf "splits %4s  batch %3s  ctx %7s  int2 %8.1f us (graph %8.1f)  %5.1f%% of copy\n", s, $2, $3, $8, $15, $14 }' "$OUT/s_$1_$4.csv"
}
for s in ${S1:-0 24 49 50 96 132}; do run 1 ${C1:-8192,32768,131072} 50 "$s"; done
for s in ${S4:-}; do run 4 ${C4:-8192,32768} 20 "$s"; done
for s in ${S8:-0 7 12 18 33}; do run 8 32768,131072 20 "$s"; done
for s in ${S32:-0 1 2 6 12}; do run 32 32768,131072 10 "$s"; done
grep -h "^copy" "$OUT"/s_1_0.log
