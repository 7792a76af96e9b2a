#!/bin/sh
# tools/ncu_balance.sh - how evenly one INT2 decode launch (oscar_decode_w) loads the SMs: Nsight Compute's
# duration, DRAM throughput and active cycles per SM (avg / max / min) against the elapsed cycles.
# avg / elapsed is the share of the machine the launch keeps busy; max - avg is what the slowest SM
# adds. usage (device machine, repository root): sh tools/ncu_balance.sh [batch ctx ...]
# (default 8 131072 32 131072 32 32768 8 32768; logs under $OUT)
OUT=${OUT:-build/ncu_balance}; mkdir -p "$OUT"
make -s build/bench_gpu >/dev/null || exit 1
[ $# -ge 2 ] || set -- 8 131072 32 131072 32 32768 8 32768
while [ $# -ge 2 ]; do
    b=$1 c=$2; shift 2
    timeout 200 ncu --clock-control none --kernel-name regex:"oscar_decode_w$" --launch-skip 2 --launch-count 1 \
        --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,sm__cycles_elapsed.max,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size \
        ./build/bench_gpu --batch "$b" --ctx "$c" --iters 3 --mode "${MODE:-int2}" > "$OUT/n_${b}_$c.txt" 2>&1
    awk -v s="$b x $c" '/gpu__time_duration/ { t = $NF } /dram__throughput/ { d = $NF } /launch__grid_size/ { g = $NF }
        /sm__cycles_active.avg/ { a = $NF } /sm__cycles_active.max/ { m = $NF } /sm__cycles_active.min/ { n = $NF } /sm__cycles_elapsed.max/ { e = $NF }
        END { gsub(",", "", a); gsub(",", "", m); gsub(",", "", n); gsub(",", "", e)
              printf "%-10s %8s us  grid %5s  DRAM %6s%%  SM active avg %9.0f max %9.0f min %9.0f of %9.0f cycles: avg/elapsed %.1f%%\n", s, t, g, d, a, m, n, e, 100 * a / e }' "$OUT/n_${b}_$c.txt"
done
