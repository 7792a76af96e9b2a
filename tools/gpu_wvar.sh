#!/bin/sh
# tools/gpu_wvar.sh - write-path timings for NVRTC option sets in one device run (repository root):
# `bench_gpu --diag` per set, printing the append kernels' registers and each dense-rotation line.
# usage: sh tools/gpu_wvar.sh ["" "-DOPT=1" ...]   (default: the default build only)
mkdir -p build; make -s build/bench_gpu >/dev/null || exit 1
[ $# -eq 0 ] && set -- ""
for v in "$@"; do
  OSCAR_CUDA_NVRTC_OPTIONS="$v" ./build/bench_gpu --diag --batch 1 --ctx 8192 --iters 3 > /tmp/w.log 2>&1
  echo "[$v] $(grep '^copy' /tmp/w.log | sed 's/.* = //')"
  grep 'diag oscar_append' /tmp/w.log | sed 's/ *max threads.*//; s/^/    /'
  grep 'dense rotations\|pages of the two\|-token appends' /tmp/w.log | sed 's/131072 tokens x 8 KV heads x d 128 (K and V, fp32 in), //; s/1150.4 MB read+written, //; s/; host.*//; s/^/    /'
done
