#!/bin/sh
# tools/gpu_diag.sh - issue-5 diagnosis on the device machine (repository root): GPU tests, then
# `bench_gpu --diag` (registers, shared memory, blocks per SM, each decode launch timed, write path),
# and the same with register caps through OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MIN_BLOCKS=N".
# usage: sh tools/gpu_diag.sh [N ...]   (logs under $OUT)
OUT=${OUT:-build/gpu_diag}; mkdir -p "$OUT"
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
./build/test_cuda --gpu > "$OUT/test.log" 2>&1; echo "test-cuda rc=$? : $(tail -2 "$OUT/test.log" | tr '\n' ' ')"
./build/bench_gpu --diag --batch 1 --ctx 8192,131072 --iters 50 --csv "$OUT/diag_b1.csv" 2>&1 | grep -v "^bf16"
./build/bench_gpu --diag --batch 8 --ctx 32768 --iters 20 2>&1 | grep "^int2\|^diag per\|^diag oscar_decode"
for mb in "$@"; do
  echo "== OSCAR_MIN_BLOCKS=$mb"
  OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MIN_BLOCKS=$mb" ./build/test_cuda --gpu --quick > "$OUT/test_mb$mb.log" 2>&1; echo "test-cuda --quick rc=$? : $(tail -1 "$OUT/test_mb$mb.log")"
  OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MIN_BLOCKS=$mb" ./build/bench_gpu --diag --batch 1 --ctx 8192,131072 --iters 50 2>&1 | grep "^int2\|^diag per\|^diag oscar_decode"
  OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_MIN_BLOCKS=$mb" ./build/bench_gpu --diag --batch 8 --ctx 32768 --iters 20 2>&1 | grep "^int2\|^diag per"
done
