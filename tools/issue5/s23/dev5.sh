#!/bin/sh
# tools/issue5/s23/dev5.sh - run 5 of the twenty-third session (H100): Nsight Compute on one oscar_decode_w launch
# at 1 x 128K INT2 with the library's 33 splits (2 blocks per SM) and with 66 (4 per SM; 38.4 against 33.5 us in
# a graph in run 4, though 4 blocks per SM is what batch 8-32 run at 88-96 % of copy), and BF16 1 x 32K (auto).
# Question: is the batch-1 decode bound by DRAM at the rate it gets, or by each warp's chain (stalls)?
O=${OUT:-build/s23_5}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
prof() { # tag mode batch ctx splits
    timeout 150 ncu --clock-control none --kernel-name oscar_decode_w --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis \
        --metrics regex:smsp__average_warp_latency_issue_stalled_.*\.ratio,smsp__inst_executed.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \
        ./build/bench_gpu --batch "$3" --ctx "$4" --iters 3 --mode "$2" --splits "$5" > "$O/ncu_$1.txt" 2>&1
    echo "== $1: $2 batch $3 ctx $4 splits $5 rc=$?"
    grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Issued Warp Per|Eligible Warps|Active Warps Per Sch|Warp Cycles Per Issued|Achieved Occupancy|Grid Size|Block Size|Waves Per SM|L2 Hit Rate|Mem Busy|Max Bandwidth)|inst_executed.sum|dram__bytes_read.sum" "$O/ncu_$1.txt"
    grep -E "stalled_.*ratio" "$O/ncu_$1.txt" | awk '{ v = $NF; gsub(",", "", v); if (v + 0 >= 0.2) print $1, v }' | sort -k2 -g -r | head -8
}
prof i128_s33 int2 1 131072 0
prof i128_s66 int2 1 131072 66
prof b32_auto bf16 1 32768 0
prof i8x32 int2 8 32768 0
true
