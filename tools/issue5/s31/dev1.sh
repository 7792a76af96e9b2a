#!/bin/sh
# tools/issue5/s31/dev1.sh - run 1: the dense write tile's accumulator chains. OSCAR_APPEND_A4=1 (Xl.Rh in its own
# accumulator: no chain longer than 4 IMMAs), OSCAR_APPEND_CNT=2 at the default 5 blocks per SM (not measured before:
# s30 ran CNT 2 at 6 blocks only), A4 at 4 blocks per SM, and CNT 1 at 8 blocks (s30-4) as the reference. Flush and
# nonfinite tests for the variants that write other code (pages byte for byte), then two interleaved rounds.
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in "-DOSCAR_APPEND_A4=1 -DOSCAR_APPEND_CNT=2" "-DOSCAR_APPEND_A4=1 -DOSCAR_APPEND_MINB=4" "-DOSCAR_APPEND_CNT=2"; do
    OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 200 ./build/test_cuda --gpu --only flush > /tmp/t1.log 2>&1; echo "[$o] flush: rc=$? $(grep -c '^ok' /tmp/t1.log) ok, $(grep -c FAIL /tmp/t1.log) FAIL"
    grep -m 3 FAIL /tmp/t1.log
done
OUT=${OUT:-build/s31_1} R=2 sh tools/issue5/s31/wsets.sh "" "-DOSCAR_APPEND_CNT=2" "-DOSCAR_APPEND_A4=1 -DOSCAR_APPEND_CNT=2" \
  "-DOSCAR_APPEND_A4=1 -DOSCAR_APPEND_MINB=4" "-DOSCAR_APPEND_A4=1" "-DOSCAR_APPEND_CNT=1 -DOSCAR_APPEND_MINB=8"
