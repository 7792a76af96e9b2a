#!/bin/sh
# tools/issue5/s43/dev2.sh - where 8 x 32K INT2 loses between an idle GPU and a graph (issue 5: 74.4% of copy by events
# on the H100, 84.5% in a graph; 80% by events wanted). The decode of 64 (sequence, KV head) pairs is one cluster launch
# (v55d, --cmerge 0) or a decode and a merge launch (--cmerge 2); three rounds each, events / back to back / graph / the
# host's time in the call, at 8 x 32K, 8 x 128K and 1 x 128K; then ubench_idle (an empty-ish kernel from idle on this host).
O=${OUT:-build/s43_2}; mkdir -p "$O"
export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
make -s build/bench_gpu >/dev/null || exit 1
for r in 1 2 3; do for c in 0 2; do
    timeout 120 ./build/bench_gpu --mode int2 --batch 8 --ctx 32768,131072 --iters 100 --cmerge $c --csv "$O/b8_c${c}_r$r.csv" > /dev/null 2>&1
    timeout 120 ./build/bench_gpu --mode int2 --batch 1 --ctx 131072 --iters 100 --cmerge $c --csv "$O/b1_c${c}_r$r.csv" > /dev/null 2>&1
    tail -n +2 -q "$O/b8_c${c}_r$r.csv" "$O/b1_c${c}_r$r.csv" | awk -F, -v r=$r -v c=$c '{printf "r%s cmerge %s %dx%d: events %s b2b %s graph %s host %s us, %s%% of copy %s GB/s\n", r, c, $2, $3, $8, $10, $15, $16, $14, $13}'
done; done | tee "$O/ab.txt"
timeout 120 ./build/bench_gpu --mode int2 --batch 8 --ctx 32768 --iters 50 --diag > "$O/diag_b8.txt" 2>&1
grep -i "launch\|split\|cluster\|block" "$O/diag_b8.txt" | head -20
timeout 60 ./build/ubench_idle > "$O/idle.txt" 2>&1; tail -15 "$O/idle.txt"
