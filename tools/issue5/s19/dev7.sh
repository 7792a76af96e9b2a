#!/bin/sh
# tools/issue5/s19/dev7.sh - nineteenth session, device run 7 (repository root; old/ = oscar.h,
# oscar_cuda.h, cli/bench_gpu.c of the commit before cfg.center 1 ran on the GPU): the default paths'
# speed with the mean support in (a run-time pointer in the write kernels and the merge): the write
# path (tools/gpu_wab.sh) and INT2 decode (tools/gpu_xp.sh: this tree and old/, then both again).
O=${OUT:-build/s19g}; mkdir -p "$O"
OUT=$O/wab TEST=0 timeout 160 sh tools/gpu_wab.sh
OUT=$O/xp TEST=none SETS="|old|" timeout 240 sh tools/gpu_xp.sh
true
