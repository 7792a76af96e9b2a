#!/bin/sh
# tools/ncu_pipes.sh - Nsight Compute's pipe utilisation of one oscar_decode_w launch (which
# execution pipe, tensor / ALU / FMA / FP16 / shared memory, is busiest: issue 5's question of
# whether the INT2 decode waits on the tensor cores or on instruction issue).
# usage (device machine, repository root): sh tools/ncu_pipes.sh [batch ctx ...] (default 32 131072)
# MODE=bf16 profiles the BF16 cache; EXTRA="--hq 64" passes more bench options (e.g. G 8);
# logs under $OUT.
OUT=${OUT:-build/ncu_pipes}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
[ $# -ge 2 ] || set -- 32 131072
while [ $# -ge 2 ]; do
    b=$1 c=$2; shift 2
    f="$OUT/pipes_${b}_$c$(echo "$EXTRA" | tr -c 'A-Za-z0-9' '_').txt"
    timeout 300 ncu --clock-control none --kernel-name oscar_decode_w --launch-skip 2 --launch-count 1 \
        --metrics "regex:sm__pipe_.*_cycles_active.avg.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,smsp__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,smsp__warps_eligible.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,regex:smsp__average_warp_latency_issue_stalled_.*\\.ratio" \
        ./build/bench_gpu --batch "$b" --ctx "$c" --iters 3 --mode "${MODE:-int2}" $EXTRA > "$f" 2>&1
    echo "== ncu pipes batch $b ctx $c rc=$?"
    grep -E "gpu__time|issue_active|inst_executed.sum|cycles_elapsed|dram__|registers|warps_eligible|warps_active" "$f"
    grep -E "stalled" "$f" | awk '{ v = $NF; gsub(",", "", v); if (v + 0 >= 0.2) print $1, v }' | sort -k2 -g -r | head -8
    grep -E "sm__(pipe|inst_executed_pipe)_" "$f" | awk '{ v = $NF; gsub(",", "", v); if (v + 0 >= 2) print $1, v }' | sort -k2 -g -r | head -16
done
