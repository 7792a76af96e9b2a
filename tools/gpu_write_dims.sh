#!/bin/sh
# tools/gpu_write_dims.sh - write path at d 64 and d 256 (bench_gpu --diag), the default kernel and
# NVRTC option sets given as arguments; and, when tools/issue5/write/old_oscar_cuda.h exists (an
# older oscar_cuda.h, e.g. `git show 9fbe1d0:oscar_cuda.h`), the d 128 write path built against it
# in the same run. usage: sh tools/gpu_write_dims.sh ["-DOPT=1" ...]   (logs under $OUT)
OUT=${OUT:-build/gpu_write}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
for d in 64 256; do
    ./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 5 --dim $d --group $((d < 128 ? d : 128)) > "$OUT/write_d$d.log" 2>&1
    grep -h "diag oscar_append\|diag write" "$OUT/write_d$d.log" | sed "s/^/[d $d] /"
    for v in "$@"; do
        OSCAR_CUDA_NVRTC_OPTIONS="$v" ./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 5 --dim $d --group $((d < 128 ? d : 128)) > "$OUT/write_d${d}_v.log" 2>&1
        grep -h "diag oscar_append\|diag write" "$OUT/write_d${d}_v.log" | sed "s/^/[d $d $v] /"
    done
done
if [ -f tools/issue5/write/old_oscar_cuda.h ]; then
    o=/tmp/oscar_old; mkdir -p $o/cli && cp cli/bench_gpu.c $o/cli/ && cp oscar.h $o/ && cp tools/issue5/write/old_oscar_cuda.h $o/oscar_cuda.h
    cc -std=c99 -O3 -march=native -DOSCAR_BENCH_GPU_MAIN $o/cli/bench_gpu.c -o $o/bench_old -lm -ldl -lpthread || exit 1
    $o/bench_old --diag --batch 1 --ctx 8192 --iters 5 > "$OUT/write_old.log" 2>&1
    grep -h "^copy\|diag oscar_append\|diag write" "$OUT/write_old.log" | sed "s/^/[old header] /"
fi
