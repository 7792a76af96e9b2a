#!/bin/sh
# device run (session 15, third): the write path's kernels under Nsight Compute (bench --mode write),
# then the per-block timing probe of the decode kernel at 8 x 32K and 1 x 8K
make -s build/test_cuda build/bench_gpu >/dev/null || exit 1
OUT=$OUT sh tools/ncu_append_pipes.sh 2>&1 | tee "$OUT/append_dense.txt"
OUT=$OUT KERNEL=oscar_append_fwht sh tools/ncu_append_pipes.sh 2>&1 | tee "$OUT/append_fwht.txt"
OUT=$OUT/wp SHAPES="8:32768 1:8192" sh tools/gpu_wprof.sh 2>&1 | tee "$OUT/wprof_summary.txt"
gzip -f "$OUT/wp/wprof.csv" && mv "$OUT/wp/wprof.csv.gz" "$OUT/" && rm -rf "$OUT/wp"
