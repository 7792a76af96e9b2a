#!/bin/sh
# tools/issue5/s36/dev4.sh - run 4 (H100): do the query-head groups of G 16 (two groups of 8 per KV head, blockIdx.y = KV
# head x 2 + group) read the cache once from DRAM or twice? Nsight Compute's DRAM bytes and L2 hit rate on one decode
# launch at 8 x 32K for G 8 and G 16, BF16 and INT2, next to the cache's size.
O=${OUT:-build/s36_4}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
make -s build/bench_gpu >/dev/null || exit 1
M=dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,smsp__issue_active.avg.per_cycle_active
for mode in bf16 int2; do
    for hq in 64 128; do
        timeout 120 ncu --clock-control none --kernel-name regex:oscar_decode --launch-skip 2 --launch-count 1 --metrics "$M" \
            ./build/bench_gpu --batch 8 --ctx 32768 --hq $hq --hkv 8 --iters 3 --mode $mode > "$O/ncu_${mode}_$hq.txt" 2>&1
        echo "== $mode hq $hq rc=$? $(grep -m1 -E '^  oscar_decode' "$O/ncu_${mode}_$hq.txt" | cut -c1-80)"
        grep -E "^    [a-z]" "$O/ncu_${mode}_$hq.txt" | awk '{ print "  " $1, $(NF-1), $NF }'
        grep -E "^(int2|bf16) " "$O/ncu_${mode}_$hq.txt"
    done
done
