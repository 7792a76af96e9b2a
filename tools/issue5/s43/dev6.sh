#!/bin/sh
# tools/issue5/s43/dev6.sh - compute-sanitizer synccheck over the graph-capture group with the committed kernels
# (build/test_cuda_old, built from HEAD and carried) and with v66 (run s43-5: 100 "divergent threads in warp" at a
# barrier of the BF16 oscar_decode_wc, batch 40): is it v66's or the committed kernel's? Then with --print-limit to
# see all distinct places, and racecheck on both.
O=${OUT:-build/s43_6}; mkdir -p "$O"; export OSCAR_CUDA_CACHE_DIR=/tmp/oscar_kc
SAN=compute-sanitizer; command -v $SAN >/dev/null 2>&1 || SAN=/usr/local/cuda/bin/compute-sanitizer
make -s build/test_cuda >/dev/null || exit 1
for b in old new; do
    T=./build/test_cuda; [ $b = old ] && T=./build/test_cuda_old
    timeout 150 $SAN --tool synccheck --print-limit 100000 $T --gpu --only "graph capture" > "$O/sync_$b.log" 2>&1
    echo "$b synccheck rc=$?: $(grep -c 'Barrier error' "$O/sync_$b.log") barrier errors; $(grep -c '^ok' "$O/sync_$b.log") ok, $(grep -c FAIL "$O/sync_$b.log") FAIL"
    grep "at oscar" "$O/sync_$b.log" | sort | uniq -c | head -5
    grep "^FAIL" "$O/sync_$b.log" | head -3
done | tee "$O/sync.txt"
cd "$O" && tar czf sync.tgz sync_*.log && rm -f sync_*.log
