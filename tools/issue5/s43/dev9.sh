#!/bin/sh
# tools/issue5/s43/dev9.sh - v67: the cluster merge's first cluster barrier with a release fence restricted to this
# block's shared memory at cluster scope and a relaxed arrival (MEMBAR.ALL.CTA) instead of the release arrival's
# GPU-scope fence (MEMBAR.ALL.GPU); OSCAR_WCFENCE 0 gives the previous barrier. The quick GPU test and the
# graph-capture group with it, then three rounds of -DOSCAR_WCFENCE=0 against the default, INT2 and BF16 at 8, 16, 32 x 32K.
O=${OUT:-build/s43_9}; . tools/issue5/s38/wlib.sh
timeout 200 ./build/test_cuda --gpu --quick > "$O/quick.log" 2>&1; echo "quick rc=$?: $(grep -c '^ok' "$O/quick.log") ok, $(grep -c FAIL "$O/quick.log") FAIL"; grep FAIL "$O/quick.log" | head -5
timeout 120 ./build/test_cuda --gpu --only "graph capture" > "$O/g.log" 2>&1; echo "graph capture rc=$?: $(grep -c '^ok' "$O/g.log") ok, $(grep -c FAIL "$O/g.log") FAIL"
for r in 1 2 3; do for v in 0 1; do
    OSCAR_CUDA_NVRTC_OPTIONS=-DOSCAR_WCFENCE=$v timeout 150 ./build/bench_gpu --mode both --batch 8,16,32 --ctx 32768 --iters 100 --csv /tmp/a.csv > /dev/null 2>&1
    tail -n +2 -q /tmp/a.csv | awk -F, -v r=$r -v v=$v '{printf "r%s WCFENCE %s %s %dx%d: events %s b2b %s graph %s\n", r, v, $1, $2, $3, $8, $10, $15}'
done; done | tee "$O/ab.txt"
cd "$O" && tar czf logs.tgz quick.log g.log && rm -f quick.log g.log
