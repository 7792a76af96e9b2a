#!/bin/sh
# device run (session 15, second): pipe utilisation of the write path's kernels (dense and H), then
# decode option sets against the default (quick tests per set)
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
OUT=$OUT sh tools/ncu_append_pipes.sh 2>&1 | tee "$OUT/append_dense.txt"
OUT=$OUT KERNEL=oscar_append_fwht sh tools/ncu_append_pipes.sh 2>&1 | tee "$OUT/append_fwht.txt"
OUT=$OUT TEST=none SETS="${SETS:-|-DOSCAR_WMINB=5|-DOSCAR_WNS=3}" sh tools/issue5/dev_s15.sh
