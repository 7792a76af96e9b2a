#!/bin/sh
# tools/issue5/s19/dev1.sh - nineteenth session, device run 1 (repository root; old/oscar_cuda.h = the
# committed header): the write path's epilogue without the 64-bit conversion (w28, tools/gpu_wab.sh
# against old/), then the INT2 decode with its warps kept in step (-DOSCAR_WLOCK=N, 16-warp blocks)
# against the default build, each set one bench process with a timeout (a barrier bug would hang).
O=${OUT:-build/s19}; mkdir -p "$O"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader
OUT=$O/wab timeout 200 sh tools/gpu_wab.sh
n=0
for v in "" "-DOSCAR_WNW=16" "-DOSCAR_WNW=16 -DOSCAR_WLOCK=1" "-DOSCAR_WNW=16 -DOSCAR_WLOCK=4" "-DOSCAR_WLOCK=1" ""; do
    n=$((n + 1))
    OSCAR_CUDA_NVRTC_OPTIONS="$v" timeout 60 ./build/bench_gpu --batch 8,32 --ctx 32768,131072 --iters 20 --mode int2 --csv "$O/b832_$n.csv" > "$O/b832_$n.log" 2>&1; r1=$?
    OSCAR_CUDA_NVRTC_OPTIONS="$v" timeout 40 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 50 --mode int2 --csv "$O/b1_$n.csv" > "$O/b1_$n.log" 2>&1; r2=$?
    echo "set $n: '$v' rc $r1 $r2"
    for f in "$O/b1_$n.csv" "$O/b832_$n.csv"; do
        [ -f "$f" ] && awk -F, 'NR > 1 { printf "  %-5s %5s %8s  us %7.1f  graph %7.1f  %5.1f%%\n", $1, $2, $3, $8, $15, $14 }' "$f"
    done
done
grep -h "^copy" "$O"/b832_1.log
if [ -n "$LOCKTEST" ]; then
    OSCAR_CUDA_NVRTC_OPTIONS="$LOCKTEST" timeout 200 ./build/test_cuda --gpu --quick > "$O/locktest.log" 2>&1
    echo "quick test with '$LOCKTEST': rc=$? $(grep -c '^ok' "$O/locktest.log") ok, $(grep -c FAIL "$O/locktest.log") FAIL"; grep -m 5 FAIL "$O/locktest.log"
fi
true
