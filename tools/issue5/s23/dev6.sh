#!/bin/sh
# tools/issue5/s23/dev6.sh - run 6 of the twenty-third session (H100): run 5's profile found 1 x 128K with 33 splits
# issue-bound at 2 warps per scheduler (0.55 issued per cycle; stalls "selected" and "wait"), and 66 splits (4 per
# scheduler) bound by memory waits with less DRAM throughput (62 against 69 %). Is it the warps or the blocks?
# Same warps per SM with fewer, larger blocks: OSCAR_WNW=8 (8-warp blocks) at 17 / 33 splits, OSCAR_WNW=16 at 17.
# graph us (events us); two sets; the quick test with WNW 8 first.
O=${OUT:-build/s23_6}; mkdir -p "$O"
make -s build/bench_gpu build/test_cuda >/dev/null || exit 1
OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WNW=8 timeout 150 ./build/test_cuda --gpu --quick > "$O/quick_wnw8.log" 2>&1
echo "quick WNW 8: rc=$? $(grep -c '^ok' "$O/quick_wnw8.log") ok, $(grep -c FAIL "$O/quick_wnw8.log") FAIL"; grep -m 3 FAIL "$O/quick_wnw8.log"
row() { printf "%-18s" "$1"; awk -F, 'NR > 1 { printf " %s%s %6s:%6.1f (%5.1f)", $1, $2, $3, $15, $8 }' "$2"; echo; }
b() { # tag opts splits
    OSCAR_CUDA_NVRTC_OPTIONS="$2" timeout 60 ./build/bench_gpu --batch 1 --ctx 32768,131072 --iters 30 --mode int2 --splits "$3" --csv "$O/h.csv" > /dev/null 2>&1; row "$1" "$O/h.csv"
}
for n in 1 2; do
    b "$n w4 auto" "" 0
    b "$n w4 s33" "" 33
    b "$n w8 s17" "-DOSCAR_WNW=8" 17
    b "$n w8 s33" "-DOSCAR_WNW=8" 33
    b "$n w8 auto" "-DOSCAR_WNW=8" 0
    b "$n w16 s17" "-DOSCAR_WNW=16" 17
done
true
