#!/bin/sh
# tools/issue5/s24/dev8.sh - run 8 of the twenty-fourth session: Nsight Compute on one oscar_decode_w launch, INT2,
# default against -DOSCAR_WIL=1 (v51: a block's warps take its units in turn), at 8 x 32K (WIL 2% faster in
# run 7) and 1 x 128K (WIL 3% slower). Question: does WIL raise what DRAM delivers, and what does it cost at batch 1?
O=${OUT:-build/s24_8}; mkdir -p "$O"
make -s build/bench_gpu >/dev/null || exit 1
prof() { # tag options batch ctx
    OSCAR_CUDA_NVRTC_OPTIONS="$2" timeout 120 ncu --clock-control none --kernel-name oscar_decode_w --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis \
        --metrics smsp__inst_executed.sum,dram__bytes_read.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,lts__t_sector_hit_rate.pct \
        ./build/bench_gpu --batch "$3" --ctx "$4" --iters 3 --mode int2 > "$O/ncu_$1.txt" 2>&1
    echo "== $1: '$2' batch $3 ctx $4 rc=$?"
    grep -E "^ +(Duration|DRAM Throughput|Memory Throughput|Issued Warp Per|Eligible Warps|Warp Cycles Per Issued|L2 Hit Rate|Mem Busy|Max Bandwidth)|inst_executed.sum|dram__bytes_read.sum|sm__cycles_active.avg|sm__cycles_elapsed.avg" "$O/ncu_$1.txt"
}
prof b8_def "" 8 32768
prof b8_wil -DOSCAR_WIL=1 8 32768
prof b1_def "" 1 131072
prof b1_wil -DOSCAR_WIL=1 1 131072
true
