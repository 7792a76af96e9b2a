#!/bin/sh
# tools/issue5/s29/dev1.sh - run 1 of the twenty-ninth session: the issue-5 table (s25/dev10.sh) on the tree with
# v57 (the L2 prefetch from 64 pairs), and the write path with w30 (-DOSCAR_FCNT_MMA=1) against the default build,
# whose dense-rotation figure run s28-6 lost (two sets each).
O=${OUT:-build/s29_1}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OUT="$O/table" sh tools/issue5/s25/dev10.sh > "$O/table.out" 2>&1
cp build/issue5_full/table.txt "$O/table/" 2>/dev/null
tar czf "$O/table.tgz" -C "$O" table && rm -rf "$O/table"
for r in 1 2; do
    for o in "" "-DOSCAR_FCNT_MMA=1"; do
        n=def; [ -n "$o" ] && n=mma
        OSCAR_CUDA_NVRTC_OPTIONS="$o" timeout 60 ./build/bench_gpu --mode write --batch 1 --ctx 8192 --iters 5 > "$O/w_${r}_$n.log" 2>&1
        grep "^diag write path.*one append call\|pages of the two" "$O/w_${r}_$n.log" | sed "s/^/[$n] /" | sed 's/(K and V, fp32 in), //;s/131072 tokens x 8 KV heads x d 128 //' | cut -c1-200
    done
done > "$O/write.txt"
{ grep -v "^diag" "$O/table.out" | tail -32; cat "$O/write.txt"; } | tee "$O/summary.txt"
true
