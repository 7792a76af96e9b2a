#!/bin/sh
# device run (H100): the issue-5 table of the working tree (tools/gpu_issue5.sh full: whole
# test_cuda --gpu, every row, torch SDPA), then INT2 against the kernels in old/ (same run)
OUT=$OUT/full sh tools/gpu_issue5.sh full 2>&1 | tail -45
[ -f old/cli/bench_gpu.c ] && OUT=$OUT/xp TEST=none SETS="" sh tools/gpu_xp.sh 2>&1 | tail -20
tar czf "$OUT/h100.tgz" -C "$OUT" full xp 2>/dev/null && rm -rf "$OUT/full" "$OUT/xp"
