#!/bin/sh
# tools/issue5/s30/dev3.sh - run 3: each warp of a dense flush tile codes the 16 rows it rotated, with no block
# barrier between the phases (OSCAR_APPEND_WLOCAL=1): the flush and nonfinite tests with it (pages byte for byte
# against the CPU), then the write path against the default (and with Q3, timing only), three rounds.
# (WLOCAL: `patch -p1 < tools/issue5/s30/w33_wlocal.patch` and `make embed` first)
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
for o in "-DOSCAR_APPEND_WLOCAL=1"; do
    OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 200 ./build/test_cuda --gpu --only flush > /tmp/t1.log 2>&1; echo "[$o] flush: rc=$? $(grep -c '^ok' /tmp/t1.log) ok, $(grep -c FAIL /tmp/t1.log) FAIL"
    OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 100 ./build/test_cuda --gpu --only nonfinite > /tmp/t2.log 2>&1; echo "[$o] nonfinite: rc=$? $(grep -c '^ok' /tmp/t2.log) ok, $(grep -c FAIL /tmp/t2.log) FAIL"
    grep -m 5 FAIL /tmp/t1.log /tmp/t2.log
done
OUT=${OUT:-build/s30_3} sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_WLOCAL=1" "-DOSCAR_APPEND_WLOCAL=1 -DOSCAR_APPEND_Q3=1"
