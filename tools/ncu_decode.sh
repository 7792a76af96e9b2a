#!/bin/sh
# tools/ncu_decode.sh - Nsight Compute on one oscar_decode_w launch: speed of light, occupancy,
# scheduler and warp-stall statistics (device machine, repository root; logs under $OUT).
# usage: sh tools/ncu_decode.sh [batch ctx ...]   (default: 32 32768; MODE=bf16 profiles the BF16 cache)
OUT=${OUT:-build/ncu}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
[ $# -ge 2 ] || set -- 32 32768
while [ $# -ge 2 ]; do
    b=$1 c=$2; shift 2
    timeout 300 ncu --clock-control none --kernel-name oscar_decode_w --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats \
        --metrics regex:smsp__average_warp_latency_issue_stalled_.*\.ratio,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
        ./build/bench_gpu --batch "$b" --ctx "$c" --iters 3 --mode "${MODE:-int2}" > "$OUT/ncu_${b}_$c.txt" 2>&1
    echo "== ncu batch $b ctx $c rc=$?"
    grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|Issued Warp Per|Eligible Warps|Active Warps Per Sch|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|inst_executed|hmma" "$OUT/ncu_${b}_$c.txt"
    grep -E "stalled_.*ratio" "$OUT/ncu_${b}_$c.txt" | awk '{ v = $NF; gsub(",", "", v); if (v + 0 >= 0.1) print }' | sort -k3 -n -r | head -12
done
