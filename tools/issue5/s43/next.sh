#!/bin/sh
# tools/issue5/s43/next.sh - for the next session lent an H100 (sessions 40-45 were lent H200s only).
# 1: the whole GPU test, w47's stagger A/B and the decode table's quick rows (s40/next_h100.sh, ~6 min).
# 2: v66 against the kernels before it (s43/dev4.sh: quick test, graph capture, wide batch, three rounds INT2 / BF16 at
#    8, 16, 32 x 32K and 8 x 128K, the whole test; ~4 min). It needs build/bench_old from the commit before v66, built
#    here and carried (run's carry ["build/bench_old"]):
#      git worktree add /tmp/old 12e97d7 && make -C /tmp/old build/bench_gpu && cp /tmp/old/build/bench_gpu build/bench_old
# 3: w49 / w49b there (s42/dev2.sh's write-path A/B and whole test, then s42/dev5.sh's decode-step A/B).
# 4: s43/dev3.sh there: 8 x 32K split counts and block records, to see how much balancing units inside a cluster could
#    take off on the H100 (about 5% at most on the H200, kernels/NOTES.md forty-third session).
# 5: v69 (the forty-fifth session's two query digits as one int) against OSCAR_WDC 0 by NVRTC option (s45/dev5.sh: output
#    hashes, quick test, three rounds at G 4 1 / 8 / 32 x 32K, 1 / 8 x 128K and G 8 8 x 32K; ~5 min).
# The full issue table is a call of its own: NOTEST=1 DIAG=1 sh tools/gpu_issue5.sh full
case "$1" in
1) sh tools/issue5/s40/next_h100.sh ;;
2) [ -x build/bench_old ] || { echo "next.sh 2: build/bench_old missing (see the header)"; exit 2; }
   OUT=${OUT:-build/s43_next}/v66 sh tools/issue5/s43/dev4.sh ;;
3) OUT=${OUT:-build/s43_next}/w sh tools/issue5/s42/dev2.sh; OUT=${OUT:-build/s43_next}/s sh tools/issue5/s42/dev5.sh ;;
4) OUT=${OUT:-build/s43_next}/b8 sh tools/issue5/s43/dev3.sh ;;
5) OUT=${OUT:-build/s43_next}/v69 sh tools/issue5/s45/dev5.sh ;;
*) echo "usage: sh tools/issue5/s43/next.sh 1|2|3|4|5"; exit 2 ;;
esac
