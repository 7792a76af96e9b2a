#!/bin/sh
# tools/issue5/s30/dev5.sh - run 5: dense flush tiles prefetch into L2 the input rows of the tile
# OSCAR_APPEND_PF tiles ahead (same head, K|V), so that pass 1 of a later block waits on L2 instead of DRAM;
# the flush tests with it, then the write path at 66 / 132 / 264 / 660 tiles ahead against none, two rounds.
# (PF: `patch -p1 < tools/issue5/s30/w35_pf_l1p.patch` and `make embed` first)
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS="-DOSCAR_APPEND_PF=132" timeout 200 ./build/test_cuda --gpu --only flush > /tmp/t1.log 2>&1
echo "[PF=132] flush: rc=$? $(grep -c '^ok' /tmp/t1.log) ok, $(grep -c FAIL /tmp/t1.log) FAIL"; grep -m 5 FAIL /tmp/t1.log
OUT=${OUT:-build/s30_5} R=2 sh tools/issue5/s30/wsets.sh "" "-DOSCAR_APPEND_PF=66" "-DOSCAR_APPEND_PF=132" "-DOSCAR_APPEND_PF=264" "-DOSCAR_APPEND_PF=660"
