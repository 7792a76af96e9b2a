#!/bin/sh
# tools/ncu_append_pipes.sh - Nsight Compute's pipe utilisation of the dense write path (oscar_append,
# fixed-point rotation on int8 tensor cores + the INT2 codec) in `bench_gpu --diag`'s 131,072-token
# prefill: the longest of the profiled oscar_append launches is printed. Device machine, repository
# root; KERNEL=oscar_append_fwht profiles the H-rotation kernel instead (the H write comes first:
# SKIP=8 passes its window-write launches of oscar_append, COUNT=8 then holds the dense flush launches); logs under $OUT.
OUT=${OUT:-build/ncu_pipes}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
k=${KERNEL:-oscar_append}
f="$OUT/append_pipes_$k.txt"
timeout 400 ncu --clock-control none --kernel-name "$k" --launch-skip ${SKIP:-0} --launch-count ${COUNT:-8} \
    --metrics "regex:sm__pipe_.*_cycles_active.avg.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warps_eligible.avg.per_cycle_active,regex:smsp__average_warp_latency_issue_stalled_.*\\.ratio,smsp__warps_active.avg.per_cycle_active" \
    ./build/bench_gpu --mode write --iters 3 > "$f" 2>&1
echo "== ncu $k rc=$?"
# split per launch, keep the longest
awk -v k="$k" '
    $1 == k || index($0, "  " k "(") == 1 || index($0, "  " k " ") == 1 { n++ }
    n { blk[n] = blk[n] "\n" $0 }
    /gpu__time_duration.sum/ { v = $NF; gsub(",", "", v); d[n] = v * ($(NF - 1) == "ms" ? 1000 : $(NF - 1) == "s" ? 1e6 : 1) }
    END { m = 1; for (i = 1; i <= n; i++) if (d[i] > d[m]) m = i; print "launches: " n ", longest #" m " (" d[m] ")"; print blk[m] }' "$f" |
    grep -E "launches|gpu__time|grid_size|registers|issue_active|inst_executed.sum|dram__|eligible|warps_active|stalled|sm__(pipe|inst_executed_pipe)_" |
    awk '/sm__(pipe|inst_executed_pipe)_|stalled/ { v = $NF; gsub(",", "", v); if (v + 0 < 2) next } { print }'
