#!/bin/sh
# tools/issue5/s36/dev3.sh - run 3 (H100): Nsight Compute on one decode launch of the current kernels at 1 x 128K, 8 x 32K
# and 32 x 128K (INT2, H rotations): instructions, issue rate, warp stalls, and the memory side (DRAM bytes and
# throughput, L2 hit rate, shared-memory wavefronts of the cp.async fills and fragment loads) that the twenty-third
# session's profile left open. One file per shape comes back (ncu_B_CTX.txt).
O=${OUT:-build/s36_3}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
make -s build/bench_gpu >/dev/null || exit 1
M=smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active,sm__cycles_active.avg,gpc__cycles_elapsed.max
M=$M,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active
M=$M,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active
M=$M,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active
M=$M,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active
for s in "1 131072" "8 32768" "32 131072"; do
    set -- $s
    timeout 150 ncu --clock-control none --kernel-name regex:oscar_decode_w --launch-skip 2 --launch-count 1 \
        --metrics "$M,regex:smsp__average_warp_latency_issue_stalled_.*\.ratio" \
        ./build/bench_gpu --batch $1 --ctx $2 --iters 3 --mode int2 > "$O/ncu_$1_$2.txt" 2>&1
    echo "== batch $1 ctx $2 rc=$?"
    grep -E "^  [a-z]" "$O/ncu_$1_$2.txt" | grep -v "stalled_" | awk '{ printf "  %-72s %s %s\n", $1, $2, $NF }'
    grep -E "stalled_.*ratio" "$O/ncu_$1_$2.txt" | awk '{ v = $NF; gsub(",", "", v); if (v + 0 >= 0.05) print "  " $1, v }' | sort -k2 -n -r | head -9
    grep -m2 -E "oscar_decode_w[a-z_]*" "$O/ncu_$1_$2.txt" | head -2
done
