#!/bin/sh
# tools/issue5/s43/dev4.sh - v66: the cluster merge without block barriers (each warp merges a head in registers: its
# lanes take the split weights by shuffles, sum the splits' o by distributed-shared-memory loads, o / L, o . H by
# oscar_wht_row) and with the second cluster barrier split: a thread arrives once its reads of the other blocks are
# done, before the output's transform and stores, and waits before the block exits (the arrive's release fence no
# longer waits for the output stores). Checks: the quick GPU test (every attention also through the clusters), the
# graph-capture and wide-batch groups; then three rounds of the committed kernels (build/bench_old, built from HEAD and
# carried) against this tree's, INT2 and BF16 at 8 x 32K, 16 x 32K, 32 x 32K and 8 x 128K; then the whole GPU test.
O=${OUT:-build/s43_4}; . tools/issue5/s38/wlib.sh
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick rc=$?: $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep FAIL "$O/quick.log" | head -5
for g in "graph capture" "wide batch"; do
    timeout 120 ./build/test_cuda --gpu --only "$g" > "$O/g.log" 2>&1; echo "$g rc=$?: $(grep -c '^ok' "$O/g.log") ok, $(grep -c FAIL "$O/g.log") FAIL"; grep FAIL "$O/g.log" | head -3
done
for r in 1 2 3; do for b in old new; do
    B=./build/bench_gpu; [ $b = old ] && B=./build/bench_old
    timeout 150 $B --mode both --batch 8,16,32 --ctx 32768 --iters 100 --csv /tmp/a.csv > /dev/null 2>&1
    timeout 150 $B --mode both --batch 8 --ctx 131072 --iters 100 --csv /tmp/b.csv > /dev/null 2>&1
    tail -n +2 -q /tmp/a.csv /tmp/b.csv | awk -F, -v r=$r -v b=$b '{printf "r%s %s %s %dx%d: events %s b2b %s graph %s host %s\n", r, b, $1, $2, $3, $8, $10, $15, $16}'
done; done | tee "$O/ab.txt"
whole_test
cd "$O" && tar czf logs.tgz quick.log test.txt && rm -f quick.log g.log
