#!/bin/sh
# tools/ncu_launches.sh - Nsight Compute's duration of each launch of one oscar_cuda_kv_attend call
# (oscar_rotate_q, the decode kernel, oscar_merge), each run alone: no overlap between launches
# (programmatic dependent launch is serialised under the profiler), so the sum is above the
# back-to-back time. usage (device machine, repository root): sh tools/ncu_launches.sh [batch ctx ...]
# (default 1 8192; MODE=bf16 for the BF16 cache; logs under $OUT)
OUT=${OUT:-build/ncu_launches}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
[ $# -ge 2 ] || set -- 1 8192
while [ $# -ge 2 ]; do
    b=$1 c=$2; shift 2
    timeout 300 ncu --clock-control none --kernel-name regex:"oscar_(decode|decode_w|rotate_q|merge)$" --launch-skip 6 --launch-count 6 \
        --metrics gpu__time_duration.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
        ./build/bench_gpu --batch "$b" --ctx "$c" --iters 3 --mode "${MODE:-int2}" > "$OUT/ncu_${b}_$c.txt" 2>&1
    echo "== ncu batch $b ctx $c rc=$?"
    awk '/^  oscar_/ { k = $1 } /gpu__time_duration/ { printf "%-16s %8s us\n", k, $NF }' "$OUT/ncu_${b}_$c.txt"
done
